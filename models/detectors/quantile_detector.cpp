#include "models/detectors/quantile_detector.h"

#include <algorithm>
#include <cmath>

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

QuantileDetector::QuantileDetector(Duration heartbeat_period, const QuantileParams& params)
    : eta_(heartbeat_period),
      params_(params),
      shape_(params.prior_shape),
      rate_s_(params.prior_shape * params.prior_excess.seconds()) {
  if (heartbeat_period <= Duration::zero())
    detector_error("quantile", "heartbeat period must be > 0");
  if (!(params.alpha > 0.0 && params.alpha < 1.0)) detector_error("quantile", "alpha not in (0, 1)");
  if (!(params.prior_shape > 0.0)) detector_error("quantile", "prior shape must be > 0");
  if (params.prior_excess <= Duration::zero())
    detector_error("quantile", "prior excess must be > 0");
  if (!(params.forgetting_per_heartbeat > 0.0 && params.forgetting_per_heartbeat <= 1.0))
    detector_error("quantile", "forgetting factor not in (0, 1]");
}

Duration QuantileDetector::inter_arrival_quantile() const {
  // X ~ Exp(r^) with r^ = a / b: P(X > x) = exp(-r^ x) = alpha at x = ln(1/alpha) * b / a.
  const double x_s = std::log(1.0 / params_.alpha) * rate_s_ / shape_;
  return eta_ + Duration::from_seconds(std::min(x_s, 1e9));
}

void QuantileDetector::on_heartbeat(uint64_t /*seq*/, SimTime /*send_time*/, SimTime arrival) {
  if (any_) {
    const double excess_s = std::max(0.0, (arrival - last_arrival_ - eta_).seconds());
    const double w = params_.forgetting_per_heartbeat;
    shape_ = w * shape_ + 1.0;
    rate_s_ = w * rate_s_ + excess_s;
  }
  any_ = true;
  last_arrival_ = arrival;
  suspect_at_ = arrival + inter_arrival_quantile() + params_.delay_allowance;
}

}  // namespace fdsim::detectors
