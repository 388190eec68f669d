#pragma once
// Hou–Shin quantile detector on heartbeats: the hypothesis-test timeout of docs/models/hou-shin-timeout.md
// applied to periodic heartbeats. Under H0 (p alive) the silence after an arrival ends with the
// next arrival; under H1 nothing arrives. The most powerful test at false-suspicion level alpha
// suspects once the silence reaches the (1 - alpha) quantile of the inter-arrival time T, plus
// a delay allowance.
//
// Model (chosen here): T = eta + X with X ~ Exponential(rate r): the period is known, and
// everything that makes an arrival late (delay jitter, lost heartbeats, sender pauses) is lumped
// into an exponential excess. Rationale: an exponential inter-arrival (Hou–Shin's Poisson
// broadcasts) would ignore the known period and put the timeout near 4.6 eta for alpha = 0.01
// whatever the network; the excess model keeps the period and learns only the lateness.
// Estimation (docs/models/load-sharing.md "On-line estimators", conjugate Gamma prior on r): prior Gamma(a0, b0) with a0 = prior_shape and
// b0 = prior_shape * prior_excess (prior mean excess `prior_excess`); each inter-arrival gap g
// (between consecutive arrivals, any sequence numbers) contributes one event with exposure
// x = max(0, g - eta) seconds: a <- w a + 1, b <- w b + x, with w the forgetting factor per
// heartbeat (the load-sharing estimators' forgetting with one heartbeat as the unit of time; w = 1: no forgetting).
// The estimate is the posterior mean r^ = a / b (plugged in, as the load-sharing estimators do), and the
// quantile is exact for the model: q = eta + ln(1/alpha) / r^. suspect_at() = last arrival +
// q + delay_allowance (rounded to the nearest ns). Defined from the first heartbeat on (the
// prior alone gives a timeout); SimTime::max() before it.
// The allowance defaults to 0 because arrival-to-arrival gaps already contain the delay
// variation (unlike Hou–Shin's broadcasts, whose exit time W is measured between sends).
// When it is wrong: losses make the excess a mixture (0 most of the time, ~eta after a loss),
// which the exponential fits with a small mean, so each lost heartbeat is a false suspicion with
// a probability near 1 whenever p_L > alpha: the realised mistake rate then follows p_L, not
// alpha. Negative excess (a heartbeat early relative to the previous one) is clipped to 0.

#include "models/detectors/detector.h"

namespace fdsim::detectors {

struct QuantileParams {
  double alpha = 0.01;                       // false-suspicion probability per interval
  Duration delay_allowance = Duration::zero();
  double prior_shape = 1.0;                  // a0
  Duration prior_excess = Duration::ms(100);  // prior mean of X: b0 = a0 * prior_excess (s)
  double forgetting_per_heartbeat = 1.0;     // w in (0, 1]
};

class QuantileDetector final : public Detector {
 public:
  QuantileDetector(Duration heartbeat_period, const QuantileParams& params);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "quantile"; }

  double posterior_shape() const { return shape_; }
  double posterior_rate_s() const { return rate_s_; }
  // The (1 - alpha) quantile of T under the current estimate, before the allowance.
  Duration inter_arrival_quantile() const;

 private:
  Duration eta_;
  QuantileParams params_;
  double shape_;   // a
  double rate_s_;  // b (seconds of excess)
  bool any_ = false;
  SimTime last_arrival_;
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
