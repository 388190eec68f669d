#include "models/timeout/uniformization.h"
#include "sim/engine/budget.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double t) {
  fdsim::internal_error("fdsim: internal error: uniformization: %s (t = %.17g s)\n", what, t);
}

}  // namespace

void charge_chain_work(int64_t states, uint64_t units) {
  if (states >= kMinChargedChainStates && units > 0) charge_work(units);
}

Eigen::MatrixXd dense_generator(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                                const Eigen::VectorXd& lower) {
  // Work (sim/engine/budget.h): n^2 entries, one unit per 64.
  charge_chain_work(diag.size(), uint64_t(diag.size()) * uint64_t(diag.size()) / 64);
  Eigen::MatrixXd q = diag.asDiagonal();
  for (Eigen::Index i = 0; i + 1 < diag.size(); ++i) {
    q(i, i + 1) = upper(i);
    q(i + 1, i) = lower(i);
  }
  return q;
}

// sum_k Pois(k; x) P^k v (or v' P^k for a row: `transpose`) for x <= kMaxStepMass, with P
// tridiagonal and no allocation inside the loop.
Eigen::VectorXd UniformizedExp::series(const Eigen::VectorXd& v0, double x, bool transpose) const {
  const Eigen::Index n = n_;
  // Column: (P v)_i = lower_i v_{i-1} + diag_i v_i + upper_i v_{i+1}.
  // Row:    (v P)_j = upper_{j-1} v_{j-1} + diag_j v_j + lower_{j+1} v_{j+1}.
  const Eigen::VectorXd& below = transpose ? upper_ : lower_;  // coefficient of v_{i-1}
  const Eigen::VectorXd& above = transpose ? lower_ : upper_;  // coefficient of v_{i+1}
  Eigen::VectorXd term = v0;
  Eigen::VectorXd next_term(n);
  double p = std::exp(-x);  // x <= kMaxStepMass: no underflow
  Eigen::VectorXd sum = p * term;
  // Work (sim/engine/budget.h): one unit per 64 state updates, charged as the series goes (a
  // chain of many states, e.g. a CET region mapped with a large estimated mu, makes one series
  // long: the charge keeps it within the run's budget and interruptible).
  uint64_t updates = 0;
  for (int k = 0;; ++k) {
    const double next = p * x / (k + 1);
    // Tail after terms 0..k: sum_{i>k} p_i <= p_{k+1} / (1 - x / (k + 2)) once k + 2 > x
    // (see the header).
    if (k + 2 > x && next / (1.0 - x / (k + 2)) < kTailBound) break;
    if (k > 100000) break;  // unreachable for x <= kMaxStepMass; guards a broken invariant
    for (Eigen::Index i = 0; i < n; ++i) {
      double v = diag_(i) * term(i);
      if (i > 0) v += (transpose ? below(i - 1) : below(i)) * term(i - 1);
      if (i + 1 < n) v += (transpose ? above(i + 1) : above(i)) * term(i + 1);
      next_term(i) = v;
    }
    term.swap(next_term);
    p = next;
    sum += p * term;
    updates += uint64_t(n);
    if (updates >= 64 * 64) {
      charge_chain_work(n, updates / 64);
      updates %= 64;
    }
  }
  charge_chain_work(n, updates / 64);
  return sum;
}

UniformizedExp::UniformizedExp(const Eigen::MatrixXd& q) : n_(q.rows()) {
  if (n_ == 0 || q.cols() != n_) fail("the generator must be a non-empty square matrix", 0);
  // Work (sim/engine/budget.h): the dense copy and the tridiagonal check, n^2 entries.
  charge_chain_work(n_, uint64_t(n_) * uint64_t(n_) / 64);
  rate_ = 0;
  for (Eigen::Index i = 0; i < n_; ++i) rate_ = std::max(rate_, -q(i, i));
  if (!std::isfinite(rate_)) fail("the generator has a non-finite rate", 0);
  Eigen::MatrixXd p = Eigen::MatrixXd::Identity(n_, n_);
  if (rate_ > 0) {
    p += q / rate_;
    step_ = kMaxStepMass / rate_;
  } else {
    step_ = std::numeric_limits<double>::infinity();
  }
  // P is stored as its three diagonals: lower_(i) = P(i, i-1), upper_(i) = P(i, i+1).
  diag_ = p.diagonal();
  lower_ = Eigen::VectorXd::Zero(n_);
  upper_ = Eigen::VectorXd::Zero(n_);
  for (Eigen::Index i = 0; i < n_; ++i) {
    for (Eigen::Index j = 0; j < n_; ++j) {
      if (j + 1 < i || j > i + 1) {
        if (q(i, j) != 0) fail("the generator must be tridiagonal", 0);
      }
    }
    if (i > 0) lower_(i) = p(i, i - 1);
    if (i + 1 < n_) upper_(i) = p(i, i + 1);
  }
}

Eigen::VectorXd UniformizedExp::short_step(const Eigen::VectorXd& w, double t) const {
  if (rate_ == 0 || t == 0) return w;
  return series(w, rate_ * t, false);
}

Eigen::RowVectorXd UniformizedExp::short_step_row(const Eigen::RowVectorXd& r, double t) const {
  if (rate_ == 0 || t == 0) return r;
  return series(Eigen::VectorXd(r.transpose()), rate_ * t, true).transpose();
}

const Eigen::MatrixXd& UniformizedExp::doubling(int j) {
  if (j < 0 || j > 62) fail("doubling index out of range", 0);
  if (doubling_.empty()) {
    Eigen::MatrixXd e(n_, n_);
    const Eigen::MatrixXd id = Eigen::MatrixXd::Identity(n_, n_);
    for (Eigen::Index c = 0; c < n_; ++c) e.col(c) = short_step(id.col(c), step_);
    doubling_.push_back(std::move(e));
  }
  while (static_cast<int>(doubling_.size()) <= j) {
    // Work (sim/engine/budget.h), charged before the product: a dense squaring is n^3
    // multiply-adds, one unit per 64 (a chain of thousands of states stops at its budget here
    // instead of computing for minutes).
    charge_chain_work(n_, uint64_t(n_) * uint64_t(n_) * uint64_t(n_) / 64);
    const Eigen::MatrixXd& last = doubling_.back();
    Eigen::MatrixXd sq = last * last;
    doubling_.push_back(std::move(sq));
  }
  return doubling_[static_cast<size_t>(j)];
}

void UniformizedExp::charge_dense_product() const {
  // Work (sim/engine/budget.h): a dense matrix-vector product is n^2 multiply-adds. Before
  // it was charged, a bisection over doubling matrices (about 40 steps of up to 62 products)
  // ran uncharged: minutes of a 1 042-state chain under AddressSanitizer below the budget.
  charge_chain_work(n_, uint64_t(n_) * uint64_t(n_) / 64);
}

uint64_t UniformizedExp::split(double t, double* rest) const {
  if (!(t >= 0) || !std::isfinite(t)) fail("time must be finite and >= 0", t);
  if (rate_ == 0) {
    *rest = 0;
    return 0;
  }
  const double k = std::floor(t / step_);
  if (k >= 4.6e18) fail("time too long for the chain's rates", t);
  *rest = std::max(0.0, t - k * step_);
  if (*rest > step_) *rest = step_;  // rounding guard: keeps Lambda r <= kMaxStepMass
  return static_cast<uint64_t>(k);
}

Eigen::VectorXd UniformizedExp::apply(const Eigen::VectorXd& w, double t) {
  double rest = 0;
  uint64_t k = split(t, &rest);
  Eigen::VectorXd v = short_step(w, rest);
  if (k <= kLinearSteps) {
    for (uint64_t i = 0; i < k; ++i) v = short_step(v, step_);
    return v;
  }
  for (int j = 0; k != 0; ++j, k >>= 1) {
    if (k & 1u) {
      charge_dense_product();
      v = doubling(j) * v;
    }
  }
  return v;
}

Eigen::RowVectorXd UniformizedExp::apply_row(const Eigen::RowVectorXd& r, double t) {
  double rest = 0;
  uint64_t k = split(t, &rest);
  Eigen::RowVectorXd v = short_step_row(r, rest);
  if (k <= kLinearSteps) {
    for (uint64_t i = 0; i < k; ++i) v = short_step_row(v, step_);
    return v;
  }
  for (int j = 0; k != 0; ++j, k >>= 1) {
    if (k & 1u) {
      charge_dense_product();
      v = v * doubling(j);
    }
  }
  return v;
}

}  // namespace fdsim::timeout
