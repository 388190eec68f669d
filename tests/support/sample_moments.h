#pragma once
// Sample mean and unbiased (n - 1) variance of a vector of draws, for tests that compare
// simulated samples with a law's formulas. Needs at least two values.
#include <vector>

namespace fdsim::test_support {

struct Moments {
  double mean = 0, var = 0;
};

inline Moments sample_moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= double(v.size() - 1);
  return m;
}

}  // namespace fdsim::test_support
