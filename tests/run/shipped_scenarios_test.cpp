// Every shipped scenario (scenarios/**/*.json: not sweeps, not scenarios/bench) loads without a
// problem and runs, with its horizon cut to at most 60 s, to a result whose metrics pass the
// model's bookkeeping checks. (The models also check conservation themselves at the end of
// every run and abort on a violation; this test makes every shipped scenario go through them.)

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/run/run.h"
#include "sim/run/scenario_loader.h"
#include "tests/run/scenario_files.h"

namespace fdsim::run {
namespace {

using nlohmann::json;

constexpr double kMaxHorizonS = 60.0;

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

// Bookkeeping that holds for every model's metrics: counts are non-negative integers, ratios are
// in [0, 1] (or null when undefined).
void check_leaves(const json& j, const std::string& path) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const std::string p = path + "." + k;
      const json& v = it.value();
      if (k.size() > 6 && k.compare(k.size() - 6, 6, "_count") == 0 && !v.is_null()) {
        // A keyed object of counts (traffic.by_type.messages_count.<type>) holds counts.
        const auto is_count = [](const json& x) {
          return x.is_number_unsigned() || (x.is_number_integer() && x.get<int64_t>() >= 0);
        };
        if (v.is_object()) {
          for (auto c = v.begin(); c != v.end(); ++c)
            EXPECT_TRUE(is_count(c.value())) << p << "." << c.key() << " = " << c.value().dump();
        } else {
          EXPECT_TRUE(is_count(v)) << p << " = " << v.dump();
        }
      }
      if (k.size() > 6 && k.compare(k.size() - 6, 6, "_ratio") == 0 && v.is_number()) {
        EXPECT_GE(v.get<double>(), 0.0) << p;
        EXPECT_LE(v.get<double>(), 1.0) << p;
      }
      check_leaves(v, p);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) check_leaves(j[i], path + "[" + std::to_string(i) + "]");
  }
}

// Load sharing: every task that arrived in the window is accounted for exactly once.
void check_task_conservation(const json& m, const std::string& arm) {
  if (!m.contains("tasks_arrived_count")) return;
  const auto n = [&](const char* k) { return m.at(k).get<int64_t>(); };
  EXPECT_EQ(n("tasks_arrived_count"), n("tasks_completed_on_time_count") + n("tasks_missed_count") +
                                          n("tasks_lost_count") + n("tasks_queued_at_horizon_count"))
      << arm;
  EXPECT_EQ(n("tasks_lost_count"),
            n("tasks_lost_in_crash_count") + n("tasks_lost_in_transfer_count"))
      << arm;
  EXPECT_EQ(n("tasks_missed_count"),
            n("tasks_missed_local_count") + n("tasks_missed_after_transfer_count"))
      << arm;
  EXPECT_LE(n("tasks_dropped_count"), n("tasks_missed_count")) << arm;  // drops are misses
}

TEST_P(ShippedScenario, LoadsAndRunsWithAShortHorizon) {
  const std::string rel = GetParam();
  const std::string path = std::string(FDSIM_SOURCE_DIR) + "/" + rel;
  const LoadResult load = load_scenario_file(path);
  ASSERT_TRUE(load.ok()) << [&] {
    std::string all;
    for (const auto& p : load.problems) all += "\n" + p;
    return all;
  }();

  std::ifstream in(path);
  json doc = json::parse(in);
  const double horizon_s = std::min(doc["horizon_s"].get<double>(), kMaxHorizonS);
  doc["horizon_s"] = horizon_s;
  if (doc.contains("warmup_s") && doc["warmup_s"].get<double>() >= horizon_s / 2)
    doc["warmup_s"] = horizon_s / 4;

  const RunOutcome o = execute(doc, path, 0);
  ASSERT_TRUE(o.ok) << (o.problems.empty() ? o.internal_error : o.problems.front());
  const json& arms = o.result["manifest"]["arm_order"];
  ASSERT_FALSE(arms.empty());
  for (const auto& a : arms) {
    const std::string arm = a.get<std::string>();
    ASSERT_TRUE(o.result["metrics"].contains(arm)) << arm;
    const json& m = o.result["metrics"][arm];
    EXPECT_TRUE(m.is_object() && !m.empty()) << arm;
    check_leaves(m, arm);
    check_task_conservation(m, arm);
    EXPECT_GT(o.result["manifest"]["arms"][arm]["events_dispatched_count"].get<uint64_t>(), 0u) << arm;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ShippedScenario,
                         ::testing::ValuesIn(test::shipped_scenarios()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return test::test_name_of(info.param);
                         });

TEST(ShippedScenarios, ThereAreSomeInEveryFamily) {
  size_t membership = 0, load_sharing = 0, study = 0, swim = 0, jgroups = 0;
  for (const auto& rel : test::shipped_scenarios()) {
    const LoadResult r = load_scenario_file(std::string(FDSIM_SOURCE_DIR) + "/" + rel);
    if (!r.ok()) continue;
    switch (r.scenario->family) {
      case ArmFamily::membership: ++membership; break;
      case ArmFamily::load_sharing: ++load_sharing; break;
      case ArmFamily::heartbeat_study: ++study; break;
      case ArmFamily::swim: ++swim; break;
      case ArmFamily::jgroups: ++jgroups; break;
    }
  }
  EXPECT_GT(membership, 0u);
  EXPECT_GT(load_sharing, 0u);
  EXPECT_GT(study, 0u);
  EXPECT_GT(swim, 0u);
  EXPECT_GT(jgroups, 0u);
}

}  // namespace
}  // namespace fdsim::run
