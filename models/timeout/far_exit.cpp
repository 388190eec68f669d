#include "models/timeout/far_exit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdsim::timeout {

namespace {
// The bound must be this small a fraction of 1 - alpha: S(t) then exceeds alpha by far more
// than any numerical path's error, so every exact path would also report a quantile beyond t.
constexpr double kMargin = 1e-3;
}  // namespace

double log_exit_probability_bound(const ExitChain& c, int64_t s0, double t_s) {
  validate(c);
  constexpr double kNoClaim = std::numeric_limits<double>::quiet_NaN();
  if (!(t_s >= 0) || !std::isfinite(t_s) || s0 < c.lo || s0 > c.hi) return kNoClaim;
  const bool exit_up = !c.reflecting_top;  // a birth at hi leaves the region
  const bool exit_down = c.lo >= 1;        // a death at lo leaves the region
  if (exit_up == exit_down) return kNoClaim;  // both sides (no drift proof) or none
  const double toward = exit_up ? c.lambda : c.mu;
  const double away = exit_up ? c.mu : c.lambda;
  if (!(toward > 0) || !(away > toward)) return kNoClaim;
  const double m = double(c.hi - c.lo + 1);
  const double s = exit_up ? double(s0 - c.lo) : double(c.hi - s0);
  const double ln_r = std::log(away / toward);
  // ln of r^(s - m) + (b - a) t r^-m, by log-sum-exp (r^m overflows for large regions).
  const double l1 = (s - m) * ln_r;
  const double drift_t = (away - toward) * t_s;
  if (!(drift_t > 0)) return l1;
  const double l2 = std::log(drift_t) - m * ln_r;
  const double hi = std::max(l1, l2), lo = std::min(l1, l2);
  return hi + std::log1p(std::exp(lo - hi));
}

bool exit_later_than(const ExitChain& c, int64_t s0, double alpha, double t_s) {
  if (!(alpha > 0 && alpha < 1)) return false;
  const double ln_bound = log_exit_probability_bound(c, s0, t_s);
  return ln_bound <= std::log(kMargin * (1 - alpha));  // false for NaN
}

}  // namespace fdsim::timeout
