// Detection metrics that are not biased (issue 13, item 4): hand-built event sequences fed to
// the SuspicionRecorder (the Kaplan-Meier estimator itself: tests/metrics/kaplan_meier_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "models/loadsharing/suspicion_recorder.h"

namespace fdsim::loadsharing {
namespace detection_metrics_test {

SimTime at_s(double s) { return SimTime::from_seconds(s); }

// Index k of `target` in the preferred list of `observer`.
size_t k_of(const BuddyGraph& g, NodeId observer, NodeId target) {
  for (size_t k = 0; k < g.preferred(observer).size(); ++k)
    if (g.preferred(observer)[k] == target) return k;
  ADD_FAILURE() << observer << " does not watch " << target;
  return 0;
}

// Three nodes, each watching the two others (warm-up 0, horizon 100 s):
//   t = 5   observer 1 suspects node 0 (false)
//   t = 10  node 0 crashes: observer 1 already suspects it (no sample), observer 2 does not
//   t = 13  observer 2 suspects 0: detection 3 s
//   t = 20  node 0 recovers; t = 21 observer 1 trusts it again, t = 22 observer 2 too
//   t = 30  node 0 crashes: both pending
//   t = 31.5 observer 2 suspects it: detection 1.5 s
//   t = 40  node 0 recovers: observer 1 never detected it (censored at 10 s, before repair)
//   t = 50  node 2 crashes: observers 0 and 1 pending
//   t = 52  node 1 crashes: as the observer of 2 its pair is abandoned (censored at 2 s); as a
//           target, observer 0 is pending (observer 2 is down)
//   t = 100 horizon: observer 0 has suspected neither 2 nor 1 (censored at 50 s and 48 s)
TEST(SuspicionRecorder, HandBuiltSequence_UnbiasedDetectionMetrics) {
  const BuddyGraph g(3, 2);
  SuspicionRecorder r(g, SimTime::zero());
  r.set(at_s(5), 1, k_of(g, 1, 0), true);
  r.node_crashed(at_s(10), 0);
  r.set(at_s(13), 2, k_of(g, 2, 0), true);
  r.node_recovered(at_s(20), 0);
  r.set(at_s(21), 1, k_of(g, 1, 0), false);
  r.set(at_s(22), 2, k_of(g, 2, 0), false);
  r.node_crashed(at_s(30), 0);
  r.set(at_s(31.5), 2, k_of(g, 2, 0), true);
  r.node_recovered(at_s(40), 0);
  r.node_crashed(at_s(50), 2);
  r.node_crashed(at_s(52), 1);
  r.finish(at_s(100));
  const nlohmann::json m = r.metrics();

  EXPECT_EQ(m["crashes_count"], 4);
  EXPECT_EQ(m["already_suspected_at_crash_count"], 1);
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_DOUBLE_EQ(m["detection_time_mean_s"].get<double>(), (3.0 + 1.5) / 2);
  EXPECT_DOUBLE_EQ(m["detection_time_max_s"].get<double>(), 3.0);
  EXPECT_EQ(m["undetected_before_repair_count"], 1);
  EXPECT_EQ(m["detections_never_count"], 3);  // the repair at 40, twice the horizon
  EXPECT_EQ(m["detections_abandoned_count"], 1);
  // Kaplan-Meier: events {1.5, 3}, censored {10 (repair), 2 (observer crash), 50 and 48
  // (horizon)}. t = 1.5: 6 at risk, S = 5/6; the duration censored at 2 leaves; t = 3: 4 at
  // risk, S = 5/6 * 3/4 = 0.625. S stays above 1/2: no median.
  EXPECT_DOUBLE_EQ(m["detected_within_1_s_ratio"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(m["detected_within_2_s_ratio"].get<double>(), 1.0 - 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m["detected_within_5_s_ratio"].get<double>(), 1.0 - 0.625);
  EXPECT_DOUBLE_EQ(m["detected_within_30_s_ratio"].get<double>(), 1.0 - 0.625);
  EXPECT_TRUE(m["detection_time_km_median_s"].is_null());
}

// By region (issue 29): the same sequence as HandBuiltSequence with the observers' views of
// node 0 scripted: observer 1 sees it in U until t = 25, then O; observer 2 sees it in M; node 2
// and node 1 are unknown to observer 0 (it heard nothing since a recovery).
//   t = 5    1 suspects 0 in U (false; live-suspected from 5 to the crash at 10: 5 s, U)
//   t = 10   0 crashes: 1 already suspects; 2 pending, crashed in M
//   t = 13   2 detects it: M detection 3 s; t = 20 repair, 1 suspects 0 live from 20 to 21: U
//   t = 30   0 crashes: 1 pending in O, 2 pending in M; 31.5: 2 detects (M, 1.5 s);
//   t = 40   repair: 1 never detected it (O)
//   t = 50   2 crashes, t = 52 1 crashes: observer 0's pairs are unknown, never detected at the
//            horizon; observer 1's pair of node 2 (view: U by default) abandoned.
TEST(SuspicionRecorder, ByRegionSplitsByTheTargetsRegionInTheObserversView) {
  const BuddyGraph g(3, 2);
  double now_s = 0;
  SuspicionRecorder r(g, SimTime::zero(),
                      [&](NodeId observer, size_t k) -> std::optional<Region> {
                        const NodeId target = g.preferred(observer)[k];
                        if (observer == 0) return std::nullopt;
                        if (target != 0) return Region::U;
                        if (observer == 2) return Region::M;
                        return now_s < 25 ? Region::U : Region::O;
                      });
  auto at = [&](double s) {
    now_s = s;
    return at_s(s);
  };
  r.set(at(5), 1, k_of(g, 1, 0), true);
  r.node_crashed(at(10), 0);
  r.set(at(13), 2, k_of(g, 2, 0), true);
  r.node_recovered(at(20), 0);
  r.set(at(21), 1, k_of(g, 1, 0), false);
  r.set(at(22), 2, k_of(g, 2, 0), false);
  r.node_crashed(at(30), 0);
  r.set(at(31.5), 2, k_of(g, 2, 0), true);
  r.node_recovered(at(40), 0);
  r.node_crashed(at(50), 2);
  r.node_crashed(at(52), 1);
  r.finish(at(100));
  const nlohmann::json m = r.metrics();
  const nlohmann::json& b = m["by_region"];
  EXPECT_EQ(b["U"]["suspicions_count"], 1);
  EXPECT_EQ(b["U"]["false_suspicions_count"], 1);
  EXPECT_DOUBLE_EQ(b["U"]["live_suspected_time_s"].get<double>(), 5.0 + 1.0);
  EXPECT_EQ(b["M"]["suspicions_count"], 2);
  EXPECT_EQ(b["M"]["false_suspicions_count"], 0);
  EXPECT_EQ(b["M"]["crashes_observed_count"], 2);
  EXPECT_EQ(b["M"]["detections_count"], 2);
  EXPECT_DOUBLE_EQ(b["M"]["detection_time_mean_s"].get<double>(), (3.0 + 1.5) / 2);
  EXPECT_EQ(b["O"]["crashes_observed_count"], 1);
  EXPECT_EQ(b["O"]["detections_never_count"], 1);
  EXPECT_TRUE(b["O"]["detection_time_mean_s"].is_null());
  EXPECT_EQ(b["U"]["crashes_observed_count"], 1);  // 1 watching 2: abandoned at 1's crash
  EXPECT_EQ(b["U"]["detections_never_count"], 0);
  EXPECT_EQ(b["unknown"]["crashes_observed_count"], 2);  // 0 watching 2, then 0 watching 1
  EXPECT_EQ(b["unknown"]["detections_never_count"], 2);
  // The split adds up to the totals.
  uint64_t susp = 0, never = 0, observed = 0;
  for (const char* reg : {"U", "M", "O", "unknown"}) {
    susp += b[reg]["suspicions_count"].get<uint64_t>();
    never += b[reg]["detections_never_count"].get<uint64_t>();
    observed += b[reg]["crashes_observed_count"].get<uint64_t>();
  }
  EXPECT_EQ(susp, m["suspicions_count"].get<uint64_t>());
  EXPECT_EQ(never, m["detections_never_count"].get<uint64_t>());
  EXPECT_EQ(observed, m["detections_count"].get<uint64_t>() +
                          m["detections_never_count"].get<uint64_t>() +
                          m["detections_abandoned_count"].get<uint64_t>());
}

// The old definition counted the pair that already suspected the target as detected in 0 s:
// with many false suspicions that made the mean look better. Now a recorder where every
// observer already suspects has no detection at all.
TEST(SuspicionRecorder, AlreadySuspectedPairsGiveNoZeroSample) {
  const BuddyGraph g(3, 2);
  SuspicionRecorder r(g, SimTime::zero());
  r.set(at_s(1), 1, k_of(g, 1, 0), true);
  r.set(at_s(1), 2, k_of(g, 2, 0), true);
  r.node_crashed(at_s(10), 0);
  r.finish(at_s(20));
  const nlohmann::json m = r.metrics();
  EXPECT_EQ(m["already_suspected_at_crash_count"], 2);
  EXPECT_EQ(m["detections_count"], 0);
  EXPECT_TRUE(m["detection_time_mean_s"].is_null());
  EXPECT_TRUE(m["detected_within_1_s_ratio"].is_null());
  EXPECT_TRUE(m["detection_time_km_median_s"].is_null());
}

// A median exists when detections dominate: events {1, 2, 4}, one censored at 3.
TEST(SuspicionRecorder, KaplanMeierMedianTreatsRepairAsCensoring) {
  const BuddyGraph g(5, 4);
  SuspicionRecorder r(g, SimTime::zero());
  r.node_crashed(at_s(10), 0);  // observers 1..4 pending
  const std::vector<NodeId>& obs = g.observers(0);
  ASSERT_EQ(obs.size(), 4u);
  r.set(at_s(11), obs[0], k_of(g, obs[0], 0), true);
  r.set(at_s(12), obs[1], k_of(g, obs[1], 0), true);
  r.node_recovered(at_s(13.5), 0);  // obs[2] and obs[3] censored, see below
  r.set(at_s(14), obs[2], k_of(g, obs[2], 0), true);
  r.finish(at_s(30));
  const nlohmann::json m = r.metrics();
  // The recovery at 13.5 s censors obs[2] and obs[3] at 3.5 s (the suspicion at 14 s comes
  // after the repair and is no detection). Events {1, 2}; at risk 4 then 3: S = 3/4, then 1/2.
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_EQ(m["undetected_before_repair_count"], 2);
  EXPECT_DOUBLE_EQ(m["detection_time_km_median_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(m["detected_within_1_s_ratio"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(m["detected_within_5_s_ratio"].get<double>(), 0.5);
}

}  // namespace detection_metrics_test
}  // namespace fdsim::loadsharing
