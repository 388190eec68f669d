#pragma once
// The Kaplan-Meier estimate of a survival function from right-censored durations, shared by the
// detection metrics of the heartbeat detectors (metrics::QosSummary) and of load sharing
// (loadsharing::SuspicionRecorder).
//
// Contract: built from `events` (observed durations) and `censored` (durations known only to
// exceed the value), in any order. At each distinct event time t, S is multiplied by
// 1 - d(t) / n(t), with d(t) the events at t and n(t) the durations >= t (a duration censored
// at t is still at risk at t: censoring happens after the events of the same instant). S is a
// right-continuous step function starting at 1. Deterministic: depends only on the multisets.

#include <vector>

namespace fdsim::metrics {

class KaplanMeier {
 public:
  KaplanMeier(std::vector<double> events, std::vector<double> censored);
  // S(t) = P(T > t); 1 before the first event. With no sample at all: NaN.
  double survival(double t) const;
  // 1 - S(t): P(T <= t).
  double cdf(double t) const { return 1.0 - survival(t); }
  // The smallest event time at which S <= 0.5; NaN if S stays above 0.5 (too much censoring)
  // or there is no sample.
  double median() const;

 private:
  std::vector<double> times_;  // distinct event times, ascending
  std::vector<double> surv_;   // S just after each of them
  bool empty_ = true;
};

}  // namespace fdsim::metrics
