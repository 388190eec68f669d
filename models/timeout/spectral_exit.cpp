#include "models/timeout/spectral_exit.h"
#include "models/timeout/uniformization.h"
#include "models/timeout/contract.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double v) {
  contract_failure("spectral exit", what, v);
}

constexpr double kRelWidth = kQuantileRelWidth;

}  // namespace

SpectralExit::SpectralExit(const ExitChain& c, int64_t s0) {
  // The diagonals of sub_generator(c) (exit_chain.h), without the dense matrix.
  validate(c);
  const Eigen::Index n = static_cast<Eigen::Index>(c.hi - c.lo + 1);
  Eigen::VectorXd d(n), up(n - 1), lo(n - 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int64_t s = c.lo + i;
    const double birth = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
    const double death = s >= 1 ? c.mu : 0.0;
    d(i) = -(birth + death);
    if (i + 1 < n) {
      up(i) = birth;
      lo(i) = c.mu;  // death from s + 1 >= 1
    }
  }
  *this = SpectralExit(d, up, lo, static_cast<Eigen::Index>(s0 - c.lo));
}

namespace {

// Implicit QL with Wilkinson shifts on the symmetric tridiagonal (d, e), e(i) coupling i and
// i+1 (e(n-1) unused), after Numerical Recipes' tqli. On return d holds the eigenvalues; every
// rotation is applied to the columns of `rows` (m x n, initially rows of the identity or any
// vectors' transposes), so row r ends as rows_in(r) V. Returns false if it does not converge.
bool tridiagonal_ql(Eigen::VectorXd& d, Eigen::VectorXd& e, Eigen::MatrixXd& rows) {
  const Eigen::Index n = d.size();
  if (n > 0) e(n - 1) = 0;
  for (Eigen::Index l = 0; l < n; ++l) {
    int iter = 0;
    Eigen::Index m;
    do {
      for (m = l; m < n - 1; ++m) {
        const double dd = std::abs(d(m)) + std::abs(d(m + 1));
        if (std::abs(e(m)) <= std::numeric_limits<double>::epsilon() * dd) break;
      }
      if (m != l) {
        if (iter++ == 60) return false;
        double g = (d(l + 1) - d(l)) / (2.0 * e(l));
        // sqrt(x^2 + y^2) rather than std::hypot (several times slower): the entries are rates
        // and their combinations, far from overflow or underflow.
        double r = std::sqrt(g * g + 1.0);
        g = d(m) - d(l) + e(l) / (g + std::copysign(r, g));
        double s = 1.0, c = 1.0, p = 0.0;
        Eigen::Index i;
        bool underflow = false;
        for (i = m - 1; i >= l; --i) {
          double f = s * e(i);
          const double b = c * e(i);
          r = std::sqrt(f * f + g * g);
          e(i + 1) = r;
          if (r == 0.0) {
            d(i + 1) -= p;
            e(m) = 0.0;
            underflow = true;
            break;
          }
          s = f / r;
          c = g / r;
          g = d(i + 1) - p;
          r = (d(i) - g) * s + 2.0 * c * b;
          p = s * r;
          d(i + 1) = g + p;
          g = c * r - b;
          for (Eigen::Index k = 0; k < rows.rows(); ++k) {
            f = rows(k, i + 1);
            rows(k, i + 1) = s * rows(k, i) + c * f;
            rows(k, i) = c * rows(k, i) - s * f;
          }
        }
        if (underflow) continue;
        d(l) -= p;
        e(l) = g;
        e(m) = 0.0;
      }
    } while (m != l);
  }
  return true;
}

}  // namespace

SpectralExit::SpectralExit(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                           const Eigen::VectorXd& lower, Eigen::Index start)
    : n_(diag.size()) {
  if (n_ == 0 || upper.size() != n_ - 1 || lower.size() != n_ - 1)
    fail("diagonals of inconsistent sizes", double(n_));
  if (start < 0 || start >= n_) fail("start state out of range", double(start));
  for (Eigen::Index i = 0; i < n_; ++i) {
    max_rate_ = std::max(max_rate_, -diag(i));
    if (i + 1 < n_ && !(upper(i) > 0 && lower(i) > 0)) return;  // decoupled: not usable
  }
  // D(i+1) / D(i) = sqrt(upper(i) / lower(i)); symmetric off-diagonal sqrt(upper * lower).
  Eigen::VectorXd scale(n_), e(n_);
  scale(0) = 1.0;
  for (Eigen::Index i = 0; i + 1 < n_; ++i) {
    scale(i + 1) = scale(i) * std::sqrt(upper(i) / lower(i));
    e(i) = std::sqrt(upper(i) * lower(i));
  }
  if (!scale.allFinite() || scale.minCoeff() <= 1e-150 || scale.maxCoeff() >= 1e150) return;
  amplification_ = scale.maxCoeff() / scale(start);
  // Track row `start` of V and (V' D 1)'.
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(2, n_);
  rows(0, start) = 1.0;
  rows.row(1) = scale.transpose();
  Eigen::VectorXd d = diag;
  // Work (sim/engine/budget.h): the QL iteration, O(n^2) rotations; one unit per 64.
  charge_chain_work(n_, uint64_t(n_) * uint64_t(n_) / 64);
  if (!tridiagonal_ql(d, e, rows)) return;
  eig_ = d;
  if (!(eig_.maxCoeff(&slowest_) < 0)) return;  // a zero mode: the exit is unreachable
  coef_ = rows.row(0).transpose().cwiseProduct(rows.row(1).transpose()) / scale(start);
  usable_ = coef_.allFinite();
}

void SpectralExit::count_evaluation() const {
  // Work (sim/engine/budget.h): one unit per 64 modes summed (chains of
  // kMinChargedChainStates states or more: at least one unit per evaluation).
  charge_chain_work(n_, uint64_t(n_) / 64);
}

double SpectralExit::survival(double t_s) const {
  if (!usable_) fail("used although not usable", t_s);
  if (!(t_s >= 0) || !std::isfinite(t_s)) fail("time must be finite and >= 0", t_s);
  double s = 0;
  for (Eigen::Index k = 0; k < n_; ++k) s += coef_(k) * std::exp(eig_(k) * t_s);
  count_evaluation();
  return s;
}

double SpectralExit::density(double t_s) const {
  if (!usable_) fail("used although not usable", t_s);
  double f = 0;
  for (Eigen::Index k = 0; k < n_; ++k) f -= coef_(k) * eig_(k) * std::exp(eig_(k) * t_s);
  count_evaluation();
  return f;
}

double SpectralExit::quantile(double alpha) const {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  if (!usable_) fail("used although not usable", alpha);
  auto surv = [&](double t) { return survival(t); };
  // Bracket [a, b]: S(a) > alpha >= S(b). Start from the slowest mode's tail estimate.
  const double slow = -eig_(slowest_);
  const double limit = 1e18 / std::max(max_rate_, 1e-300);
  double a = 0, b = std::max(1.0 / slow, 1e-9);
  while (surv(b) > alpha) {
    a = b;
    b *= 2;
    if (b > limit) return std::numeric_limits<double>::infinity();
  }
  // Safeguarded Newton from the slowest-mode guess (clamped into the bracket).
  const double t = std::log(std::max(coef_(slowest_), 1e-300) / alpha) / slow;
  newton_bracket(alpha, kRelWidth, t, &a, &b, [this](double t_s, double* s, double* f) {
    // S(t) and f(t) in one pass over the modes (the same sums as survival() and density()).
    if (!(t_s >= 0) || !std::isfinite(t_s)) fail("time must be finite and >= 0", t_s);
    *s = 0;
    *f = 0;
    for (Eigen::Index k = 0; k < n_; ++k) {
      const double e = std::exp(eig_(k) * t_s);
      *s += coef_(k) * e;
      *f -= coef_(k) * eig_(k) * e;
    }
    count_evaluation();
    return true;
  });
  return b;
}

double spectral_quantile(const ExitChain& c, int64_t s0, double alpha) {
  if (!exit_reachable(c, s0)) return exit_quantile(c, s0, alpha);  // +infinity
  const SpectralExit s(c, s0);
  if (!s.accurate()) return exit_quantile(c, s0, alpha);
  return s.quantile(alpha);
}

}  // namespace fdsim::timeout
