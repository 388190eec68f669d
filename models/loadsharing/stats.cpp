#include "models/loadsharing/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdsim::loadsharing {

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double h = double(sorted.size() - 1) * p;
  const size_t lo = size_t(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - double(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double mean_of(const std::vector<double>& xs) {
  if (xs.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (double x : xs) s += x;
  return s / double(xs.size());
}

}  // namespace fdsim::loadsharing
