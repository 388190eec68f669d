// The plan's $.seed shortcut (sim/sweep/seed_memo.h): its premise on every shipped example, and
// that a plan built with it is the plan built by resolving every point.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "sim/run/run.h"
#include "sim/sweep/plan.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/sweep/fake_run.h"

namespace fdsim::sweep {
namespace {

using nlohmann::json;
using testing::FakeRun;
namespace fs = std::filesystem;

// The premise: the loader's resolution and estimate do not depend on the seed.
TEST(SeedMemo, ResolutionAndEstimateOfEveryExampleDoNotDependOnTheSeed) {
  size_t checked = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(FDSIM_SOURCE_DIR) / "scenarios/examples")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const json doc = json::parse(in, nullptr, false);
    if (!doc.is_object() || doc.contains("axes")) continue;  // sweeps
    json a = doc, b = doc;
    a["seed"] = 1;
    b["seed"] = 987654321;
    const std::string source = entry.path().string();
    run::ResolveOutcome ra = run::resolve(a, source), rb = run::resolve(b, source);
    ASSERT_EQ(ra.ok, rb.ok) << source;
    if (!ra.ok) continue;
    EXPECT_EQ(rb.resolved["seed"], 987654321) << source;
    ra.resolved.erase("seed");
    rb.resolved.erase("seed");
    EXPECT_EQ(ra.resolved, rb.resolved) << source;
    EXPECT_EQ(ra.events_per_replication, rb.events_per_replication) << source;
    EXPECT_EQ(ra.memory_bytes, rb.memory_bytes) << source;
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

const json kSeedBase = json::parse(R"({"name": "fake", "replications": 2,
                                   "model": {"x": 1, "y": 0}})");

// FakeRun's resolver with a seed rule (>= 0) and a call count.
struct CountingResolve {
  std::atomic<int>* calls;
  run::ResolveOutcome operator()(const json& s, const std::string& source) const {
    ++*calls;
    run::ResolveOutcome out = FakeRun::resolve(s, source);
    if (s.contains("seed") && s["seed"].is_number() && s["seed"].get<double>() < 0) {
      out.ok = false;
      out.problems.push_back(source + ": $.seed: expected an integer >= 0");
    }
    return out;
  }
};

TEST(SeedMemo, APlanResolvesEachOtherAxisCombinationOnceAndGetsTheSameRunIdentities) {
  const json doc = {{"base", kSeedBase},
                    {"axes", json::parse(R"([{"path": "$.seed", "values": [1, 2, 3]},
                                             {"path": "$.model.x", "values": [1, 2]},
                                             {"path": "$.model.y", "values": [0, 5]}])")}};
  const SpecOutcome spec = parse_sweep(doc, "sweeps/x.json");
  ASSERT_TRUE(spec.ok());
  for (const bool keep : {true, false}) {
    std::atomic<int> calls{0};
    const PlanOutcome plan = make_plan(spec.spec, CountingResolve{&calls}, keep);
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan.plan.points.size(), 12u);
    // The 4 (x, y) combinations with seed 1, then seeds 2 and 3 once each.
    EXPECT_EQ(calls, 6);
    for (const PlannedPoint& point : plan.plan.points) {
      json scenario = kSeedBase;
      scenario["seed"] = point.params[0];
      scenario["model"]["x"] = point.params[1];
      scenario["model"]["y"] = point.params[2];
      const json resolved = FakeRun::resolve(scenario, "").resolved;
      ASSERT_EQ(point.run_ids.size(), 2u);
      for (uint64_t r = 0; r < 2; ++r) EXPECT_EQ(point.run_ids[r], run_identity(resolved, r));
    }
    EXPECT_EQ(plan.plan.runs.size(), 24u);
  }
}

TEST(SeedMemo, ASeedThatFailsIsReportedAtEveryPointThatHasIt) {
  const json doc = {{"base", kSeedBase},
                    {"axes", json::parse(R"([{"path": "$.seed", "values": [1, -1, 2]},
                                             {"path": "$.model.x", "values": [1, 2]}])")}};
  const SpecOutcome spec = parse_sweep(doc, "sweeps/x.json");
  ASSERT_TRUE(spec.ok());
  std::atomic<int> calls{0};
  const PlanOutcome plan = make_plan(spec.spec, CountingResolve{&calls}, false);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0], "sweeps/x.json: $.seed: expected an integer >= 0 (at points 2, 3)");
}

// Past 256 points the plan resolves on worker threads: the same run identities, the same
// resolutions saved by the memo with the seed varying fastest, and problems in point order.
TEST(SeedMemo, ALargePlanOnWorkerThreadsIsTheSequentialPlan) {
  json xs = json::array();
  for (int i = 0; i < 150; ++i) xs.push_back(i);
  const json doc = {{"base", kSeedBase},
                    {"axes", {{{"path", "$.model.x"}, {"values", xs}},
                              {{"path", "$.seed"}, {"values", {1, 2, 3, 4}}}}}};
  const SpecOutcome spec = parse_sweep(doc, "sweeps/x.json");
  ASSERT_TRUE(spec.ok());
  std::atomic<int> calls{0};
  const PlanOutcome plan = make_plan(spec.spec, CountingResolve{&calls}, false);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan.plan.points.size(), 600u);
  EXPECT_EQ(calls, 150 + 3);  // every x once, seeds 2-4 once each
  for (size_t p = 0; p < 600; ++p) {
    json scenario = kSeedBase;
    scenario["model"]["x"] = int(p / 4);
    scenario["seed"] = int(p % 4) + 1;
    const json resolved = FakeRun::resolve(scenario, "").resolved;
    ASSERT_EQ(plan.plan.points[p].run_ids.size(), 2u);
    EXPECT_EQ(plan.plan.points[p].run_ids[1], run_identity(resolved, 1)) << p;
  }

  // Negative x at every odd index: each value its own problem, reported in point order.
  json bad = json::array();
  for (int i = 0; i < 600; ++i) bad.push_back(i % 2 == 1 ? -i : i);
  const json bad_doc = {{"base", kSeedBase}, {"axes", {{{"path", "$.model.x"}, {"values", bad}}}}};
  const SpecOutcome bad_spec = parse_sweep(bad_doc, "sweeps/x.json");
  ASSERT_TRUE(bad_spec.ok());
  const PlanOutcome failed = make_plan(bad_spec.spec, CountingResolve{&calls}, false);
  ASSERT_EQ(failed.problems.size(), 21u);
  for (size_t k = 0; k < 20; ++k) {
    const int p = 2 * int(k) + 1;
    EXPECT_EQ(failed.problems[k], "sweeps/x.json: point " + std::to_string(p) +
                                      " ($.model.x = " + std::to_string(-p) +
                                      "): sweeps/x.json: $.model.x: expected a number >= 0, got " +
                                      std::to_string(-p));
  }
  EXPECT_EQ(failed.problems[20], "sweeps/x.json: ... and 280 more problems at other points");
}

}  // namespace
}  // namespace fdsim::sweep
