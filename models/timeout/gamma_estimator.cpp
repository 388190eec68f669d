#include "models/timeout/gamma_estimator.h"
#include "models/timeout/contract.h"

#include <cmath>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double v) {
  contract_failure("GammaRateEstimator", what, v);
}

bool finite_positive(double v) { return v > 0 && std::isfinite(v); }

}  // namespace

GammaRateEstimator::GammaRateEstimator(double shape0, double rate0, double forgetting_per_s)
    : shape_(shape0), rate_(rate0), forgetting_(forgetting_per_s) {
  if (!finite_positive(shape0)) fail("prior shape must be > 0", shape0);
  if (!finite_positive(rate0)) fail("prior rate must be > 0", rate0);
  if (!(forgetting_per_s > 0 && forgetting_per_s <= 1)) {
    fail("forgetting factor must be in (0, 1]", forgetting_per_s);
  }
}

void GammaRateEstimator::observe(double count, double exposure_s) {
  if (!(count >= 0) || !std::isfinite(count)) fail("count must be >= 0", count);
  if (!(exposure_s >= 0) || !std::isfinite(exposure_s)) fail("exposure must be >= 0", exposure_s);
  if (forgetting_ < 1) {
    const double decay = std::pow(forgetting_, exposure_s);
    shape_ *= decay;
    rate_ *= decay;
  }
  shape_ += count;
  rate_ += exposure_s;
  // b stays > 0: either dt > 0 was just added, or dt = 0 and nothing decayed. The shape may
  // decay towards 0 after a long silence with w < 1 (the estimate then tends to 0).
  if (!(rate_ > 0)) fail("posterior rate underflowed to 0", rate_);
}

double GammaRateEstimator::sd() const { return std::sqrt(shape_) / rate_; }

}  // namespace fdsim::timeout
