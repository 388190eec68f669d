#include "models/swim/lifeguard_math.h"

#include <algorithm>
#include <cmath>

namespace fdsim::swim {

Duration suspicion_timeout(int64_t suspicion_mult, int64_t n, Duration interval) {
  const double node_scale = std::max(1.0, std::log10(std::max(1.0, double(n))));
  // Go: time.Duration(mult) * time.Duration(nodeScale*1000) * interval / 1000 (truncating).
  const int64_t scale_1000 = int64_t(node_scale * 1000);
  return Duration::ns(suspicion_mult * scale_1000 * interval.count_ns() / 1000);
}

Duration remaining_suspicion_time(int64_t n, int64_t k, Duration elapsed, Duration min,
                                  Duration max) {
  const double frac = std::log(double(n) + 1.0) / std::log(double(k) + 1.0);
  const double raw = max.seconds() - frac * (max.seconds() - min.seconds());
  Duration timeout = Duration::ms(int64_t(std::floor(1000.0 * raw)));
  if (timeout < min) timeout = min;
  return timeout - elapsed;
}

Duration suspicion_deadline(int64_t n, int64_t k, Duration min, Duration max) {
  if (n == 0) return k < 1 ? min : max;
  return remaining_suspicion_time(n, k, Duration::zero(), min, max);
}

int64_t retransmit_limit(int64_t retransmit_mult, int64_t n) {
  const double node_scale = std::ceil(std::log10(double(n + 1)));
  return retransmit_mult * int64_t(node_scale);
}

Duration push_pull_scale(Duration interval, int64_t n) {
  constexpr int64_t kThreshold = 32;
  if (n <= kThreshold) return interval;
  const double mult = std::ceil(std::log2(double(n)) - std::log2(double(kThreshold))) + 1.0;
  return interval * int64_t(mult);
}

void Awareness::apply_delta(int64_t delta) {
  score_ = std::clamp<int64_t>(score_ + delta, 0, max_ - 1);
}

}  // namespace fdsim::swim
