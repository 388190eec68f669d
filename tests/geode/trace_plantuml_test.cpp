// sim/run/trace_plantuml on a small synthetic trace (exact output), and on a real trace.
//
// test_geode links fdsim_geode only (tests/CMakeLists.txt), not fdsim_run, so the renderer's
// single source file is compiled into this test directly; it depends on nothing but the
// standard library and nlohmann/json.
#include "sim/run/trace_plantuml.cpp"

#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::run {
namespace {

using nlohmann::json;

std::vector<json> synthetic() {
  return {
      {{"t_ns", 3000000000}, {"node", 2}, {"kind", "check_start"}, {"target", 3}, {"silence_ms", 999.0}},
      {{"t_ns", 3000000000}, {"node", 2}, {"kind", "send"}, {"msg", "geode.heartbeat_request"}, {"from", 2}, {"to", 3}},
      {{"t_ns", 3000000000}, {"node", 2}, {"kind", "drop"}, {"msg", "geode.heartbeat_request"}, {"from", 2}, {"to", 3}, {"reason", "down"}},
      {{"t_ns", 3500000000}, {"node", 0}, {"kind", "recv"}, {"msg", "geode.heartbeat"}, {"from", 1}, {"to", 0}},
      {{"t_ns", 4000000000}, {"node", 2}, {"kind", "suspect"}, {"suspect", 3}, {"recipients", {0, 1, 2, 3, 4}}},
      {{"t_ns", 4001000000}, {"node", 0}, {"kind", "recv"}, {"msg", "geode.suspect_members"}, {"from", 2}, {"to", 0}},
      {{"t_ns", 4001000000}, {"node", 0}, {"kind", "send"}, {"msg", "geode.tcp_check"}, {"from", 0}, {"to", 3}},
      {{"t_ns", 4003000000}, {"node", 0}, {"kind", "probe_result"}, {"msg", "geode.tcp_check"}, {"from", 0}, {"to", 3}, {"outcome", "refused"}},
      {{"t_ns", 4003000000}, {"node", 0}, {"kind", "probe_result"}, {"msg", "geode.tcp_check"}, {"from", 0}, {"to", 2}, {"outcome", "answered"}},
      {{"t_ns", 5023000000}, {"node", 0}, {"kind", "removal_requested"}, {"target", 3}, {"arm", "fixed"}},
  };
}

}  // namespace

TEST(TracePlantUml, SyntheticTrace_AllParticipantsAndNotes) {
  PlantUmlOptions o;
  o.title = "crash of m3";
  EXPECT_EQ(trace_to_plantuml(synthetic(), o),
            "@startuml\n"
            "title crash of m3\n"
            "participant \"m0\" as n0\n"
            "participant \"m1\" as n1\n"
            "participant \"m2\" as n2\n"
            "participant \"m3\" as n3\n"
            "hnote over n2 : check_start silence_ms=999.0, target=3 @3.000s\n"
            "n2 ->x n3 : heartbeat_request (down) @3.000s\n"
            "n1 -> n0 : heartbeat @3.500s\n"
            "hnote over n2 : suspect recipients=[0,1,2,3,4], suspect=3 @4.000s\n"
            "n2 -> n0 : suspect_members @4.001s\n"
            "n0 ->x n3 : tcp_check refused @4.003s\n"
            "n2 --> n0 : tcp_check answered @4.003s\n"
            "hnote over n0 : removal_requested target=3 @5.023s\n"
            "@enduml\n");
}

TEST(TracePlantUml, SyntheticTrace_MembersWindowNoNotesHiddenTypesFullNames) {
  PlantUmlOptions o;
  o.members = {2, 0};  // drawn in this order; m1 and m3 left out with their messages
  o.from_s = 3.2;
  o.to_s = 4.002;
  o.notes = false;
  o.short_names = false;
  o.hide_messages = {"geode.heartbeat"};
  EXPECT_EQ(trace_to_plantuml(synthetic(), o),
            "@startuml\n"
            "participant \"m2\" as n2\n"
            "participant \"m0\" as n0\n"
            "n2 -> n0 : geode.suspect_members @4.001s\n"
            "@enduml\n");
}

TEST(TracePlantUml, MalformedRecordsAreSkipped) {
  std::vector<json> records = {json::array(), {{"kind", "recv"}}, {{"t_ns", 1}, {"kind", "recv"}, {"msg", "x"}},
                               {{"t_ns", 1}, {"node", nullptr}, {"kind", "note"}}};
  EXPECT_EQ(trace_to_plantuml(records, {}), "@startuml\n@enduml\n");
}

TEST(TracePlantUml, RealTraceOfACrashHasTheProtocolSteps) {
  using namespace fdsim::geode;
  using namespace fdsim::geode::test;
  Harness h(config(Profile::current, 5));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.run_until_s(8);
  PlantUmlOptions o;
  o.members = {0, 2, 3};
  o.hide_messages = {"geode.heartbeat"};
  o.hide_kinds = {"watch", "grace_stamp"};
  const std::string uml = trace_to_plantuml(h.sink.records, o);
  for (const char* want : {"n2 ->x n3 : heartbeat_request (down) @3.000s",
                           "hnote over n2 : suspect recipients=[0,1,2,3,4], suspect=3 @4.000s",
                           "n2 -> n0 : suspect_members @4.001s",
                           "hnote over n0 : final_check_failed suspect=3 @5.023s",
                           "n0 -> n2 : prepare_view @5.324s", "n2 -> n0 : view_ack @5.325s",
                           "n0 -> n2 : install_view @5.326s"})
    EXPECT_NE(uml.find(want), std::string::npos) << want << "\n" << uml;
  EXPECT_EQ(uml.find("grace_stamp"), std::string::npos);
}

}  // namespace fdsim::run
