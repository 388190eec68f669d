#include "models/detectors/phi_accrual_detector.h"

#include <cmath>

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

PhiAccrualDetector::PhiAccrualDetector(Duration heartbeat_period, const PhiAccrualParams& params)
    : params_(params),
      first_interval_(params.first_interval > Duration::zero() ? params.first_interval
                                                               : heartbeat_period),
      history_(params.window) {
  if (first_interval_ <= Duration::zero())
    detector_error("phi_accrual", "first interval (heartbeat period) must be > 0");
  if (!(params.threshold > 0.0)) detector_error("phi_accrual", "threshold must be > 0");
  if (params.min_std <= Duration::zero()) detector_error("phi_accrual", "min sd must be > 0");
}

double PhiAccrualDetector::phi_formula(double dt_ms, double mean_ms, double sd_ms) {
  const double y = (dt_ms - mean_ms) / sd_ms;
  const double e = std::exp(-y * (1.5976 + 0.070566 * y * y));
  if (dt_ms > mean_ms) return -std::log10(e / (1.0 + e));
  return -std::log10(1.0 - 1.0 / (1.0 + e));
}

double PhiAccrualDetector::phi(Duration since_last) const {
  if (!any_) detector_error("phi_accrual", "phi asked before any heartbeat");
  return phi_formula(since_last.millis(), mean_ms_, sd_ms_);
}

void PhiAccrualDetector::on_heartbeat(uint64_t /*seq*/, SimTime /*send_time*/, SimTime arrival) {
  if (!any_) {
    const int64_t m = first_interval_.count_ns();
    const int64_t sd = m / 4;
    history_.add(m - sd);
    history_.add(m + sd);
    any_ = true;
  } else {
    const bool available = arrival < suspect_at_;  // phi(arrival) < threshold, old state
    if (available) history_.add((arrival - last_arrival_).count_ns());
  }
  last_arrival_ = arrival;
  recompute();
}

void PhiAccrualDetector::recompute() {
  mean_ms_ = history_.mean() * 1e-6 + params_.acceptable_pause.millis();
  sd_ms_ = std::max(std::sqrt(history_.variance()) * 1e-6, params_.min_std.millis());
  const double thr = params_.threshold;
  auto reached = [&](int64_t dt_ns) {
    return phi_formula(static_cast<double>(dt_ns) * 1e-6, mean_ms_, sd_ms_) >= thr;
  };
  if (reached(0)) {
    suspect_at_ = last_arrival_;
    return;
  }
  // Bracket: phi(lo) < thr <= phi(hi), then bisect to 1 ns.
  int64_t lo = 0;
  int64_t hi = std::max<int64_t>(1000000, static_cast<int64_t>((mean_ms_ + 10.0 * sd_ms_) * 1e6));
  constexpr int64_t kLimit = int64_t(1) << 61;  // ~73 years: beyond, never suspect
  while (!reached(hi)) {
    lo = hi;
    if (hi >= kLimit) {
      suspect_at_ = SimTime::max();
      return;
    }
    hi *= 2;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (reached(mid))
      hi = mid;
    else
      lo = mid;
  }
  suspect_at_ = last_arrival_ + Duration::ns(hi);
}

}  // namespace fdsim::detectors
