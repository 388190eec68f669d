// The work a T_out computation charges (sim/engine/budget.h) on its Poisson-mixture and spectral
// paths (poisson_survival.h, spectral_exit.h): one unit per 64 state updates, series terms or
// modes summed, for chains of kMinChargedChainStates states or more, so that a long computation
// stays within the run's work budget; smaller chains charge nothing.

#include <cmath>

#include <gtest/gtest.h>

#include "models/timeout/exit_chain.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/uniformization.h"
#include "sim/engine/budget.h"

namespace fdsim::timeout {
namespace t_out_work_test {

// The region chain {0 .. states - 1} with birth lambda and death mu, by its diagonals.
struct Diagonals {
  Eigen::VectorXd d, up, lo;
};
Diagonals diagonals(Eigen::Index states, double lambda, double mu) {
  Diagonals g{Eigen::VectorXd(states), Eigen::VectorXd(states - 1), Eigen::VectorXd(states - 1)};
  for (Eigen::Index i = 0; i < states; ++i) {
    g.d(i) = -(lambda + (i >= 1 ? mu : 0.0));
    if (i + 1 < states) {
      g.up(i) = lambda;
      g.lo(i) = mu;
    }
  }
  return g;
}

double charged_by_poisson_quantile(Eigen::Index states, Eigen::Index start) {
  const Diagonals g = diagonals(states, 10.0, 8.0);  // drifts up to the exit at the top
  RunBudget budget(nullptr, BudgetLimits{}, BudgetEstimate{});
  PoissonSurvival ps(g.d, g.up, g.lo, start);
  const double q = ps.quantile(0.01);
  EXPECT_TRUE(std::isfinite(q) && q > 0) << q;
  return budget.work_units();
}

double charged_by_spectral_quantile(int64_t hi, int64_t s0) {
  const ExitChain c = region_chain(0, hi, 8.0, 10.0);
  RunBudget budget(nullptr, BudgetLimits{}, BudgetEstimate{});
  const SpectralExit e(c, s0);
  const double qr = budget.work_units();
  EXPECT_TRUE(e.usable());
  const double q = e.quantile(0.01);
  EXPECT_TRUE(std::isfinite(q) && q > 0) << q;
  return budget.work_units() - qr;  // the evaluations, without the QL iteration
}

// A 200-state chain started in its middle: the quantile needs hundreds of row products on a
// support that grows to the whole chain (tens of thousands of state updates). Before the
// Poisson path charged, this was 0.
TEST(TOutWork, ThePoissonPathChargesItsRowProductsAndSeriesTerms) {
  const double units = charged_by_poisson_quantile(200, 100);
  EXPECT_GE(units, 100.0);
  // Far below one unit per operation (64 operations a unit): at most the 200 states of every
  // row product plus a term per evaluation, for at most kMaxMass terms and 200 evaluations.
  EXPECT_LE(units, (PoissonSurvival::kMaxMass + 800.0) * (200.0 + 200.0) / 64.0);
}

TEST(TOutWork, TheSpectralPathChargesItsEvaluations) {
  // Every evaluation sums all 100 modes: one unit each (100 / 64).
  EXPECT_GE(charged_by_spectral_quantile(99, 50), 5.0);
}

TEST(TOutWork, ChainsBelowSixtyFourStatesChargeNothing) {
  static_assert(kMinChargedChainStates == 64);
  EXPECT_EQ(charged_by_poisson_quantile(63, 30), 0.0);
  EXPECT_EQ(charged_by_spectral_quantile(62, 30), 0.0);
}

}  // namespace t_out_work_test
}  // namespace fdsim::timeout
