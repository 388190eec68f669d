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

// A load-sharing scenario with one Hou-Shin arm, under the CET load index with the given
// execution prior rate (per second; th_f 5 s maps to min(5 x rate, 1000) + 1 queue lengths,
// plus the top region's 42 states).
std::string cet_with_prior(double rate_per_s, const char* diagnosis = "hou_shin") {
  return R"({"name": "t", "horizon_s": 60, "nodes": {"count": 4},
      "workload": {"arrival_rate_per_s": 0.5,
                   "execution": {"distribution": "exponential", "rate_per_s": 1.0}},
      "load_sharing": {"load_index": "cet", "th_u": 1.5, "th_f": 5,
        "estimation": {"execution_prior_shape": )" +
         std::to_string(rate_per_s) + R"(, "execution_prior_exposure_s": 1},
        "arms": [{"name": "a", "diagnosis": ")" + diagnosis + R"("}]}})";
}

// 1 000 + 1 + 42 = 1 043 states: 63 x 1043^3 / 64 = 1.1e9 units per fallback.
TEST(ScenarioWarnings, DenseTOutChainsThatTheEstimateDoesNotCount) {
  const auto w = warnings_of(cet_with_prior(1000));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("$.load_sharing.load_index: the Hou-Shin T_out chains have about 1043 "
                       "states; where a region is near-critical",
                       0),
            0u)
      << w[0];
  EXPECT_NE(w[0].find("up to 1.1e+09 work units per computation"), std::string::npos) << w[0];
}

TEST(ScenarioWarnings, NoDenseTOutWarningForSmallChainsOrWithoutAHouShinArm) {
  // Twice the fastest execution law's rate, 2 per s: 5 x 2 + 1 + 42 = 53 states (< 64).
  EXPECT_TRUE(warnings_of(cet_with_prior(1)).empty());
  // A large chain, but no arm computes T_out.
  EXPECT_TRUE(warnings_of(cet_with_prior(1000, "oracle")).empty());
}

}  // namespace
}  // namespace fdsim::run
