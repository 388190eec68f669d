#pragma once
// Exponential accrual failure detector, in Cassandra's form
// (org.apache.cassandra.gms.FailureDetector / ArrivalWindow).
//
// Promise: inter-arrival times are modelled as exponential with the window mean (window of the
// last `window` intervals, default 1000): phi(dt) = (dt / mean) / ln 10, dt the time since the
// last arrival; q suspects when phi > threshold (default 8), i.e. after threshold * ln 10 =
// 18.42 mean intervals. suspect_at() = last arrival + the smallest whole nanosecond dt with
// dt > threshold * ln 10 * mean. As in Cassandra, the first heartbeat puts `initial_interval`
// (default 2 s) into the window, and later intervals longer than `max_interval` (default 2 s)
// are ignored. SimTime::max() before the first heartbeat.
// When it is wrong: the exponential model ignores periodicity, so detection is slow (18 periods)
// and false suspicions happen only after long silences (losses of ~18 heartbeats in a row, or
// a sender pause of that length). Intervals above the cap never enter the window, so after a
// long outage the estimate does not adapt.

#include "models/detectors/detector.h"
#include "models/detectors/sample_window.h"

namespace fdsim::detectors {

struct ExponentialAccrualParams {
  double threshold = 8.0;
  size_t window = 1000;
  Duration max_interval = Duration::ms(2000);
  Duration initial_interval = Duration::ms(2000);
};

class ExponentialAccrualDetector final : public Detector {
 public:
  explicit ExponentialAccrualDetector(const ExponentialAccrualParams& params);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "exponential_accrual"; }

  double mean_interval_ms() const { return intervals_.mean() * 1e-6; }
  size_t history_size() const { return intervals_.size(); }

 private:
  ExponentialAccrualParams params_;
  SampleWindow intervals_;
  bool any_ = false;
  SimTime last_arrival_;
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
