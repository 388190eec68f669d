#pragma once
// Statistics across replications: sample mean, standard deviation and the 95% confidence
// half-width of the mean (Student t), as docs/models/metrics.md section 5 defines.
//
// Contract:
// - student_t_quantile(p, df) is the p-quantile of Student's t with df degrees of freedom
//   (df >= 1, 0.5 <= p < 1), found by bisection on the exact CDF (regularised incomplete beta
//   by continued fraction): absolute error below 1e-9 for p <= 0.9999 and df <= 1e6.
// - summarize() is deterministic for a given sequence (values are summed in the given order):
//   the same inputs give the same bits, which keeps sweep aggregates byte-identical.
// - With n = 1 the standard deviation and half-width are undefined (nullopt); with n = 0 the
//   mean is too. The half-width assumes the values are i.i.d. (independent replications) and
//   roughly normal means: it is the textbook t interval, nothing more.

#include <cstddef>
#include <optional>
#include <vector>

namespace fdsim::sweep {

double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

struct Summary {
  size_t n = 0;
  std::optional<double> mean;
  std::optional<double> sd;               // sample standard deviation (n - 1 denominator)
  std::optional<double> ci95_half_width;  // t_{0.975, n-1} * sd / sqrt(n)
};

Summary summarize(const std::vector<double>& values);

}  // namespace fdsim::sweep
