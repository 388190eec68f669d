#pragma once
// Small summary statistics for the load-sharing metrics.
//
// Contract: quantile() is the Hyndman-Fan type 7 estimator (the default of R and NumPy): sort
// the n samples x_(1) <= ... <= x_(n), h = (n - 1) p, and interpolate linearly between x_(floor
// h + 1) and x_(floor h + 2). It is exact at p = 0 and 1 (the min and max), consistent, and its
// bias is O(1/n). Empty input gives NaN, which the metrics write as null.

#include <vector>

namespace fdsim::loadsharing {

// The Kaplan-Meier estimate of a survival function from right-censored durations: `events`
// (observed durations) and `censored` (durations known only to exceed the value). Contract: at
// each distinct event time t, S is multiplied by 1 - d(t) / n(t), with d(t) the events at t and
// n(t) the durations >= t (a duration censored at t is still at risk at t: censoring happens
// after the events of the same instant). S is a right-continuous step function starting at 1.
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

// `sorted` must be sorted ascending.
double quantile_sorted(const std::vector<double>& sorted, double p);
double mean_of(const std::vector<double>& xs);

}  // namespace fdsim::loadsharing
