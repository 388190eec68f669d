#pragma once
// exp(Q t) applied to vectors, for a tridiagonal sub-generator Q of a small continuous-time
// Markov chain (a birth-death chain: nonnegative off-diagonal entries, row sums <= 0), by
// uniformization. A Q that is not tridiagonal is a programmer error and aborts.
//
// Contract: with Lambda = max_i |Q_ii| and P = I + Q / Lambda (a nonnegative, substochastic
// matrix), exp(Q t) = sum_k Pois(k; Lambda t) P^k. A short step (Lambda t <= kMaxStepMass) sums
// this series until the Poisson tail is below kTailBound: after adding terms 0..K with
// K + 2 > Lambda t, the neglected mass is sum_{k>K} p_k <= p_{K+1} / (1 - Lambda t / (K+2))
// (the ratio p_{k+1} / p_k = Lambda t / (k+1) is below Lambda t / (K+2) beyond K: a geometric
// bound), and since 0 <= P^k w <= ||w||_inf entrywise for w >= 0, the truncation error of
// one step is at most kTailBound * ||w||_inf (and it only ever under-estimates). Every term is
// nonnegative, so there is no cancellation. P is kept as its three diagonals, so a series costs
// O(states * terms).
//
// Long times are never done with one series (e^{-Lambda t} would underflow): t = k h + r with
// the step h = kMaxStepMass / Lambda. Up to kLinearSteps steps are applied one by one (a step of
// mass 100 is about 190 tridiagonal products, far cheaper than a dense squaring); beyond,
// exp(Q k h) is a product of the cached doubling matrices exp(Q h 2^j) (dense squaring of
// nonnegative matrices, so rounding errors stay relative). The error grows at most linearly
// with t / h: about (t / h) * (kTailBound + n * 1e-16) absolute for n states; for the chains of
// docs/models/hou-shin-timeout.md (n <= 41, quantiles of at most a few thousand steps) that is below 1e-10.
//
// Lambda = 0 (no transition at all) gives exp(Q t) = I.

#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Dense>

namespace fdsim::timeout {

// Chains of fewer states charge no work (sim/engine/budget.h): their series and dense steps are
// cheap, and the cost estimate counts T_out work only for chains of at least this many states
// (models/loadsharing/cost_bound.h). Larger ones (a CET region mapped with a large estimated
// mu) charge one unit per 64 state updates or matrix entries, so that they stay within the
// run's budget and honour SIGINT/SIGTERM inside one computation.
inline constexpr int64_t kMinChargedChainStates = 64;

// Charges `units` (sim/engine/budget.h) when `states` >= kMinChargedChainStates.
void charge_chain_work(int64_t states, uint64_t units);

// The dense sub-generator of a tridiagonal chain given by its diagonals (diag: n entries, upper
// Q(i,i+1) and lower Q(i+1,i): n - 1), charging its n^2 entries (charge_chain_work).
Eigen::MatrixXd dense_generator(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                                const Eigen::VectorXd& lower);

class UniformizedExp {
 public:
  static constexpr double kMaxStepMass = 100.0;  // e^-100 = 4e-44: p_0 does not underflow
  static constexpr double kTailBound = 1e-14;
  static constexpr uint64_t kLinearSteps = 512;

  explicit UniformizedExp(const Eigen::MatrixXd& q);

  double uniformization_rate() const { return rate_; }
  // h = kMaxStepMass / Lambda (infinity when Lambda = 0).
  double step() const { return step_; }
  size_t states() const { return static_cast<size_t>(n_); }

  // exp(Q t) w (column vector).
  Eigen::VectorXd apply(const Eigen::VectorXd& w, double t);
  // r' exp(Q t) (row vector).
  Eigen::RowVectorXd apply_row(const Eigen::RowVectorXd& r, double t);
  // exp(Q h 2^j), computed on demand by squaring and cached.
  const Eigen::MatrixXd& doubling(int j);
  // Charges one product of a vector with a doubling matrix (n^2 / 64 units).
  void charge_dense_product() const;
  // exp(Q t) w and r' exp(Q t) for Lambda t <= kMaxStepMass, by one truncated series.
  Eigen::VectorXd short_step(const Eigen::VectorXd& w, double t) const;
  Eigen::RowVectorXd short_step_row(const Eigen::RowVectorXd& r, double t) const;

 private:
  // Splits t into k h + r; aborts if t is negative, not finite, or absurdly long (k >= 2^62).
  uint64_t split(double t, double* rest) const;

  // sum_k Pois(k; x) P^k v0, or v0' P^k as a column when `transpose`.
  Eigen::VectorXd series(const Eigen::VectorXd& v0, double x, bool transpose) const;

  Eigen::Index n_ = 0;

  // P = I + Q / Lambda by diagonals: lower_(i) = P(i, i-1), diag_(i) = P(i, i), upper_(i) =
  // P(i, i+1).
  Eigen::VectorXd lower_, diag_, upper_;
  double rate_ = 0;
  double step_ = 0;
  std::vector<Eigen::MatrixXd> doubling_;  // doubling_[j] = exp(Q h 2^j)
};

// inf { t : S(t) <= alpha } with S(t) = e_start' exp(Q t) 1 (Q the generator of `e`), to
// `rel_tol` relative: the upper end of the final bracket. Steps a row vector forward (one
// short series per step h, then the cached doubling matrices) to bracket the quantile, then
// bisects from the bracket's lower end with half-steps, so every survival evaluation costs one
// step, not a walk from t = 0. +infinity when Lambda = 0 or the quantile exceeds 1e18 /
// Lambda seconds (exit_time.cpp; exit_quantile of exit_chain.h is this with rel_tol 1e-9).
// With a finite cap_s, +infinity as soon as S is known above alpha at a time >= cap_s: the
// galloping then stops after at most 1 + log2(Lambda cap_s / kMaxStepMass) squarings
// (fallback_cost.h counts them).
double uniformized_row_quantile(UniformizedExp& e, Eigen::Index start_index, double alpha,
                                double rel_tol,
                                double cap_s = std::numeric_limits<double>::infinity());

}  // namespace fdsim::timeout
