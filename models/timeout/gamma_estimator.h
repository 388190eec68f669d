#pragma once
// On-line Bayesian estimate of a Poisson rate (docs/models/load-sharing.md, "On-line estimators"): arrival rates,
// region input rates lambda_r, and (with count = completions, exposure = total execution time)
// the execution rate mu.
//
// Contract: the posterior is Gamma(shape a, rate b), starting from the prior Gamma(a0, b0).
// Each observe(k, dt) call first applies the forgetting factor w (per second) to the OLD
// posterior, then adds the new evidence: a <- w^dt a + k, b <- w^dt b + dt. With w = 1 this is
// exactly Gamma(a0 + sum k, b0 + sum dt) (conjugate update, no forgetting). With w < 1 evidence
// of age u weighs w^u, the prior included, so the estimate tracks a changing rate with a memory
// of about 1 / (-ln w) seconds. The evidence of one call is not discounted within the call: the
// result depends on how exposure is cut into calls, and is accurate when each dt is short
// compared with the memory. The estimate is the posterior mean a / b; sd = sqrt(a) / b.
// Arguments out of range (shape0 or rate0 <= 0, w outside (0, 1], negative count or exposure,
// non-finite values) are programmer errors and abort.

namespace fdsim::timeout {

class GammaRateEstimator {
 public:
  GammaRateEstimator(double shape0, double rate0, double forgetting_per_s = 1.0);

  // k events observed over an exposure of dt seconds (k need not be an integer: e.g. a
  // weighted count).
  void observe(double count, double exposure_s);
  // dt seconds with no event (same as observe(0, dt)).
  void observe_exposure(double exposure_s) { observe(0.0, exposure_s); }

  double mean() const { return shape_ / rate_; }
  double sd() const;
  double shape() const { return shape_; }
  double rate() const { return rate_; }
  double forgetting_per_s() const { return forgetting_; }

 private:
  double shape_;
  double rate_;
  double forgetting_;
};

}  // namespace fdsim::timeout
