#pragma once
// The region-exit survival S(t | s0) of exit_chain.h as a sum of exponentials in closed form,
// for the region chains that have one, and a quantile estimate from it: the cheap source of
// TimeoutTable's lower bounds for the small regions (timeout_table.h), never of an exact T_out.
//
// Closed forms (no numerical eigendecomposition):
//  - two states (region U = {0, 1} with the default TH_u = 1, or any two-state region): the
//    eigenvalues of the 2 x 2 sub-generator from its trace and determinant, the determinant
//    summed from positive terms and the small root as det / large root (no cancellation);
//  - every state with birth lambda and death mu and exits at both ends (region M = {TH_u+1 ..
//    TH_f}, lo >= 1, no reflecting top): symmetrized by D = diag(sqrt(lambda/mu)^i), the
//    sub-generator is tridiagonal Toeplitz, with eigenvalues -r_j, r_j = (sqrt(lambda) -
//    sqrt(mu))^2 + 4 sqrt(lambda mu) sin^2(j pi / (2 (n+1))) (a sum of nonnegative terms) and
//    eigenvectors sin(i j pi / (n+1)).
// Then S(t | s0) = sum_j w_j exp(-r_j t) with sum_j w_j = 1.
//
// Accuracy contract: the weights may have both signs, so the evaluation of S can cancel;
// closed_form_quantile() returns NaN unless the sum of |terms| at the root is at most
// kMaxCancellation times S there (so S is accurate to about 1e-13 relative), and NaN when a
// rate or weight is not finite, the exit is unreachable, or the bracket does not close. A
// finite result is a = t (1 - 1e-10), t the root Newton's method on log S converged to (steps
// below 1e-13 t), checked to have S(a) > alpha as evaluated from the closed form. Callers that
// need a lower bound of the exact quantile shrink it (timeout_table.cpp: by 1e-7 relative, far
// above these errors; the tests check it against the exact quantile over a grid that includes
// extreme rate ratios).
// Deterministic, allocation-free.

#include <array>
#include <cstdint>

#include "models/timeout/exit_chain.h"

namespace fdsim::timeout {

inline constexpr int kClosedFormMaxStates = 17;
inline constexpr double kMaxCancellation = 1e3;

struct ExpSum {
  int n = 0;                                    // number of terms
  std::array<double, kClosedFormMaxStates> w{};  // weights, sum 1
  std::array<double, kClosedFormMaxStates> r{};  // decay rates > 0, per second
};

// S(t | s0) of `c` as an ExpSum, or n = 0 when `c` has no closed form here (more than
// kClosedFormMaxStates states, not two states nor Toeplitz, a zero rate, an extreme rate
// ratio). `c` must be valid (exit_chain.h) and s0 in it.
ExpSum closed_form_survival(const ExitChain& c, int64_t s0);

// The alpha-quantile estimate described above (alpha in (0, 1)), or NaN.
double closed_form_quantile(const ExpSum& s, double alpha);

}  // namespace fdsim::timeout
