// survival() and exit_quantile() of exit_chain.h, on top of uniformization.h.

#include <cmath>
#include "sim/engine/internal_error.h"
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "models/timeout/exit_chain.h"
#include "models/timeout/uniformization.h"

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const ExitChain& c, const char* what, double v) {
  fdsim::internal_error("fdsim: internal error: exit chain %s: %s (%.17g)\n", describe(c).c_str(),
               what, v);
}

Eigen::Index index_of(const ExitChain& c, int64_t s0) {
  return static_cast<Eigen::Index>(s0 - c.lo);
}

// Bisection stops when the bracket is this small relative to its upper end.
constexpr double kQuantileRelTol = 1e-9;
// Galloping beyond h * 2^kMaxDoublings means S never reaches alpha in any time the simulator
// could represent.
constexpr int kMaxDoublings = 62;

}  // namespace

double survival(const ExitChain& c, int64_t s0, double t_s) {
  if (!(t_s >= 0) || !std::isfinite(t_s)) fail(c, "survival time must be finite and >= 0", t_s);
  if (!exit_reachable(c, s0)) return 1.0;
  UniformizedExp e(sub_generator(c));
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(e.states()));
  return e.apply(ones, t_s)(index_of(c, s0));
}

double exit_quantile(const ExitChain& c, int64_t s0, double alpha) {
  if (!(alpha > 0 && alpha < 1)) fail(c, "alpha must be in (0, 1)", alpha);
  if (!exit_reachable(c, s0)) return std::numeric_limits<double>::infinity();
  UniformizedExp e(sub_generator(c));
  return uniformized_row_quantile(e, index_of(c, s0), alpha, kQuantileRelTol);
}

double uniformized_row_quantile(UniformizedExp& e, Eigen::Index start_index, double alpha,
                                double rel_tol, double cap_s) {
  const double h = e.step();
  if (!std::isfinite(h)) return std::numeric_limits<double>::infinity();  // Lambda = 0
  const Eigen::Index n = static_cast<Eigen::Index>(e.states());
  Eigen::RowVectorXd start = Eigen::RowVectorXd::Zero(n);
  start(start_index) = 1.0;

  // Bracket [a, a + h 2^level] with S(a) > alpha >= S(a + h 2^level); row_a = e_s0' exp(Q a).
  // First one step h at a time (cheap tridiagonal series), then, for a very long tail, galloping
  // with the cached doubling matrices.
  double a = 0;
  int level = 0;
  Eigen::RowVectorXd row_a = start;
  bool bracketed = false;
  for (uint64_t i = 0; i < UniformizedExp::kLinearSteps && !bracketed; ++i) {
    Eigen::RowVectorXd next = e.short_step_row(row_a, h);
    if (next.sum() <= alpha) {
      bracketed = true;
    } else {
      a += h;
      row_a = std::move(next);
      if (a >= cap_s) return std::numeric_limits<double>::infinity();  // S(a) > alpha
    }
  }
  for (int j = 0; !bracketed; ++j) {
    if (j > kMaxDoublings) return std::numeric_limits<double>::infinity();
    e.charge_dense_product();
    Eigen::RowVectorXd next = row_a * e.doubling(j);
    if (next.sum() <= alpha) {
      bracketed = true;
      level = j;
    } else {
      a += std::ldexp(h, j);
      row_a = std::move(next);
      if (!std::isfinite(a) || a * e.uniformization_rate() > 1e18 || a >= cap_s) {
        return std::numeric_limits<double>::infinity();
      }
    }
  }

  // Bisection. While level > 0 the half-width h 2^(level-1) is a cached doubling matrix; below h
  // the half-steps are short series.
  double width = std::ldexp(h, level);
  for (int iter = 0; iter < 400 && width > rel_tol * (a + width); ++iter) {
    const double half = width / 2;
    --level;
    if (level >= 0) e.charge_dense_product();
    Eigen::RowVectorXd row_mid =
        level >= 0 ? Eigen::RowVectorXd(row_a * e.doubling(level)) : e.short_step_row(row_a, half);
    if (row_mid.sum() > alpha) {
      a += half;
      row_a = std::move(row_mid);
    }
    width = half;
  }
  return a + width;
}

}  // namespace fdsim::timeout
