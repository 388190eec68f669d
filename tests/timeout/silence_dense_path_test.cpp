// The lossy silence chain's slowest path (silence_chain.h, uniformization.h): a chain of 64
// states or more that neither the Poisson mixture (its mass) nor the spectral form (its
// conditioning) can serve, and whose exit far_exit.h cannot rule out, gets its quantile by
// stepping one row vector forward and bisecting with half-steps (uniformized_row_quantile),
// checked here against the survival computed independently (the column walk of
// silence_survival).

#include <cmath>

#include <gtest/gtest.h>

#include "models/timeout/far_exit.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/uniformization.h"
#include "sim/engine/budget.h"
#include "tests/timeout/silence_chain_diagonals.h"

namespace fdsim::timeout {
namespace silence_dense_path_test {

// th_u 20, th_f 60 (102 states with the top region), a node at 61 (the bottom of the top
// region, where lambda 45 per s drifts it away from its exit against mu 30 per s), loss 0.005.
SilenceChain top_region_drifting_up() {
  SilenceChain c;
  c.th_u = 20;
  c.th_f = 60;
  c.lambda = {10.0, 30.0, 45.0};
  c.mu = 30.0;
  c.loss = 0.005;
  return c;
}

using test::Diagonals;
using test::diagonals_of;

TEST(SilenceDensePath, ARowStepQuantileMatchesTheIndependentSurvival) {
  const SilenceChain c = top_region_drifting_up();
  const int64_t s0 = 61;
  const double alpha = 0.05;
  // The chain really takes the slowest path.
  const Diagonals g = diagonals_of(c);
  ASSERT_GE(g.d.size(), kMinChargedChainStates);
  PoissonSurvival ps(g.d, g.up, g.lo, s0);
  ASSERT_TRUE(std::isnan(ps.quantile(alpha)));
  ASSERT_FALSE(SpectralExit(g.d, g.up, g.lo, s0).accurate());
  ASSERT_FALSE(exit_later_than(region_chain_of(c, s0), s0, alpha, kBeyondDurationS));

  RunBudget budget(nullptr, BudgetLimits{}, BudgetEstimate{});
  const double q = silence_quantile(c, s0, alpha);
  const double units = budget.work_units();
  ASSERT_TRUE(std::isfinite(q) && q > 0) << q;
  // inf { t : S(t) <= alpha } to 1e-12 relative: S(q) <= alpha < S just below q, by the
  // survival's own walk from t = 0 (rounding of about 1e-12 in S allowed).
  EXPECT_LE(silence_survival(c, s0, q), alpha + 1e-12) << q;
  EXPECT_GT(silence_survival(c, s0, q * (1 - 1e-10)), alpha) << q;
  // Charged work, deterministic: 5.6e5 units with the row steps (7.6e5 with the column walk,
  // whose every bisection step walked from t = 0; on the near-critical CET family the walk
  // took twice the time). A loose bound: the work is charged at all.
  EXPECT_GT(units, 1e4);
  EXPECT_LT(units, 1e6);
}

}  // namespace silence_dense_path_test
}  // namespace fdsim::timeout
