#include "models/timeout/cet_mapping.h"
#include "models/timeout/contract.h"

#include <algorithm>
#include <cmath>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double v) {
  contract_failure("CET mapping", what, v);
}

}  // namespace

int64_t cet_to_queue_length(double cet_s, double mu_per_s) {
  if (!(cet_s >= 0) || !std::isfinite(cet_s)) fail("CET must be finite and >= 0", cet_s);
  if (!(mu_per_s > 0) || !std::isfinite(mu_per_s)) fail("mu must be finite and > 0", mu_per_s);
  const double ql = cet_s * mu_per_s;
  if (ql >= 9.0e18) fail("CET too large", cet_s);
  return std::llround(ql);
}

QueueLengthThresholds map_cet_thresholds(double th_u_cet_s, double th_f_cet_s, double mu_per_s) {
  if (th_f_cet_s < th_u_cet_s) fail("TH_f must be >= TH_u", th_f_cet_s);
  QueueLengthThresholds t;
  t.th_u = cet_to_queue_length(th_u_cet_s, mu_per_s);
  t.th_f = std::max(cet_to_queue_length(th_f_cet_s, mu_per_s), t.th_u + 1);
  return t;
}

int64_t cet_state_in_region(double cet_s, double mu_per_s, int64_t lo, int64_t hi) {
  if (hi < lo) fail("empty region", static_cast<double>(hi));
  return std::clamp(cet_to_queue_length(cet_s, mu_per_s), lo, hi);
}

}  // namespace fdsim::timeout
