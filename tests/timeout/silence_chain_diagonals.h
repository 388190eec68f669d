#pragma once
// The lossy silence chain's sub-generator by its diagonals, stated independently of the
// library's own (silence_chain.cpp, not exported): a birth-death chain over all regions whose
// crossings of a region boundary keep weight `loss` (silence_chain.h). The tests of the slow
// paths use it as their oracle's chain and to assert which path a chain takes.

#include <cstdint>

#include <Eigen/Dense>

#include "models/timeout/silence_chain.h"

namespace fdsim::timeout::test {

struct Diagonals {
  Eigen::VectorXd d, up, lo;
};

inline Diagonals diagonals_of(const SilenceChain& c) {
  const int64_t n = c.top() + 1;
  Diagonals g{Eigen::VectorXd(n), Eigen::VectorXd(n - 1), Eigen::VectorXd(n - 1)};
  for (int64_t s = 0; s < n; ++s) {
    const double birth = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
    g.d(s) = -(birth + (s >= 1 ? c.mu : 0.0));
    if (s + 1 < n) {
      const double keep = c.region_of(s) == c.region_of(s + 1) ? 1.0 : c.loss;
      g.up(s) = birth * keep;
      g.lo(s) = c.mu * keep;
    }
  }
  return g;
}

}  // namespace fdsim::timeout::test
