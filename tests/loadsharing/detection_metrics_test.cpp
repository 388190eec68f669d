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
