#include "models/timeout/spectral_exit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <Eigen/Eigenvalues>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double v) {
  std::fprintf(stderr, "fdsim: internal error: spectral exit: %s (%.17g)\n", what, v);
  std::abort();
}

constexpr double kRelWidth = 1e-12;


}  // namespace

SpectralExit::SpectralExit(const ExitChain& c) {
  const Eigen::MatrixXd q = sub_generator(c);
  const Eigen::Index n = q.rows();
  Eigen::VectorXd d = q.diagonal(), up(std::max<Eigen::Index>(n - 1, 0)), lo(up.size());
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    up(i) = q(i, i + 1);
    lo(i) = q(i + 1, i);
  }
  *this = SpectralExit(d, up, lo);
}

SpectralExit::SpectralExit(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                           const Eigen::VectorXd& lower)
    : n_(diag.size()) {
  if (n_ == 0 || upper.size() != n_ - 1 || lower.size() != n_ - 1)
    fail("diagonals of inconsistent sizes", double(n_));
  for (Eigen::Index i = 0; i < n_; ++i) {
    max_rate_ = std::max(max_rate_, -diag(i));
    if (i + 1 < n_ && !(upper(i) > 0 && lower(i) > 0)) return;  // decoupled: not usable
  }
  // D(i+1) / D(i) = sqrt(upper(i) / lower(i)); symmetric off-diagonal sqrt(upper * lower).
  Eigen::VectorXd scale(n_), sub(std::max<Eigen::Index>(n_ - 1, 0));
  scale(0) = 1.0;
  for (Eigen::Index i = 0; i + 1 < n_; ++i) {
    scale(i + 1) = scale(i) * std::sqrt(upper(i) / lower(i));
    sub(i) = std::sqrt(upper(i) * lower(i));
  }
  if (!scale.allFinite() || scale.minCoeff() <= 1e-150 || scale.maxCoeff() >= 1e150) return;
  scale_ = scale;
  max_scale_ = scale.maxCoeff();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
  es.computeFromTridiagonal(diag, sub, Eigen::ComputeEigenvectors);
  if (es.info() != Eigen::Success) return;
  eig_ = es.eigenvalues();
  if (!(eig_.maxCoeff() < 0)) return;  // a zero mode: the exit is unreachable from somewhere
  const Eigen::MatrixXd& v = es.eigenvectors();
  left_ = scale.cwiseInverse().asDiagonal() * v;
  right_ = v.transpose() * scale;
  usable_ = left_.allFinite() && right_.allFinite();
}

void SpectralExit::coefficients(Eigen::Index i, Eigen::VectorXd* c) const {
  if (!usable_) fail("used although not usable", double(i));
  if (i < 0 || i >= n_) fail("state index out of range", double(i));
  *c = left_.row(i).transpose().cwiseProduct(right_);
}

double SpectralExit::survival(Eigen::Index i, double t_s) const {
  if (!(t_s >= 0) || !std::isfinite(t_s)) fail("time must be finite and >= 0", t_s);
  Eigen::VectorXd c;
  coefficients(i, &c);
  double s = 0;
  for (Eigen::Index k = 0; k < n_; ++k) s += c(k) * std::exp(eig_(k) * t_s);
  return s;
}

double SpectralExit::density(Eigen::Index i, double t_s) const {
  Eigen::VectorXd c;
  coefficients(i, &c);
  double f = 0;
  for (Eigen::Index k = 0; k < n_; ++k) f -= c(k) * eig_(k) * std::exp(eig_(k) * t_s);
  return f;
}

double SpectralExit::quantile(Eigen::Index i, double alpha) const {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  Eigen::VectorXd c;
  coefficients(i, &c);
  auto surv = [&](double t) {
    double s = 0;
    for (Eigen::Index k = 0; k < n_; ++k) s += c(k) * std::exp(eig_(k) * t);
    return s;
  };
  auto dens = [&](double t) {
    double f = 0;
    for (Eigen::Index k = 0; k < n_; ++k) f -= c(k) * eig_(k) * std::exp(eig_(k) * t);
    return f;
  };
  // Bracket [a, b]: S(a) > alpha >= S(b). Start from the slowest mode's tail estimate.
  const double slow = -eig_(n_ - 1);
  const double limit = 1e18 / std::max(max_rate_, 1e-300);
  double a = 0, b = std::max(1.0 / slow, 1e-9);
  while (surv(b) > alpha) {
    a = b;
    b *= 2;
    if (b > limit) return std::numeric_limits<double>::infinity();
  }
  // Safeguarded Newton from the slowest-mode guess (clamped into the bracket).
  double t = std::log(std::max(c(n_ - 1), 1e-300) / alpha) / slow;
  if (!(t > a && t < b)) t = 0.5 * (a + b);
  for (int iter = 0; iter < 200 && b - a > kRelWidth * b; ++iter) {
    const double s = surv(t);
    if (s > alpha)
      a = t;
    else
      b = t;
    const double f = dens(t);
    double next = f > 0 ? t + (s - alpha) / f : 0.5 * (a + b);
    if (!(next > a && next < b)) next = 0.5 * (a + b);
    // Newton converged: close the bracket around the root on the side it has not reached.
    if (std::abs(next - t) <= 0.25 * kRelWidth * t) {
      const double h = 0.5 * kRelWidth * t;
      const double lo = std::max(a, t - h), hi = std::min(b, t + h);
      if (surv(lo) > alpha) a = lo;
      if (surv(hi) <= alpha) b = hi;
      next = 0.5 * (a + b);
    }
    t = next;
  }
  return b;
}

bool SpectralExit::accurate(Eigen::Index i) const {
  return usable_ && i >= 0 && i < n_ && max_scale_ / scale_(i) <= kMaxAmplification;
}

double spectral_quantile(const ExitChain& c, int64_t s0, double alpha) {
  if (!exit_reachable(c, s0)) return exit_quantile(c, s0, alpha);  // +infinity
  const SpectralExit s(c);
  if (!s.accurate(static_cast<Eigen::Index>(s0 - c.lo))) return exit_quantile(c, s0, alpha);
  return s.quantile(static_cast<Eigen::Index>(s0 - c.lo), alpha);
}

}  // namespace fdsim::timeout
