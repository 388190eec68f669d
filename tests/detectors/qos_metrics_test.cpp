// QoS recorder and pooled summary on scripted signal sequences with hand-computed results.
#include <gtest/gtest.h>

#include "models/metrics/qos_pair_recorder.h"
#include "models/metrics/qos_summary.h"

namespace fdsim::metrics {
namespace {

SimTime s(double sec) { return SimTime::from_seconds(sec); }

TEST(QosPairRecorder, MistakesSuspectTimeAndAccuracyInsideTheWindow) {
  QosPairRecorder r(s(10), s(100));
  r.suspect(s(5));   // before warmup: no mistake counted, but suspect time from 10 on
  r.trust(s(12));    // 2 s of suspect time, not a completed mistake (started before)
  r.suspect(s(20));  // mistake 1
  r.trust(s(21.5));  // duration 1.5
  r.suspect(s(40));  // mistake 2
  r.suspect(s(41));  // repeated: ignored
  r.trust(s(40.25 + 1));
  r.suspect(s(99));  // mistake 3, still open at the horizon
  r.finish(s(100));
  EXPECT_EQ(r.observed_time(), Duration::s(90));
  EXPECT_EQ(r.suspect_time(), Duration::from_seconds(2 + 1.5 + 1.25 + 1));
  EXPECT_EQ(r.mistakes(), 3u);
  ASSERT_EQ(r.mistakes_completed(), 2u);
  EXPECT_EQ(r.mistake_durations()[0], Duration::from_seconds(1.5));
  EXPECT_EQ(r.mistake_durations()[1], Duration::from_seconds(1.25));
}

TEST(QosPairRecorder, DetectionTimeIsCrashToStartOfFinalSuspicion) {
  QosPairRecorder r(s(0), s(1000));
  r.target_crashed(s(10));
  r.suspect(s(11));  // premature: a late heartbeat refutes it
  r.trust(s(11.5));
  r.suspect(s(12.75));  // final
  r.target_recovered(s(50));
  r.trust(s(50.5));
  // Already suspecting at the crash and never trusting again: T_D = 0.
  r.suspect(s(60));
  r.target_crashed(s(61));
  r.target_recovered(s(70));
  r.trust(s(70.1));
  // Never suspected before recovery: undetected.
  r.target_crashed(s(80));
  r.target_recovered(s(90));
  // Crash never detected before the horizon.
  r.target_crashed(s(995));
  r.finish(s(1000));
  ASSERT_EQ(r.detection_times().size(), 2u);
  EXPECT_EQ(r.detection_times()[0], Duration::from_seconds(2.75));
  EXPECT_EQ(r.detection_times()[1], Duration::zero());
  EXPECT_EQ(r.crashes(), 4u);
  EXPECT_EQ(r.undetected(), 2u);
  // Up time: [0,10) + [50,61) + [70,80) + [90,995) = 10 + 11 + 10 + 905.
  EXPECT_EQ(r.observed_time(), Duration::s(936));
  // Suspect while p up: [50, 50.5) and [70, 70.1) (carried over from the crashes) + [60, 61).
  EXPECT_EQ(r.suspect_time(), Duration::from_seconds(0.5) + Duration::from_seconds(0.1) +
                                  Duration::s(1));
  EXPECT_EQ(r.mistakes(), 1u);             // only the S-transition at 60
  EXPECT_EQ(r.mistakes_completed(), 0u);   // p crashed during it
}

TEST(QosPairRecorder, MonitorDowntimeIsNotObservedAndAbandonsPendingDetections) {
  QosPairRecorder r(s(0), s(100));
  r.target_crashed(s(10));
  r.monitor_down(s(12));  // q crashes before suspecting: unobserved, not undetected
  r.monitor_up(s(20));
  r.target_recovered(s(30));
  r.monitor_down(s(40));
  r.target_crashed(s(45));  // q down at the crash: unobserved
  r.target_recovered(s(46));
  r.monitor_up(s(50));
  r.finish(s(100));
  EXPECT_EQ(r.crashes(), 0u);
  EXPECT_EQ(r.crashes_unobserved(), 2u);
  EXPECT_EQ(r.undetected(), 0u);
  // p up and q up: [0,10) + [30,40) + [50,100).
  EXPECT_EQ(r.observed_time(), Duration::s(70));
}

TEST(NearestRankQuantile, IsTheCeilPNthSmallestValue) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(nearest_rank_quantile(v, 0.5), 5);
  EXPECT_EQ(nearest_rank_quantile(v, 0.9), 9);
  EXPECT_EQ(nearest_rank_quantile(v, 0.99), 10);
  EXPECT_EQ(nearest_rank_quantile(v, 0.01), 1);
  EXPECT_EQ(nearest_rank_quantile({1, 2, 3, 4}, 0.5), 2);
  EXPECT_EQ(nearest_rank_quantile({7}, 0.99), 7);
}

TEST(QosSummary, PoolsPairsAndSatisfiesChenIdentity) {
  QosPairRecorder a(s(0), s(100)), b(s(0), s(100));
  a.suspect(s(10));
  a.trust(s(11));
  a.suspect(s(50));
  a.trust(s(53));
  a.finish(s(100));
  b.suspect(s(20));
  b.trust(s(22));
  b.target_crashed(s(60));
  b.suspect(s(61));
  b.finish(s(100));
  QosSummary sum;
  sum.add(a);
  sum.add(b);
  sum.set_heartbeats(400, 400 * 64, 100.0);
  const nlohmann::json j = sum.to_json();
  EXPECT_EQ(j["pairs_count"], 2);
  EXPECT_DOUBLE_EQ(j["observed_time_s"].get<double>(), 160.0);
  EXPECT_DOUBLE_EQ(j["suspect_time_s"].get<double>(), 6.0);
  EXPECT_EQ(j["mistakes_count"], 3);
  EXPECT_EQ(j["mistakes_completed_count"], 3);
  EXPECT_DOUBLE_EQ(j["mistake_recurrence_time_mean_s"].get<double>(), 160.0 / 3);
  EXPECT_DOUBLE_EQ(j["mistake_duration_mean_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["mistake_rate_per_s"].get<double>(), 3 / 160.0);
  EXPECT_DOUBLE_EQ(j["query_accuracy_ratio"].get<double>(), 1 - 6.0 / 160);
  EXPECT_NEAR(j["mistake_duration_mean_s"].get<double>() /
                  j["mistake_recurrence_time_mean_s"].get<double>(),
              1 - j["query_accuracy_ratio"].get<double>(), 1e-15);
  EXPECT_DOUBLE_EQ(j["mistake_duration_sd_s"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["mistake_duration_max_s"].get<double>(), 3.0);
  EXPECT_EQ(j["detections_count"], 1);
  EXPECT_DOUBLE_EQ(j["detection_time_mean_s"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["detection_time_p99_s"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["heartbeat_messages_per_pair_per_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["heartbeat_bytes_per_pair_per_s"].get<double>(), 128.0);
}

TEST(QosSummary, NoMistakeGivesNullRecurrenceNotInfinity) {
  QosPairRecorder a(s(0), s(100));
  a.finish(s(100));
  QosSummary sum;
  sum.add(a);
  const nlohmann::json j = sum.to_json();
  EXPECT_TRUE(j["mistake_recurrence_time_mean_s"].is_null());
  EXPECT_TRUE(j["mistake_duration_mean_s"].is_null());
  EXPECT_TRUE(j["detection_time_mean_s"].is_null());
  EXPECT_DOUBLE_EQ(j["mistake_rate_per_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["query_accuracy_ratio"].get<double>(), 1.0);
}

}  // namespace
}  // namespace fdsim::metrics
