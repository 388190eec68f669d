// The `swim` section in the loader: its own arm family, alone in a scenario, problems at their
// paths; and a run of it produces the swim metrics for every arm.

#include <gtest/gtest.h>

#include "sim/run/scenario_loader.h"
#include "sim/run/simulation.h"

namespace fdsim::run {
namespace {

using nlohmann::json;
using Lines = std::vector<std::string>;

json swim_doc() {
  return json::parse(R"({"name": "t", "horizon_s": 30, "nodes": {"count": 6},
      "faults": [{"kind": "crash", "at_s": 5, "nodes": [2]}],
      "swim": {"arms": [{"name": "swim", "lifeguard": false}, {"name": "lifeguard"}]}})");
}

TEST(SwimLoader, SwimSectionIsItsOwnArmFamily) {
  const LoadResult r = load_scenario_json(swim_doc(), "x.json", ".");
  ASSERT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.scenario->family, ArmFamily::swim);
  EXPECT_EQ(r.scenario->arms, (Lines{"swim", "lifeguard"}));
  EXPECT_EQ(r.scenario->resolved["swim"]["probe_interval_ms"], 1000.0);
  EXPECT_EQ(r.scenario->resolved["swim"]["arms"][0]["awareness"], false);
}

TEST(SwimLoader, SwimNextToAnotherModelIsAnError) {
  json d = swim_doc();
  d["membership"] = json::object();
  const LoadResult r = load_scenario_json(d, "x.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.problems.front(),
            "x.json: $.swim: SWIM runs only in a scenario without 'membership', 'workload', "
            "'load_sharing' and 'detectors'; put it in a scenario of its own");
}

TEST(SwimLoader, ProblemsAtTheirPaths) {
  json d = swim_doc();
  d["swim"]["probe_timeout_ms"] = -1;
  d["swim"]["arms"][1]["nack"] = "yes";
  const LoadResult r = load_scenario_json(d, "x.json", ".");
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].rfind("x.json: $.swim.probe_timeout_ms: ", 0), 0u) << r.problems[0];
  EXPECT_EQ(r.problems[1].rfind("x.json: $.swim.arms[1].nack: ", 0), 0u) << r.problems[1];
}

TEST(SwimLoader, EveryArmRunsAndDetectsTheCrash) {
  const LoadResult r = load_scenario_json(swim_doc(), "x.json", ".");
  ASSERT_TRUE(r.ok());
  for (const SimulationPlan& plan : plan_simulations(*r.scenario)) {
    const SimulationOutput out = run_simulation(*r.scenario, 0, plan, nullptr, nullptr);
    const json& m = out.metrics.at(plan.arms.front());
    EXPECT_EQ(m.at("crashes_count"), 1) << plan.arms.front();
    EXPECT_EQ(m.at("crashes_undetected_count"), 0) << plan.arms.front();
    EXPECT_EQ(m.at("detection_removal_all_s").at("count"), 1) << plan.arms.front();
    EXPECT_EQ(m.at("false_removals_count"), 0) << plan.arms.front();
  }
}

}  // namespace
}  // namespace fdsim::run
