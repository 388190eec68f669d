#pragma once
// memberlist's timing formulas (hashicorp/memberlist 0.2.2), bit for bit in integer nanoseconds.
//
// Contract (each function names the Go function it mirrors; tests/swim/lifeguard_math_test.cpp
// checks them against memberlist's own test tables):
// - suspicion_timeout (util.go suspicionTimeout): node_scale = max(1, log10(max(1, n)));
//   mult * int64(node_scale * 1000) * interval / 1000, in integer nanoseconds (so n <= 10
//   gives mult * interval, n = 16 gives mult * 1.204 * interval).
// - remaining_suspicion_time (suspicion.go remainingSuspicionTime): with n confirmations of k
//   expected, frac = ln(n + 1) / ln(k + 1); raw = max - frac (max - min) in seconds, floored to
//   whole milliseconds, never below min; minus the time already elapsed (may be negative).
//   Requires k >= 1 (memberlist never calls it with k = 0).
// - suspicion_deadline: the timer's total length from the suspicion's start with n of k
//   confirmations in: the start value (max, or min when k < 1) for n = 0, else
//   remaining_suspicion_time(n, k, 0, min, max).
// - retransmit_limit (util.go retransmitLimit): mult * ceil(log10(n + 1)).
// - push_pull_scale (util.go pushPullScale): the interval for n <= 32 nodes, else interval *
//   (ceil(log2(n) - log2(32)) + 1).
// - Awareness (awareness.go): a health score in [0, max - 1]; apply_delta clamps;
//   scale_timeout(t) = t * (score + 1).

#include <cstdint>

#include "sim/engine/time.h"

namespace fdsim::swim {

Duration suspicion_timeout(int64_t suspicion_mult, int64_t n, Duration interval);
Duration remaining_suspicion_time(int64_t n, int64_t k, Duration elapsed, Duration min,
                                  Duration max);
Duration suspicion_deadline(int64_t n, int64_t k, Duration min, Duration max);
int64_t retransmit_limit(int64_t retransmit_mult, int64_t n);
Duration push_pull_scale(Duration interval, int64_t n);

class Awareness {
 public:
  explicit Awareness(int64_t max_multiplier) : max_(max_multiplier) {}
  void apply_delta(int64_t delta);
  int64_t score() const { return score_; }
  Duration scale_timeout(Duration t) const { return t * (score_ + 1); }

 private:
  int64_t max_;
  int64_t score_ = 0;
};

}  // namespace fdsim::swim
