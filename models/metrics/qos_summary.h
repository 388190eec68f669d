#pragma once
// Pooled failure-detector QoS over monitoring pairs (docs/models/metrics.md section 1), as the JSON
// metrics of one arm.
//
// Contract: add() pools finished pair recorders by summing their times and counts (pairs weigh
// by their observed time, not equally). to_json() reports, with units in the names:
//   pairs_count, observed_time_s (sum of T_obs), suspect_time_s,
//   mistakes_count, mistakes_completed_count,
//   mistake_rate_per_s            lambda_M = mistakes / observed time
//   mistake_recurrence_time_mean_s E(T_MR) = observed time / mistakes (null if no mistake)
//   mistake_duration_mean_s       E(T_M) = suspect time / completed mistakes (null if none)
//   mistake_duration_sample_mean_s, mistake_duration_sd_s (sample sd, n-1), mistake_duration_max_s
//                                 over the completed mistakes' own durations (null if none / < 2)
//   query_accuracy_ratio          P_A = 1 - suspect time / observed time (null if none observed)
//   crashes_count, crashes_unobserved_count, detections_count, detection_undetected_count,
//   detection_time_{mean,p50,p90,p99,max}_s   over detected crashes (null if none)
//                                 (Chen's T_D: 0 for a crash q already suspected, undetected
//                                 crashes left out; kept for comparison with the literature)
//   already_suspected_at_crash_count, detection_km_samples_count, detection_km_censored_count,
//   detection_time_km_median_s, detected_within_{1,2,5,10}_s_ratio
//                                 the unbiased detection metrics (QosPairRecorder contract):
//                                 Kaplan-Meier over the pooled right-censored samples of the
//                                 crashes at which q trusted p; within_x = 1 - S(x). Null with
//                                 no sample, and the median while S stays above 0.5.
//   heartbeat_messages_count, heartbeat_messages_per_pair_per_s, heartbeat_bytes_per_pair_per_s
//                                 heartbeats sent in the window / (pairs * window length)
// So E(T_M) / E(T_MR) = (1 - P_A) * mistakes / completed mistakes exactly, which is Chen's
// identity E(T_M)/E(T_MR) = 1 - P_A whenever every mistake completed.
// The mistake-duration sample statistics are computed exactly from the stored durations
// (sequential sum, two-pass sd) while every pooled pair kept them (QosPairRecorder, bounded
// mistake durations); once an arm's pairs completed more than MistakeDurationBudget::cap
// mistakes they come from the pairs' pooled DurationMoments instead (max exact; mean and sd
// equal up to floating-point rounding; duration_moments.h), and no duration is stored here.
// Quantiles are nearest-rank: the p-quantile of n sorted values is the ceil(p*n)-th smallest
// (1-based), so it is always an observed value; p50 of {1, 2, 3, 4} is 2.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/metrics/qos_pair_recorder.h"

namespace fdsim::metrics {

// Nearest-rank quantile of `sorted` (ascending, non-empty), p in (0, 1].
double nearest_rank_quantile(const std::vector<double>& sorted, double p);

class QosSummary {
 public:
  void add(const QosPairRecorder& pair);
  // Heartbeat overhead over the measurement window (window length in seconds).
  void set_heartbeats(uint64_t messages, uint64_t bytes, double window_s);

  nlohmann::json to_json() const;

 private:
  uint64_t pairs_ = 0;
  Duration observed_ = Duration::zero();
  Duration suspect_ = Duration::zero();
  uint64_t mistakes_ = 0;
  std::vector<double> durations_s_;  // while exact_
  bool exact_ = true;
  DurationMoments moments_;
  uint64_t crashes_ = 0;
  uint64_t crashes_unobserved_ = 0;
  uint64_t undetected_ = 0;
  std::vector<double> detection_s_;
  uint64_t already_suspected_ = 0;
  std::vector<double> km_events_s_;
  std::vector<double> km_censored_s_;
  uint64_t hb_messages_ = 0;
  uint64_t hb_bytes_ = 0;
  double window_s_ = 0.0;
};

}  // namespace fdsim::metrics
