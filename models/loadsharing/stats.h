#pragma once
// Small summary statistics for the load-sharing metrics.
//
// Contract: quantile() is the Hyndman-Fan type 7 estimator (the default of R and NumPy): sort
// the n samples x_(1) <= ... <= x_(n), h = (n - 1) p, and interpolate linearly between x_(floor
// h + 1) and x_(floor h + 2). It is exact at p = 0 and 1 (the min and max), consistent, and its
// bias is O(1/n). Empty input gives NaN, which the metrics write as null.
// (The Kaplan-Meier estimator of the detection metrics is models/metrics/kaplan_meier.h.)

#include <vector>

namespace fdsim::loadsharing {

// `sorted` must be sorted ascending.
double quantile_sorted(const std::vector<double>& sorted, double p);
double mean_of(const std::vector<double>& xs);

}  // namespace fdsim::loadsharing
