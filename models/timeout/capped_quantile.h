#pragma once
// The exact T_out of a chain of kMinChargedChainStates states or more where the cheap paths give
// up (the Poisson series beyond its mass, the spectral form ill-conditioned, no far-exit claim:
// a near-critical CET region of hundreds of states), when the caller needs the quantile only up
// to a cap (TimeoutTable's run span: a T_out beyond it is never reached in the run). Two exact
// methods whose work the cap bounds; fallback_cost says which one capped_quantile uses and what
// it costs at most, for the quantile (silence_chain.cpp, timeout_table.cpp) and for the cost
// estimate (models/loadsharing/cost_bound.cpp) alike.
//
// With M = Lambda cap (the uniformization rate Lambda = the largest total rate out of a state)
// and S states, in operations (one work unit per 64, sim/engine/budget.h):
// - Poisson mixture raised to mass M (PoissonSurvival::quantile_within): row products up to
//   K = M + 10 sqrt(M) + 64 terms, at most S states each, and at most kEvaluations evaluations
//   of at most 20 sqrt(M) + 64 terms: K S + kEvaluations (20 sqrt(M) + 64); 16 B per term.
// - Dense uniformization stopped at the cap (uniformized_row_quantile): the dense generator and
//   its copy (2 S^2), the first doubling matrix (S short series: kSeriesTerms S^2), at most
//   D = 1 + ceil(log2(M / 100)) squarings (S^3 each) and 2 D matrix-vector products (S^2 each),
//   and at most kLinearSteps + kBisectionSteps short series of kSeriesTerms terms (S each);
//   memory: the generator, its copy and D + 1 matrices of S^2 doubles.
// The cheaper one in work is used (ties: Poisson). Both return the quantile to 1e-12 relative
// when it is at most the cap and +infinity otherwise.

#include <limits>

#include <Eigen/Dense>

#include "models/timeout/poisson_survival.h"

namespace fdsim::timeout {

struct FallbackCost {
  bool dense = false;      // true: the dense uniformization; false: the raised Poisson mixture
  double work_units = 0;   // at most, in work units (operations / 64)
  double bytes = 0;        // the largest transient memory of one computation
  // The most memory of one computation at any cap up to cap_s (at each cap the method of less
  // work: the Poisson mixture's 16 B per term only while its work, at least terms x S, is
  // below the dense method's).
  double bytes_any_cap = 0;
};

// Work units per unit of Poisson mass (Lambda x cap) of one capped computation whose mass is at
// least kMaxMass (the least cap effective_cap_s gives): (K S + kEvaluations (20 sqrt(M) + 64))
// / M <= 1.1542 S + 197 operations there, over 64. The dense method is used only where it is
// cheaper. So a waiter whose caps double (TimeoutTable::quantile_needed_s) and who waits w
// seconds costs at most 4 Lambda w times this, plus its first cap at kMaxMass.
double fallback_units_per_mass(double states);

// states >= 1, rate_per_s >= 0, cap_s > 0 (all finite).
FallbackCost fallback_cost(double states, double rate_per_s, double cap_s);

// What a caller needs of a quantile: nothing beyond `wanted_s` for now (it will ask again if
// its wait gets that long), and nothing beyond `span_s` ever (TimeoutTable's run span). Both
// +infinity: every quantile exact, by the uncapped paths.
struct QuantileCap {
  double wanted_s = std::numeric_limits<double>::infinity();
  double span_s = std::numeric_limits<double>::infinity();
};

// The cap the fallback uses for a chain of uniformization rate `rate_per_s`: wanted_s raised to
// the Poisson path's own reach kMaxMass / rate (no dearer than the cheap path that gave up),
// at most span_s.
double effective_cap_s(const QuantileCap& cap, double rate_per_s);

// inf { t : S(t) <= alpha } when it is at most cap_s, +infinity otherwise, for the tridiagonal
// sub-generator given by its diagonals (as PoissonSurvival's) from the state of index `start`,
// by the method fallback_cost picks. `ps` is a PoissonSurvival of the same chain and start
// (the caller's, whose terms up to kMaxMass are reused). The work is charged as it goes
// (chains of kMinChargedChainStates states or more), so it stays within fallback_cost's figure.
double capped_quantile(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                       const Eigen::VectorXd& lower, Eigen::Index start, double alpha,
                       double cap_s, PoissonSurvival& ps);

}  // namespace fdsim::timeout
