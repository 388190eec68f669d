#include "models/metrics/qos_summary.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/metrics/kaplan_meier.h"

namespace fdsim::metrics {

using nlohmann::json;

double nearest_rank_quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || !(p > 0.0 && p <= 1.0)) {
    fdsim::internal_error("fdsim: internal error: nearest-rank quantile p=%g of %zu values\n", p,
                 sorted.size());
  }
  const double n = static_cast<double>(sorted.size());
  // ceil(p*n) with a guard against p*n landing a hair above an integer (0.9 * 10).
  size_t rank = static_cast<size_t>(std::ceil(p * n - 1e-9 * n));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void QosSummary::add(const QosPairRecorder& pair) {
  ++pairs_;
  observed_ += pair.observed_time();
  suspect_ += pair.suspect_time();
  mistakes_ += pair.mistakes();
  moments_.merge(pair.mistake_moments());
  if (exact_ && !pair.mistake_durations_kept()) {
    exact_ = false;
    std::vector<double>().swap(durations_s_);
  }
  if (exact_)
    for (Duration d : pair.mistake_durations()) durations_s_.push_back(d.seconds());
  crashes_ += pair.crashes();
  crashes_unobserved_ += pair.crashes_unobserved();
  undetected_ += pair.undetected();
  for (Duration d : pair.detection_times()) detection_s_.push_back(d.seconds());
  already_suspected_ += pair.already_suspected_at_crash();
  for (Duration d : pair.km_detection_times()) km_events_s_.push_back(d.seconds());
  for (Duration d : pair.km_censored_times()) km_censored_s_.push_back(d.seconds());
}

void QosSummary::set_heartbeats(uint64_t messages, uint64_t bytes, double window_s) {
  hb_messages_ = messages;
  hb_bytes_ = bytes;
  window_s_ = window_s;
}

json QosSummary::to_json() const {
  json j = json::object();
  const double obs_s = observed_.seconds();
  const double sus_s = suspect_.seconds();
  const uint64_t completed = moments_.n;
  j["pairs_count"] = pairs_;
  j["observed_time_s"] = obs_s;
  j["suspect_time_s"] = sus_s;
  j["mistakes_count"] = mistakes_;
  j["mistakes_completed_count"] = completed;
  j["mistake_rate_per_s"] = obs_s > 0 ? json(double(mistakes_) / obs_s) : json(nullptr);
  j["mistake_recurrence_time_mean_s"] = mistakes_ > 0 ? json(obs_s / double(mistakes_)) : json(nullptr);
  j["mistake_duration_mean_s"] = completed > 0 ? json(sus_s / double(completed)) : json(nullptr);
  if (completed > 0 && !exact_) {
    j["mistake_duration_sample_mean_s"] = moments_.sum_s / double(completed);
    j["mistake_duration_sd_s"] =
        completed > 1 ? json(std::sqrt(moments_.m2_s2 / double(completed - 1))) : json(nullptr);
    j["mistake_duration_max_s"] = moments_.max_s;
  } else if (completed > 0) {
    double sum = 0.0, max = 0.0;
    for (double d : durations_s_) {
      sum += d;
      max = std::max(max, d);
    }
    const double mean = sum / double(completed);
    j["mistake_duration_sample_mean_s"] = mean;
    if (completed > 1) {
      double ss = 0.0;
      for (double d : durations_s_) ss += (d - mean) * (d - mean);
      j["mistake_duration_sd_s"] = std::sqrt(ss / double(completed - 1));
    } else {
      j["mistake_duration_sd_s"] = nullptr;
    }
    j["mistake_duration_max_s"] = max;
  } else {
    j["mistake_duration_sample_mean_s"] = nullptr;
    j["mistake_duration_sd_s"] = nullptr;
    j["mistake_duration_max_s"] = nullptr;
  }
  j["query_accuracy_ratio"] = obs_s > 0 ? json(1.0 - sus_s / obs_s) : json(nullptr);

  j["crashes_count"] = crashes_;
  j["crashes_unobserved_count"] = crashes_unobserved_;
  j["detections_count"] = detection_s_.size();
  j["detection_undetected_count"] = undetected_;
  if (!detection_s_.empty()) {
    std::vector<double> sorted = detection_s_;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0.0;
    for (double d : sorted) sum += d;
    j["detection_time_mean_s"] = sum / double(sorted.size());
    j["detection_time_p50_s"] = nearest_rank_quantile(sorted, 0.50);
    j["detection_time_p90_s"] = nearest_rank_quantile(sorted, 0.90);
    j["detection_time_p99_s"] = nearest_rank_quantile(sorted, 0.99);
    j["detection_time_max_s"] = sorted.back();
  } else {
    for (const char* k : {"detection_time_mean_s", "detection_time_p50_s", "detection_time_p90_s",
                          "detection_time_p99_s", "detection_time_max_s"})
      j[k] = nullptr;
  }

  // Unbiased detection metrics (Kaplan-Meier, censoring at repair, q's crash, window end).
  j["already_suspected_at_crash_count"] = already_suspected_;
  j["detection_km_samples_count"] = km_events_s_.size() + km_censored_s_.size();
  j["detection_km_censored_count"] = km_censored_s_.size();
  const KaplanMeier km(km_events_s_, km_censored_s_);
  auto defined = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  for (int x : {1, 2, 5, 10})
    j["detected_within_" + std::to_string(x) + "_s_ratio"] = defined(km.cdf(double(x)));
  j["detection_time_km_median_s"] = defined(km.median());

  j["heartbeat_messages_count"] = hb_messages_;
  const double pair_s = double(pairs_) * window_s_;
  j["heartbeat_messages_per_pair_per_s"] = pair_s > 0 ? json(double(hb_messages_) / pair_s) : json(nullptr);
  j["heartbeat_bytes_per_pair_per_s"] = pair_s > 0 ? json(double(hb_bytes_) / pair_s) : json(nullptr);
  return j;
}

}  // namespace fdsim::metrics
