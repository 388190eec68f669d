// Warnings of valid scenarios (sim/run/scenario_warnings.h): a Geode membership whose single
// locator can be taken down by a fault; Hou-Shin T_out chains large enough for the dense
// fallback to cost more than the estimate.
#include <gtest/gtest.h>

#include "sim/run/scenario_loader.h"
#include "sim/run/scenario_warnings.h"

namespace fdsim::run {
namespace {

using nlohmann::json;

std::vector<std::string> warnings_of(const std::string& text) {
  const LoadResult r = load_scenario_json(json::parse(text), "x.json", ".");
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems.front());
  return r.ok() ? scenario_warnings(*r.scenario) : std::vector<std::string>{};
}

TEST(ScenarioWarnings, SingleLocatorThatCanCrash) {
  const auto w = warnings_of(R"({"name": "t", "horizon_s": 100,
      "nodes": {"count": 5, "locators": [0]},
      "faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 600}],
      "membership": {"profile": "wiki"}})");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("$.nodes.locators: the Geode membership has a single locator, node 0, "
                       "and a crash_process can take it down",
                       0),
            0u)
      << w[0];
}

TEST(ScenarioWarnings, EachFaultKindThatCanTakeTheLocatorDown) {
  const std::string head = R"({"name": "t", "horizon_s": 100, "nodes": {"count": 5, "locators": [2]},
      "membership": {}, "faults": [)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"kind": "crash", "at_s": 10, "nodes": [2]})", "a scheduled crash"},
      {R"({"kind": "group_crash_process", "nodes": [1, 2], "mean_up_s": 60})", "a group_crash_process"},
      {R"({"kind": "crash_storm", "nodes": "all", "mean_interval_s": 60, "size": 2})", "a crash_storm"},
  };
  for (const auto& [fault, name] : cases) {
    const auto w = warnings_of(head + fault + "]}");
    ASSERT_EQ(w.size(), 1u) << fault;
    EXPECT_NE(w[0].find("node 2, and " + name + " can take it down"), std::string::npos) << w[0];
  }
}

TEST(ScenarioWarnings, NoWarningWithTwoLocatorsOrALocatorNoFaultReaches) {
  // Two locators: either answers while the other is down.
  EXPECT_TRUE(warnings_of(R"({"name": "t", "horizon_s": 100,
      "nodes": {"count": 5, "locators": [0, 1]},
      "faults": [{"kind": "crash_process", "nodes": "all", "mean_up_s": 600}],
      "membership": {}})").empty());
  // The only locator is outside every crash fault; pauses do not take it down.
  EXPECT_TRUE(warnings_of(R"({"name": "t", "horizon_s": 100,
      "nodes": {"count": 5, "locators": [0]},
      "faults": [{"kind": "crash_process", "nodes": {"from": 1, "to": 4}, "mean_up_s": 600},
                 {"kind": "crash", "at_s": 5, "nodes": [3]},
                 {"kind": "pause", "at_s": 5, "duration_ms": 100, "nodes": [0]}],
      "membership": {}})").empty());
  // No membership: no Geode ring to warn about.
  EXPECT_TRUE(warnings_of(R"({"name": "t", "horizon_s": 100,
      "nodes": {"count": 4, "locators": [0]},
      "faults": [{"kind": "crash", "at_s": 10, "nodes": [0]}],
      "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed"}}]}})").empty());
}

}  // namespace
}  // namespace fdsim::run
