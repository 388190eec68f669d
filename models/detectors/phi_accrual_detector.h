#pragma once
// Phi accrual failure detector (Hayashibara et al. 2004) in Akka's form
// (akka.remote.PhiAccrualFailureDetector), with Akka's defaults.
//
// Promise: q keeps a window (default 1000) of inter-arrival times; on the first heartbeat the
// window is bootstrapped with two intervals first_interval -/+ first_interval/4 (Akka's
// first-heartbeat-estimate; default: the heartbeat period eta). On each later heartbeat the
// interval since the previous arrival is added, except when q already suspected the peer at
// that arrival (Akka: "don't use the first heartbeat after failure"). With m = window mean +
// acceptable pause (default 3 s) and s = max(window sd (population), min sd (default 100 ms)),
// phi(dt) = -log10(e/(1+e)) if dt > m else -log10(1 - 1/(1+e)), y = (dt - m)/s,
// e = exp(-y (1.5976 + 0.070566 y^2)) (Akka's logistic approximation of the normal CDF), dt in
// ms since the last arrival. q suspects when phi >= threshold (default 8). suspect_at() is the
// first nanosecond at which phi, as evaluated here in double precision, reaches the threshold
// (phi is monotone in dt; found by bisection to 1 ns). Oracle: steady 1000 ms heartbeats with
// the defaults -> suspicion 4522.6 ms after the last heartbeat (the exact normal: 4561.2 ms).
// SimTime::max() before the first heartbeat (Akka treats an unseen peer as available).
// When it is wrong: the normal model underestimates heavy tails (bursty losses, GC pauses of the
// sender longer than the acceptable pause) and then suspects a live peer; after a long silence
// the window forgets slowly, so a jittery history keeps detection slow for ~window heartbeats.

#include "models/detectors/detector.h"
#include "models/detectors/sample_window.h"

namespace fdsim::detectors {

struct PhiAccrualParams {
  double threshold = 8.0;
  size_t window = 1000;
  Duration min_std = Duration::ms(100);
  Duration acceptable_pause = Duration::ms(3000);
  Duration first_interval = Duration::zero();  // <= 0: use the heartbeat period
};

class PhiAccrualDetector final : public Detector {
 public:
  PhiAccrualDetector(Duration heartbeat_period, const PhiAccrualParams& params);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "phi_accrual"; }

  // phi after `since_last` of silence, from the current window (requires one heartbeat).
  double phi(Duration since_last) const;
  // Akka's formula, exposed for tests: dt, mean and sd in ms.
  static double phi_formula(double dt_ms, double mean_ms, double sd_ms);
  size_t history_size() const { return history_.size(); }

 private:
  void recompute();

  PhiAccrualParams params_;
  Duration first_interval_;
  SampleWindow history_;  // intervals in ns
  bool any_ = false;
  SimTime last_arrival_;
  double mean_ms_ = 0.0;  // window mean + acceptable pause
  double sd_ms_ = 0.0;    // max(window sd, min sd)
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
