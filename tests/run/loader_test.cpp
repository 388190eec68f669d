// The scenario loader with every section plugged in: malformed model sections are reported at
// their exact paths, with every problem of a document, and the arm rules of contracts.md.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/run/scenario_loader.h"

namespace fdsim::run {
namespace {

using nlohmann::json;
using Lines = std::vector<std::string>;

json study() {
  return json::parse(R"({"name": "t", "horizon_s": 100, "nodes": {"count": 4},
      "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed"}}]}})");
}
json ring() {
  return json::parse(R"({"name": "t", "horizon_s": 100, "nodes": {"count": 4}, "membership": {}})");
}
json sharing() {
  return json::parse(R"({"name": "t", "horizon_s": 100, "nodes": {"count": 4},
      "workload": {}, "load_sharing": {}})");
}

Lines problems(const json& doc) { return load_scenario_json(doc, "x.json", ".").problems; }

TEST(Loader, ValidScenariosOfEachFamily_LoadWithTheirArms) {
  const LoadResult s = load_scenario_json(study(), "x.json", ".");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.scenario->family, ArmFamily::heartbeat_study);
  EXPECT_EQ(s.scenario->arms, Lines{"a"});
  const LoadResult r = load_scenario_json(ring(), "x.json", ".");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.scenario->family, ArmFamily::membership);
  EXPECT_EQ(r.scenario->arms, Lines{"fixed"});  // the default arm
  const LoadResult l = load_scenario_json(sharing(), "x.json", ".");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.scenario->family, ArmFamily::load_sharing);
  EXPECT_EQ(l.scenario->arms, Lines{"none"});
  // Defaults of absent sections are written into the resolved config.
  EXPECT_TRUE(l.scenario->resolved["network"]["latency"].contains("model"));
  EXPECT_EQ(l.scenario->resolved["faults"], json::array());
  EXPECT_TRUE(l.scenario->resolved["load_sharing"].contains("scheduling"));
  EXPECT_TRUE(l.scenario->resolved["workload"].contains("arrival_rate_per_s"));
}

TEST(Loader, NetworkUnknownLatencyModel) {
  json d = study();
  d["network"] = {{"latency", {{"model", "gaussian"}, {"ms", 1}}}};
  EXPECT_EQ(problems(d), Lines{"x.json: $.network.latency.model: expected one of \"constant\", "
                               "\"uniform\", \"exponential\", \"lognormal\", \"pareto\", "
                               "\"empirical\", \"trace\", got the string \"gaussian\""});
}

TEST(Loader, NetworkLossAboveOne) {
  json d = study();
  d["network"] = {{"loss", 1.5}};
  EXPECT_EQ(problems(d), Lines{"x.json: $.network.loss: expected a number >= 0 and <= 1, got 1.5"});
}

TEST(Loader, NetworkUnknownKeyThreeLevelsDown) {
  json d = study();
  d["network"] = json::parse(
      R"({"links": [{"from": [0], "latency": {"model": "constant", "ms": 1, "jitter_ms": 2}}]})");
  EXPECT_EQ(problems(d), Lines{"x.json: $.network.links[0].latency.jitter_ms: unknown key"});
}

TEST(Loader, NetworkUniformWithMaxBelowMin) {
  json d = study();
  d["network"] = json::parse(R"({"latency": {"model": "uniform", "min_ms": 5, "max_ms": 2}})");
  EXPECT_EQ(problems(d), Lines{"x.json: $.network.latency.max_ms: expected max_ms >= min_ms (5), got 2"});
}

TEST(Loader, NetworkEmpiricalFileMissing) {
  json d = study();
  d["network"] = json::parse(R"({"latency": {"model": "empirical", "file": "nope.txt"}})");
  EXPECT_EQ(problems(d), Lines{"x.json: $.network.latency.file: ./nope.txt: cannot open the "
                               "delay samples file"});
}

TEST(Loader, FaultsNotAnArray) {
  json d = study();
  d["faults"] = {{"kind", "crash"}};
  EXPECT_EQ(problems(d), Lines{"x.json: $.faults: expected an array of objects, got an object"});
}

TEST(Loader, FaultWithNegativeTime_IsReportedAtItsIndex) {
  json d = study();
  d["faults"] = json::parse(R"([{"kind": "crash", "at_s": 1, "nodes": [0]},
                                {"kind": "crash", "at_s": 2, "nodes": [1]},
                                {"kind": "crash", "at_s": -5, "nodes": [2]}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.faults[2].at_s: expected a number >= 0 and <= "
                               "1000000000, got -5"});
}

TEST(Loader, FaultUnknownKind_ListsTheKinds) {
  json d = study();
  d["faults"] = json::parse(R"([{"kind": "explode", "at_s": 3}])");
  EXPECT_EQ(problems(d),
            Lines{"x.json: $.faults[0].kind: expected one of \"crash\", \"recover\", \"pause\", "
                  "\"sick\", \"play_dead\", \"partition\", \"loss_burst\", \"delay_spike\", "
                  "\"crash_process\", \"pause_process\", \"group_crash_process\", "
                               "\"crash_storm\", \"churn\", got the string \"explode\""});
}

TEST(Loader, FaultNodeOutOfRangeAndUnknownGroup) {
  json d = study();
  d["faults"] = json::parse(R"([{"kind": "crash", "at_s": 1, "nodes": [0, 9]},
                                {"kind": "crash", "at_s": 1, "nodes": "west"}])");
  EXPECT_EQ(problems(d),
            (Lines{"x.json: $.faults[0].nodes[1]: expected a node index >= 0 and <= 3, got 9",
                   "x.json: $.faults[1].nodes: expected a node index, \"all\" or a group name "
                   "(\"all\"), got the string \"west\""}));
}

TEST(Loader, PartitionHealingBeforeItStarts) {
  json d = study();
  d["faults"] = json::parse(R"([{"kind": "partition", "at_s": 10, "heal_at_s": 5, "a": [0]}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.faults[0].heal_at_s: expected a heal time after the "
                               "start (10 s), got 5 s"});
}

TEST(Loader, FaultUnknownKey) {
  json d = study();
  d["faults"] = json::parse(
      R"([{"kind": "pause", "at_s": 1, "duration_ms": 100, "nodes": [1], "severity": "high"}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.faults[0].severity: unknown key"});
}

TEST(Loader, DetectorUnknownKind) {
  json d = study();
  d["detectors"]["arms"][0]["detector"]["kind"] = "psychic";
  EXPECT_EQ(problems(d), Lines{"x.json: $.detectors.arms[0].detector.kind: expected one of "
                               "\"fixed\", \"nfd_s\", \"nfd_e\", \"phi_accrual\", "
                               "\"exponential_accrual\", \"bertier\", \"quantile\", got the "
                               "string \"psychic\""});
}

TEST(Loader, DetectorKeyOfAnotherKind_IsUnknown) {
  json d = study();
  d["detectors"]["arms"][0]["detector"]["threshold"] = 8;
  EXPECT_EQ(problems(d), Lines{"x.json: $.detectors.arms[0].detector.threshold: unknown key"});
}

TEST(Loader, StudyWithoutArms) {
  json d = study();
  d["detectors"].erase("arms");
  EXPECT_EQ(problems(d), Lines{"x.json: $.detectors.arms: required field is missing (expected "
                               "an array of {\"name\", \"detector\"})"});
}

TEST(Loader, DuplicateArmNames) {
  json d = study();
  d["detectors"]["arms"].push_back({{"name", "a"}, {"detector", {{"kind", "nfd_s"}}}});
  EXPECT_EQ(problems(d), Lines{"x.json: $.detectors.arms[1].name: duplicate arm name \"a\""});
}

TEST(Loader, MembershipUnknownProfile) {
  json d = ring();
  d["membership"]["profile"] = "legacy";
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership.profile: expected one of \"wiki\", "
                               "\"current\", got the string \"legacy\""});
}

TEST(Loader, MembershipNegativeTimeout) {
  json d = ring();
  d["membership"]["member_timeout_ms"] = -1;
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership.member_timeout_ms: expected a number > 0 "
                               "and <= 1000000000, got -1"});
}

TEST(Loader, MembershipDetectorParameterOfWrongType) {
  json d = ring();
  d["membership"]["neighbour_check"] = json::parse(
      R"([{"name": "phi", "detector": {"kind": "phi_accrual", "threshold": "high"}}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership.neighbour_check[0].detector.threshold: "
                               "expected a number > 0 and <= 1000000, got the string \"high\""});
}

TEST(Loader, MembershipMisspeltKey) {
  json d = ring();
  d["membership"]["heartbeat_interval_ms"] = 100;
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership.heartbeat_interval_ms: unknown key"});
}

TEST(Loader, LoadSharingUnknownDiagnosis) {
  json d = sharing();
  d["load_sharing"]["arms"] = json::parse(R"([{"name": "x", "diagnosis": "psychic"}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.load_sharing.arms[0].diagnosis: expected one of "
                               "\"none\", \"fixed\", \"fixed_periodic\", \"fixed_on_silence\", "
                               "\"oracle\", \"oracle_extra\", \"oracle_periodic\", "
                               "\"periodic_no_diagnosis\", \"geode_ring\", \"hou_shin\", "
                               "\"hou_shin_extra\", \"fixed_heartbeat\", got the string "
                               "\"psychic\""});
}

TEST(Loader, WorkloadNegativeRateAndBadExecutionLaw) {
  json d = sharing();
  d["workload"] = json::parse(
      R"({"arrival_rate_per_s": -1, "execution": {"distribution": "uniform", "min_s": 3, "max_s": 1}})");
  EXPECT_EQ(problems(d),
            (Lines{"x.json: $.workload.arrival_rate_per_s: expected a number >= 0 and <= 10000, got -1",
                   "x.json: $.workload.execution.max_s: expected a number > 0 and >= min_s"}));
}

TEST(Loader, FixedArmWithoutTimeout) {
  json d = sharing();
  d["load_sharing"]["arms"] = json::parse(R"([{"name": "f", "diagnosis": "fixed"}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.load_sharing.arms[0].timeout_ms: required field is "
                               "missing (expected a number > 0 and <= 1000000000000)"});
}

TEST(Loader, GeodeRingArmWithoutMembership) {
  json d = sharing();
  d["load_sharing"]["arms"] = json::parse(R"([{"name": "g", "diagnosis": "geode_ring"}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.load_sharing: arm \"g\" uses the membership view "
                               "(diagnosis \"geode_ring\"), which needs a 'membership' section; "
                               "none is present"});
}

TEST(Loader, MembershipThatNoLoadSharingArmUses) {
  json d = sharing();
  d["membership"] = json::object();
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership: not used: no load-sharing arm uses the "
                               "membership view (diagnosis \"geode_ring\"); remove the section "
                               "or add such an arm"});
}

TEST(Loader, LoadSharingWithMembershipForAGeodeArm_Loads) {
  json d = sharing();
  d["membership"] = json::object();
  d["load_sharing"]["arms"] = json::parse(
      R"([{"name": "none", "diagnosis": "none"}, {"name": "g", "diagnosis": "geode_ring"}])");
  const LoadResult r = load_scenario_json(d, "x.json", ".");
  ASSERT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.scenario->family, ArmFamily::load_sharing);
  EXPECT_EQ(r.scenario->arms, (Lines{"none", "g"}));
}

TEST(Loader, LoadSharingWithSeveralMembershipArms_IsRejected) {
  json d = sharing();
  d["membership"] = json::parse(
      R"({"neighbour_check": [{"name": "fixed"}, {"name": "phi", "detector": {"kind": "phi_accrual"}}]})");
  d["load_sharing"]["arms"] = json::parse(R"([{"name": "g", "diagnosis": "geode_ring"}])");
  EXPECT_EQ(problems(d), Lines{"x.json: $.membership.neighbour_check: a load-sharing scenario "
                               "runs one membership variant (the arms are the load-sharing "
                               "arms); give at most one neighbour_check arm, got 2"});
}

TEST(Loader, BrokenNodeSection_SuppressesTheCascadeInOtherSections) {
  json d = study();
  d["nodes"] = {{"count", -3}};
  d["faults"] = json::parse(R"([{"kind": "crash", "at_s": 1, "nodes": [7]}])");
  EXPECT_EQ(problems(d),
            Lines{"x.json: $.nodes.count: expected an integer >= 1 and <= 10000000, got -3"});
}

TEST(Loader, EveryProblemOfAMultiErrorDocumentIsReportedInDocumentOrder) {
  json d = study();
  d["seed"] = "x";
  d["network"] = {{"loss", 2}};
  d["faults"] = json::parse(R"([{"kind": "crash", "at_s": -1, "nodes": [0]}])");
  d["detectors"]["arms"][0]["detector"]["timeout_ms"] = 0;
  d["extra"] = 1;
  EXPECT_EQ(problems(d),
            (Lines{"x.json: $.seed: expected an integer >= 0, got the string \"x\"",
                   "x.json: $.network.loss: expected a number >= 0 and <= 1, got 2",
                   "x.json: $.faults[0].at_s: expected a number >= 0 and <= 1000000000, got -1",
                   "x.json: $.detectors.arms[0].detector.timeout_ms: expected a number > 0 and "
                   "<= 1000000000, got 0",
                   "x.json: $.extra: unknown key"}));
}

class ScenarioDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "fdsim-loader-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = dir_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  std::string dir_;
};

TEST_F(ScenarioDir, RelativeDataFilesAreFoundNextToTheScenario) {
  write("delays.txt", "# ms\n1.0\n2.0\n4.5\n");
  json d = study();
  d["network"] = json::parse(R"({"latency": {"model": "empirical", "file": "delays.txt"}})");
  const std::string p = write("s.json", d.dump());
  const LoadResult r = load_scenario_file(p);
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.scenario->base_dir, dir_);
  EXPECT_DOUBLE_EQ(r.scenario->network.latency->mean_ms(), 2.5);
}

TEST_F(ScenarioDir, ProblemsOfAFileArePrefixedWithItsPath) {
  json d = study();
  d["horizon_s"] = -1;
  const std::string p = write("bad.json", d.dump());
  EXPECT_EQ(load_scenario_file(p).problems,
            Lines{p + ": $.horizon_s: expected a number > 0 and <= 1000000000, got -1"});
  const std::string syntax = write("syntax.json", "{\"name\": }");
  const Lines s = load_scenario_file(syntax).problems;
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rfind(syntax + ": line 1, column 10: syntax error", 0), 0u) << s[0];
}

TEST(DirectoryOf, ParentOrDot) {
  EXPECT_EQ(directory_of("a/b/c.json"), "a/b");
  EXPECT_EQ(directory_of("c.json"), ".");
  EXPECT_EQ(directory_of("/c.json"), "/");
}

}  // namespace
}  // namespace fdsim::run

namespace fdsim::run {
namespace {

// SWIM runs churn (memberlist's Join and Leave; it was refused before), and its spare slots
// count in the memory estimate (models/swim/memory_bound.h, swim_churn_bytes): 5 000 members
// over 20 s, so without churn no probe order materializes; one spare slot makes every order
// explicit from t = 0, 4 B x 5 000 + 5.2 kB per member, plus 64 B per member for the spare's
// unknown view entry, and one more joining slot (64 B x 5 000 + 2.5 kB):
// 5 000 x 25 200 + 5 000 x 64 + 322 500 = 126 642 500 B more than the same churn without it.
TEST(Loader, SwimChurnIsAcceptedAndItsSpareSlotsCountInTheMemoryEstimate) {
  const auto scenario = [](bool spare) {
    json churn = {{"kind", "churn"}, {"nodes", {1, 2}}, {"mean_session_s", 1e6}};
    if (spare) churn["spare_nodes"] = {4999};
    return json{{"name", "swim-churn"},
                {"seed", 1},
                {"horizon_s", 20},
                {"nodes", {{"count", 5000}}},
                {"network", {{"latency", {{"model", "constant"}, {"ms", 1}}}}},
                {"faults", json::array({churn})},
                {"swim", json::object()}};
  };
  const LoadResult without = load_scenario_json(scenario(false), "x.json", ".");
  const LoadResult with = load_scenario_json(scenario(true), "x.json", ".");
  ASSERT_TRUE(without.problems.empty()) << without.problems.front();
  ASSERT_TRUE(with.problems.empty()) << with.problems.front();
  EXPECT_NEAR(with.scenario->cost.memory_bytes - without.scenario->cost.memory_bytes,
              126642500.0, 100.0);
}

}  // namespace
}  // namespace fdsim::run
