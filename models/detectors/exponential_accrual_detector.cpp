#include "models/detectors/exponential_accrual_detector.h"

#include <cmath>

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

ExponentialAccrualDetector::ExponentialAccrualDetector(const ExponentialAccrualParams& params)
    : params_(params), intervals_(params.window) {
  if (!(params.threshold > 0.0)) detector_error("exponential_accrual", "threshold must be > 0");
  if (params.initial_interval <= Duration::zero())
    detector_error("exponential_accrual", "initial interval must be > 0");
}

void ExponentialAccrualDetector::on_heartbeat(uint64_t /*seq*/, SimTime /*send_time*/,
                                              SimTime arrival) {
  if (!any_) {
    intervals_.add(params_.initial_interval.count_ns());
    any_ = true;
  } else {
    const Duration interval = arrival - last_arrival_;
    if (interval <= params_.max_interval) intervals_.add(interval.count_ns());
  }
  last_arrival_ = arrival;
  const double bound_ns = params_.threshold * std::log(10.0) * intervals_.mean();
  if (!(bound_ns < 4.0e18)) {
    suspect_at_ = SimTime::max();
    return;
  }
  const int64_t dt = static_cast<int64_t>(std::floor(bound_ns)) + 1;  // smallest dt > bound
  suspect_at_ = last_arrival_ + Duration::ns(dt);
}

}  // namespace fdsim::detectors
