#pragma once
// S(t | s0) = e_s0' exp(Q t) 1 of a tridiagonal sub-generator Q, as a Poisson mixture, and its
// quantile: the fast exact path for the chains that are too large for SpectralExit to be cheap
// (the 46-state lossy silence chain of silence_chain.h, the 41-state top region).
//
// Contract: with Lambda = max_i |Q(i,i)| and P = I + Q / Lambda (nonnegative, substochastic),
//   S(t) = sum_k Pois(k; Lambda t) v_k,  v_k = e_s0' P^k 1 (the k-step survival, 1 >= v_k >= 0,
//   non-increasing),
//   f(t) = -S'(t) = Lambda sum_k Pois(k; Lambda t) (v_k - v_{k+1}) >= 0.
// The v_k do not depend on t: they are computed once, by row-vector products e_s0' P^k (O(n)
// each, only on the states reachable in k steps), and extended lazily as larger t need more
// terms; every evaluation of S or f is then a scalar series with one exp. Every term is
// nonnegative (no cancellation, unlike the spectral sum, whose error grows with the
// conditioning of the symmetrizing scale); the series is cut where the Poisson tail is below
// kTail = 1e-17 (absolute; the geometric tail bound of uniformization.h), so S and f are
// accurate to about 1e-15 relative.
//
// The quantile (inf { t : S(t) <= alpha }) follows SpectralExit::quantile's convention: bracket
// by doubling, then safeguarded Newton; the returned t is the upper end b of a final bracket
// [a, b] of relative width <= 1e-12 with S(a) > alpha >= S(b) as evaluated here. Up to
// Lambda t = kDirectMass the Poisson weights start from e^-Lambda t (no underflow); beyond, the
// series starts at k0 = Lambda t - 10 sqrt(Lambda t) (the left-out lower tail is below e^-50)
// from exp(log of the Poisson mass, ln k0! by Stirling's series), which costs about 1e-11 relative in S at
// the largest masses. Where Lambda t would exceed kMaxMass (the cost grows as Lambda t times
// the number of states) the object gives up: quantile() returns NaN and callers use the slower
// paths (spectral_exit.h, uniformization.h), or quantile_within, which goes beyond kMaxMass up
// to a cap the caller gives (capped_quantile.h). The results agree with those paths and with
// Eigen's matrix exponential to about 1e-10 relative (tested). Memory: a few vectors of n
// doubles and one double per term; deterministic (no state but the inputs). Work: a chain of
// kMinChargedChainStates states or more charges one unit per 64 state updates and series terms
// (sim/engine/budget.h), so that a long computation stays within the run's budget and stops
// at SIGINT/SIGTERM.

#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Dense>

namespace fdsim::timeout {

class PoissonSurvival {
 public:
  static constexpr double kDirectMass = 600.0;  // e^-600 = 3.6e-261 does not underflow
  static constexpr double kMaxMass = 5000.0;
  static constexpr double kTail = 1e-17;

  // diag(i) = Q(i,i) <= 0, upper(i) = Q(i,i+1) >= 0, lower(i) = Q(i+1,i) >= 0 (n-1 entries),
  // row sums <= 0; start = the index of s0.
  PoissonSurvival(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                  const Eigen::VectorXd& lower, Eigen::Index start);
  // An empty object to be reset() before use: a scratch object whose buffers keep their
  // capacity across chains, so that a caller computing many small bounds allocates only when a
  // chain needs more series terms than any before (TimeoutTable's lower bounds). reset() leaves
  // the object exactly as the constructor would (same results bit for bit).
  PoissonSurvival() = default;
  // The same chain given by raw diagonals: diag[0..n-1], upper[0..n-2], lower[0..n-2].
  void reset(const double* diag, const double* upper, const double* lower, Eigen::Index n,
             Eigen::Index start);

  double rate() const { return rate_; }
  // S(t) and f(t) (t >= 0); NaN beyond rate() t = kMaxMass.
  double survival(double t_s);
  double density(double t_s);
  // As in the header comment; +infinity when the exit is unreachable (rate() = 0), NaN when
  // the quantile lies beyond kMaxMass / rate().
  double quantile(double alpha);
  // A cheaper lower bound of the quantile, a t with S(t) > alpha as evaluated here: (k* - 1) /
  // Lambda, k* the first k with v_k <= alpha, if S is above alpha there (one evaluation; the
  // usual case); else the lower end of a bracket [a, b] of relative width <= rel_width
  // (>= 1e-12). Same infinity / NaN as quantile().
  double quantile_lower_bound(double alpha, double rel_width);
  // The quantile when it is at most cap_s (finite, > 0), +infinity when it is later (S(cap_s) >
  // alpha): the series may then reach mass rate() cap_s (beyond kMaxMass, with Loader's
  // log-weights), for a cost bounded by the cap: about (rate() cap_s + 10 sqrt(rate() cap_s))
  // row-product terms of at most n states, the same number of doubles stored twice (v and the
  // reciprocals), and the bracket's evaluations of about 20 sqrt(rate() cap_s) terms each.
  // Same convention as quantile() (the upper end of a final bracket of relative width 1e-12).
  // For callers to whom any quantile beyond cap_s is the same (a timeout longer than the run:
  // TimeoutTable's run span). Later calls keep the raised mass limit until reset().
  double quantile_within(double alpha, double cap_s);

 private:
  // Makes v_[0..k] available.
  void extend_to(size_t k);
  // [a, b] with S(a) > alpha >= S(b) and b - a <= rel_width b; false beyond kMaxMass.
  // With a finite cap_s (quantile_within, S(cap_s) <= alpha known): b <= cap_s.
  bool bracket(double alpha, double rel_width, double* a, double* b,
               double cap_s = std::numeric_limits<double>::infinity());
  // S and f at t together (one pass over the terms); false beyond kMaxMass.
  bool evaluate(double t_s, double* s, double* f);

  Eigen::Index n_ = 0;
  double rate_ = 0;
  std::vector<double> pd_, pu_, pl_;  // P by diagonals: P(i,i), P(i-1,i) (0 at i = 0), P(i+1,i)
  std::vector<double> row_, next_;    // e_s0' P^k on [lo_, hi_], state j at index j + 1
  std::vector<double> inv_;           // inv_[k] = 1 / (k + 1)
  Eigen::Index lo_ = 0, hi_ = 0;
  std::vector<double> v_;             // v_0, v_1, ...
  double max_mass_ = kMaxMass;        // the largest rate() t evaluated (quantile_within raises it)
  // Work (sim/engine/budget.h): state updates of the row products and series terms not yet
  // charged; one unit per 64, charged in batches through charge_chain_work (uniformization.h:
  // chains of kMinChargedChainStates states or more only). Kept across reset(): it changes no
  // result.
  void count_work(uint64_t operations);
  uint64_t uncharged_ = 0;
};

}  // namespace fdsim::timeout
