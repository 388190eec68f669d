// Unbiased detection metrics of the heartbeat detectors (issue 14 item 4, after issue 13 item 4):
// a hand-built signal sequence fed to QosPairRecorder, with Chen's literal T_D next to the
// Kaplan-Meier metrics that leave out crashes q already suspected and censor undetected ones.
#include <gtest/gtest.h>

#include "models/metrics/qos_pair_recorder.h"
#include "models/metrics/qos_summary.h"

namespace fdsim::metrics {
namespace unbiased_detection_test {

SimTime at_s(double sec) { return SimTime::from_seconds(sec); }
Duration d_s(double sec) { return Duration::from_seconds(sec); }

// Window [0, 1000) s, q watches p:
//   10 p crashes (q trusts);  11 q suspects, 11.5 trusts (a late heartbeat), 12.75 suspects;
//      50 p recovers:                         event 2.75          (Chen T_D 2.75)
//   60 q suspects p (false); 61 p crashes:   already suspected   (Chen T_D 0)
//   80 p crashes, 90 recovers, no suspicion: censored at 10      (Chen: undetected)
//  100 p crashes, 103 q crashes (trusting):  censored at 3       (Chen: unobserved)
//  200 p crashes, 204 q suspects, 210 q crashes: event 4         (Chen: unobserved)
//  300 p crashes, 301 suspect, 302 trust, 303 p recovers: censored at 3 (Chen: undetected)
//  900 p crashes, 902 q suspects, 950 p recovers: event 2        (Chen T_D 2)
//  990 p crashes, horizon 1000, no suspicion: censored at 10     (Chen: undetected)
// Chen: T_D = {2.75, 0, 2}, mean 1.583 s, 3 undetected left out.
// Kaplan-Meier over 2 (E), 2.75 (E), 3 (C), 3 (C), 4 (E), 10 (C), 10 (C): S(2) = 6/7,
// S(2.75) = 5/7, the two censored at 3 leave, S(4) = 5/7 * 2/3 = 10/21 <= 0.5: median 4 s.
QosPairRecorder hand_built_sequence() {
  QosPairRecorder r(at_s(0), at_s(1000));
  r.target_crashed(at_s(10));
  r.suspect(at_s(11));
  r.trust(at_s(11.5));
  r.suspect(at_s(12.75));
  r.target_recovered(at_s(50));
  r.trust(at_s(50.5));
  r.suspect(at_s(60));
  r.target_crashed(at_s(61));
  r.target_recovered(at_s(70));
  r.trust(at_s(70.1));
  r.target_crashed(at_s(80));
  r.target_recovered(at_s(90));
  r.target_crashed(at_s(100));
  r.monitor_down(at_s(103));
  r.monitor_up(at_s(110));
  r.target_recovered(at_s(120));
  r.target_crashed(at_s(200));
  r.suspect(at_s(204));
  r.monitor_down(at_s(210));
  r.monitor_up(at_s(220));
  r.target_recovered(at_s(230));
  r.target_crashed(at_s(300));
  r.suspect(at_s(301));
  r.trust(at_s(302));
  r.target_recovered(at_s(303));
  r.target_crashed(at_s(900));
  r.suspect(at_s(902));
  r.target_recovered(at_s(950));
  r.trust(at_s(950.5));
  r.target_crashed(at_s(990));
  r.finish(at_s(1000));
  return r;
}

TEST(UnbiasedDetection, RecorderSplitsAlreadySuspectedEventsAndCensoredCrashes) {
  const QosPairRecorder r = hand_built_sequence();
  // Chen's literal metrics, unchanged.
  EXPECT_EQ(r.crashes(), 6u);
  EXPECT_EQ(r.crashes_unobserved(), 2u);
  EXPECT_EQ(r.undetected(), 3u);
  EXPECT_EQ(r.detection_times(), (std::vector<Duration>{d_s(2.75), Duration::zero(), d_s(2)}));
  // The unbiased samples.
  EXPECT_EQ(r.already_suspected_at_crash(), 1u);
  EXPECT_EQ(r.km_detection_times(), (std::vector<Duration>{d_s(2.75), d_s(4), d_s(2)}));
  EXPECT_EQ(r.km_censored_times(), (std::vector<Duration>{d_s(10), d_s(3), d_s(3), d_s(10)}));
  // Every crash at a window instant with q up is in exactly one of the three.
  EXPECT_EQ(r.km_detection_times().size() + r.km_censored_times().size() +
                r.already_suspected_at_crash(),
            8u);
}

TEST(UnbiasedDetection, SummaryReportsKaplanMeierMedianAndDetectedWithin) {
  QosSummary sum;
  sum.add(hand_built_sequence());
  const nlohmann::json j = sum.to_json();
  EXPECT_DOUBLE_EQ(j["detection_time_mean_s"].get<double>(), (2.75 + 0 + 2) / 3);  // Chen
  EXPECT_EQ(j["already_suspected_at_crash_count"], 1);
  EXPECT_EQ(j["detection_km_samples_count"], 7);
  EXPECT_EQ(j["detection_km_censored_count"], 4);
  EXPECT_DOUBLE_EQ(j["detection_time_km_median_s"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["detected_within_1_s_ratio"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["detected_within_2_s_ratio"].get<double>(), 1.0 / 7);
  EXPECT_DOUBLE_EQ(j["detected_within_5_s_ratio"].get<double>(), 11.0 / 21);
  EXPECT_DOUBLE_EQ(j["detected_within_10_s_ratio"].get<double>(), 11.0 / 21);
}

// A detector that suspects p all the time "detects" every crash in 0 s under Chen's definition;
// the unbiased metrics have no sample at all (null), not a perfect score.
TEST(UnbiasedDetection, PermanentSuspicionGivesNoSampleInsteadOfZero) {
  QosPairRecorder r(at_s(0), at_s(100));
  r.suspect(at_s(1));
  r.target_crashed(at_s(10));
  r.target_recovered(at_s(20));
  r.target_crashed(at_s(30));
  r.finish(at_s(100));
  QosSummary sum;
  sum.add(r);
  const nlohmann::json j = sum.to_json();
  EXPECT_DOUBLE_EQ(j["detection_time_mean_s"].get<double>(), 0.0);
  EXPECT_EQ(j["detections_count"], 2);
  EXPECT_EQ(j["already_suspected_at_crash_count"], 2);
  EXPECT_EQ(j["detection_km_samples_count"], 0);
  EXPECT_TRUE(j["detection_time_km_median_s"].is_null());
  EXPECT_TRUE(j["detected_within_1_s_ratio"].is_null());
}

// Crashes that are never detected before their repair keep S above 0.5: no median (null),
// while Chen's mean over the one detected crash looks fast.
TEST(UnbiasedDetection, MostlyUndetectedCrashesHaveNoMedian) {
  QosPairRecorder r(at_s(0), at_s(100));
  r.target_crashed(at_s(10));
  r.suspect(at_s(10.5));
  r.target_recovered(at_s(12));
  r.trust(at_s(12.1));
  for (double c : {20.0, 40.0, 60.0}) {
    r.target_crashed(at_s(c));
    r.target_recovered(at_s(c + 5));
  }
  r.finish(at_s(100));
  QosSummary sum;
  sum.add(r);
  const nlohmann::json j = sum.to_json();
  EXPECT_DOUBLE_EQ(j["detection_time_mean_s"].get<double>(), 0.5);
  EXPECT_EQ(j["detection_undetected_count"], 3);
  EXPECT_EQ(j["detection_km_censored_count"], 3);
  EXPECT_TRUE(j["detection_time_km_median_s"].is_null());
  EXPECT_DOUBLE_EQ(j["detected_within_1_s_ratio"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["detected_within_10_s_ratio"].get<double>(), 0.25);
}

}  // namespace unbiased_detection_test
}  // namespace fdsim::metrics
