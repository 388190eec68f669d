#include "models/timeout/capped_quantile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/timeout/contract.h"
#include "models/timeout/uniformization.h"

namespace fdsim::timeout {

namespace {

// Evaluations of one capped Poisson quantile at most: the cap and the first guess, up to 64
// doublings of the bracket, and newton_bracket's 200 steps of up to 3 evaluations
// (contract.h).
constexpr double kEvaluations = 2.0 + 64.0 + 600.0;
// Terms of one short series of mass <= UniformizedExp::kMaxStepMass (100) until its tail is
// below 1e-14: about 100 + 8.4 sqrt(100); 200 with room.
constexpr double kSeriesTerms = 200.0;
// Bisection steps of uniformized_row_quantile at most (its loop's bound).
constexpr double kBisectionSteps = 400.0;

}  // namespace

FallbackCost fallback_cost(double states, double rate_per_s, double cap_s) {
  const double s = std::max(1.0, states);
  const double m = std::max(0.0, rate_per_s * cap_s);
  const double terms = m + 10.0 * std::sqrt(m) + 64.0;
  const double poisson_ops = terms * s + kEvaluations * (20.0 * std::sqrt(m) + 64.0);
  const double poisson_bytes = 16.0 * terms + 8.0 * 8.0 * s;

  const double squarings =
      1.0 + std::max(0.0, std::ceil(std::log2(std::max(1.0, m / UniformizedExp::kMaxStepMass))));
  const double dense_ops = 2.0 * s * s + kSeriesTerms * s * s + squarings * s * s * s +
                           2.0 * squarings * s * s +
                           (double(UniformizedExp::kLinearSteps) + kBisectionSteps) *
                               kSeriesTerms * s;
  const double dense_bytes = (squarings + 3.0) * s * s * 8.0;

  FallbackCost c;
  c.dense = dense_ops < poisson_ops;
  c.work_units = (c.dense ? dense_ops : poisson_ops) / 64.0;
  c.bytes = c.dense ? dense_bytes : poisson_bytes;
  // Poisson's work grows linearly with the cap, the dense method's with its logarithm: where
  // the Poisson mixture is used at cap_s it is used at every smaller cap (its memory grows
  // with the cap). Else, at a cap c <= cap_s the Poisson mixture is used only if its work, at
  // least terms(c) x S, is at most the dense method's at c, itself at most dense_ops: its terms
  // are at most dense_ops / S; the dense method's memory grows with the cap.
  c.bytes_any_cap =
      !c.dense ? poisson_bytes
               : std::max(std::min(poisson_bytes, 16.0 * dense_ops / s + 8.0 * 8.0 * s),
                          dense_bytes);
  return c;
}

double fallback_units_per_mass(double states) {
  const double mass = PoissonSurvival::kMaxMass;
  const double per_mass = 1.0 + 10.0 / std::sqrt(mass) + 64.0 / mass;                  // K / M
  const double evaluations = kEvaluations * (20.0 / std::sqrt(mass) + 64.0 / mass);    // / M
  return (per_mass * std::max(1.0, states) + evaluations) / 64.0;
}

double effective_cap_s(const QuantileCap& cap, double rate_per_s) {
  const double reach =
      rate_per_s > 0 ? PoissonSurvival::kMaxMass / rate_per_s : std::numeric_limits<double>::infinity();
  return std::min(cap.span_s, std::max(cap.wanted_s, reach));
}

double capped_quantile(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                       const Eigen::VectorXd& lower, Eigen::Index start, double alpha,
                       double cap_s, PoissonSurvival& ps) {
  const Eigen::Index n = diag.size();
  if (!fallback_cost(double(n), ps.rate(), cap_s).dense) return ps.quantile_within(alpha, cap_s);
  UniformizedExp u(dense_generator(diag, upper, lower));
  return uniformized_row_quantile(u, start, alpha, kQuantileRelWidth, cap_s);
}

}  // namespace fdsim::timeout
