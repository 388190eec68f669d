#pragma once
// The exit-time law of a birth-death region (exit_chain.h) as a sum of exponentials: the fast
// path behind TimeoutTable (T_out is computed for almost every broadcast).
//
// Contract: for a tridiagonal sub-generator Q whose off-diagonal pairs Q(i,i+1), Q(i+1,i) are
// both > 0, D Q D^-1 is symmetric for the diagonal D with D(i+1)/D(i) = sqrt(Q(i,i+1) /
// Q(i+1,i)); its eigendecomposition V diag(l) V' (all l < 0 when the exit is reachable) gives
//   S(t | s0) = sum_k c_k exp(l_k t),  c_k = V(s0,k) / D(s0) * sum_j V(j,k) D(j),
// and the density f(t) = -sum_k c_k l_k exp(l_k t). The decomposition is the implicit QL
// algorithm with Wilkinson shifts (Numerical Recipes' tqli) in which the Givens rotations are
// applied only to the two vectors the coefficients need (row s0 of V and V' D 1), not to the
// whole eigenvector matrix: O(n^2) per start state instead of O(n^3). One object serves one
// start state and every t and alpha. quantile(s0, alpha) = inf { t : S(t) <= alpha } by Newton's method
// inside a bracket kept by bisection; the returned t is the upper end of a final bracket of
// relative width <= 1e-12, with S(t) <= alpha as evaluated here (the same convention as
// exit_quantile, whose uniformization result it matches to about 1e-10 relative: tested).
// Rounding: the series is evaluated in double; its absolute error is about 1e-15 sum_k |c_k|,
// which is what tests compare against the uniformization of exit_chain.h.
//
// Accuracy: since |V(j,k)| <= 1, sum_k |c_k| <= n max(D) / D(s0), so the rounding error of the
// sum is about 1e-16 n max(D) / D(s0): small from the states where D is largest (the bottom of
// a region when lambda < mu, where broadcasts usually leave the chain), large from the others
// (e.g. the bottom of the top region when lambda > mu: (lambda / mu)^20). accurate(i) requires
// max(D) / D(i) <= 1e4 (error below about 1e-10).
// When the spectral form does not apply (a zero rate decouples the chain, the exit is
// unreachable, the scaling over- or underflows) usable() is false; when it is not accurate from
// the start state, callers use the uniformization of exit_chain.h instead (spectral_quantile
// does so itself).

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "models/timeout/exit_chain.h"

namespace fdsim::timeout {

class SpectralExit {
 public:
  // From a tridiagonal sub-generator given by its diagonals: diag(i) = Q(i,i), upper(i) =
  // Q(i,i+1), lower(i) = Q(i+1,i) (upper and lower have n-1 entries), for the start state of
  // index `start` (0-based).
  SpectralExit(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
               const Eigen::VectorXd& lower, Eigen::Index start);
  SpectralExit(const ExitChain& c, int64_t s0);

  bool usable() const { return usable_; }
  // usable() and max(D) / D(start) <= kMaxAmplification.
  bool accurate() const { return usable_ && amplification_ <= kMaxAmplification; }
  static constexpr double kMaxAmplification = 1e4;
  double survival(double t_s) const;
  double density(double t_s) const;
  // +infinity if S never reaches alpha within 1e18 / (largest rate) seconds.
  double quantile(double alpha) const;

 private:
  // Charges one evaluation's work (n_ / 64 units, uniformization.h's charge_chain_work).
  void count_evaluation() const;
  Eigen::Index n_ = 0;
  bool usable_ = false;
  Eigen::VectorXd eig_;    // l_k
  Eigen::VectorXd coef_;   // c_k
  Eigen::Index slowest_ = 0;  // index of the largest l_k
  double max_rate_ = 0;
  double amplification_ = 0;  // max(D) / D(start)
};

// exit_quantile(c, s0, alpha) through SpectralExit when usable, else through exit_quantile.
double spectral_quantile(const ExitChain& c, int64_t s0, double alpha);

}  // namespace fdsim::timeout
