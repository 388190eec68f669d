#pragma once
// Streaming moments of a sequence of durations in seconds (issue 24 item 7: the QoS mistake
// durations must not be kept without bound): count, sum, maximum, and Welford's running mean
// and sum of squared deviations, in O(1) memory.
//
// Contract: add() takes the values in sequence order; sum_s is their sequential double sum
// (the same rounding as a loop over the stored values), max_s the largest. merge() pools two
// accumulators with Chan, Golub and LeVeque's pairwise update (mean and M2 of the union); the
// pooled sum is sum_a + sum_b. The sample standard deviation sqrt(M2 / (n - 1)) agrees with
// the two-pass value over the stored sequence up to floating-point rounding only (no sampling
// or binning error): a relative difference of order n x 2^-53 at worst, below 1e-12 in the
// unit test with 2 million durations (tests/detectors/qos_bounded_test.cpp).

#include <algorithm>
#include <cstdint>

namespace fdsim::metrics {

struct DurationMoments {
  uint64_t n = 0;
  double sum_s = 0.0;
  double max_s = 0.0;   // 0 when empty (durations are >= 0)
  double mean_s = 0.0;  // Welford's running mean
  double m2_s2 = 0.0;   // sum of squared deviations from the mean

  void add(double x) {
    ++n;
    sum_s += x;
    max_s = std::max(max_s, x);
    const double delta = x - mean_s;
    mean_s += delta / double(n);
    m2_s2 += delta * (x - mean_s);
  }

  void merge(const DurationMoments& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = double(n), nb = double(o.n), total = na + nb;
    const double delta = o.mean_s - mean_s;
    mean_s += delta * nb / total;
    m2_s2 += o.m2_s2 + delta * delta * na * nb / total;
    n += o.n;
    sum_s += o.sum_s;
    max_s = std::max(max_s, o.max_s);
  }
};

}  // namespace fdsim::metrics
