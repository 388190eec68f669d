// The run span's exact fallback (capped_quantile.h) and TimeoutTable::quantile_needed_s, on a
// chain that no cheap path serves: a near-critical middle region of 180 states (242 in all),
// its quantile at mass 22 691, beyond the Poisson path's 5 000; an ill-conditioned spectral form
// (the idle region's lambda / mu = 1/3 over 21 states); no far-exit claim. Oracles: the
// uncapped dense uniformization (silence_quantile without a cap, checked in
// silence_dense_path_test.cpp against the independent survival walk) and that walk's survival.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "models/timeout/capped_quantile.h"
#include "models/timeout/far_exit.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/timeout_table.h"
#include "models/timeout/uniformization.h"
#include "sim/engine/budget.h"
#include "tests/timeout/silence_chain_diagonals.h"

namespace fdsim::timeout {
namespace capped_quantile_test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kAlpha = 0.05;
constexpr int64_t kStart = 110;

// th_u 20, th_f 200 (242 states), a node in the middle region (lambda 29.5 per s against mu 30
// per s), loss 0.005: uniformization rate 75 per s (the top region's 45 + 30).
SilenceChain chain() {
  SilenceChain c;
  c.th_u = 20;
  c.th_f = 200;
  c.lambda = {10.0, 29.5, 45.0};
  c.mu = 30.0;
  c.loss = 0.005;
  return c;
}

using test::Diagonals;
using test::diagonals_of;

Eigen::MatrixXd dense(const Diagonals& g) {
  Eigen::MatrixXd q = g.d.asDiagonal();
  for (Eigen::Index i = 0; i + 1 < g.d.size(); ++i) {
    q(i, i + 1) = g.up(i);
    q(i + 1, i) = g.lo(i);
  }
  return q;
}

// The uncapped quantile (dense uniformization, 1e-12 relative).
double exact_quantile() {
  static const double q = silence_quantile(chain(), kStart, kAlpha);
  return q;
}

TEST(CappedQuantile, ThePoissonMixtureRaisedToTheCapMatchesTheDensePath) {
  const double q = exact_quantile();
  const Diagonals g = diagonals_of(chain());
  PoissonSurvival ps(g.d, g.up, g.lo, kStart);
  // The chain takes the fallback: the cheap paths give up and no far-exit claim.
  ASSERT_TRUE(std::isnan(ps.quantile(kAlpha)));
  ASSERT_GT(ps.rate() * q, PoissonSurvival::kMaxMass);
  ASSERT_FALSE(SpectralExit(g.d, g.up, g.lo, kStart).accurate());
  ASSERT_FALSE(exit_later_than(region_chain_of(chain(), kStart), kStart, kAlpha,
                               kBeyondDurationS));
  // Within the cap: the same quantile (both to 1e-12 relative; Loader's log-weights beyond
  // kMaxMass). Beyond it: +infinity.
  EXPECT_NEAR(ps.quantile_within(kAlpha, 2 * q), q, 1e-10 * q);
  PoissonSurvival below(g.d, g.up, g.lo, kStart);
  EXPECT_EQ(below.quantile_within(kAlpha, 0.999 * q), kInf);
  // Its survival beyond kMaxMass against the independent walk (silence_survival).
  for (double t : {0.5 * q, 0.9 * q, q, 1.5 * q})
    EXPECT_NEAR(ps.survival(t), silence_survival(chain(), kStart, t), 1e-11) << t;
}

TEST(CappedQuantile, TheDenseUniformizationStopsAtTheCap) {
  const double q = exact_quantile();
  const Diagonals g = diagonals_of(chain());
  UniformizedExp within(dense(g));
  EXPECT_NEAR(uniformized_row_quantile(within, kStart, kAlpha, 1e-12, 2 * q), q, 1e-11 * q);
  UniformizedExp beyond(dense(g));
  EXPECT_EQ(uniformized_row_quantile(beyond, kStart, kAlpha, 1e-12, 0.5 * q), kInf);
}

// Each method's charged work is within fallback_cost's figure, and capped_quantile takes the
// cheaper one.
TEST(CappedQuantile, TheWorkStaysWithinTheFallbackCost) {
  const double q = exact_quantile();
  const Diagonals g = diagonals_of(chain());
  for (double cap : {0.5 * q, 2 * q, 50 * q}) {
    PoissonSurvival ps(g.d, g.up, g.lo, kStart);
    ps.quantile(kAlpha);  // what the caller did first (its work is the cheap path's)
    const FallbackCost cost = fallback_cost(double(g.d.size()), ps.rate(), cap);
    RunBudget budget(nullptr, BudgetLimits{}, BudgetEstimate{});
    const double got = capped_quantile(g.d, g.up, g.lo, kStart, kAlpha, cap, ps);
    EXPECT_LE(budget.work_units(), cost.work_units) << cap;
    EXPECT_GT(budget.work_units(), 0.0) << cap;
    if (cap > q)
      EXPECT_NEAR(got, q, 1e-10 * q) << cap;
    else
      EXPECT_EQ(got, kInf) << cap;
  }
  // Poisson's work grows with the cap, the dense method's with its logarithm.
  EXPECT_FALSE(fallback_cost(242, 75, 2 * q).dense);
  EXPECT_TRUE(fallback_cost(242, 75, 1e7 * q).dense);
}

// A caller that waits: bounds at least twice its wait, memoised, then the exact value.
TEST(CappedQuantile, ATableWithARunSpanAnswersBoundsThatDoubleUntilTheExactValue) {
  const double q = exact_quantile();
  TimeoutTable table;
  table.set_run_span_s(10 * q);
  double need = 0, previous = 0;
  int bounds = 0;
  for (;;) {
    const TimeoutTable::Bound b = table.quantile_needed_s(chain(), kStart, kAlpha, need);
    if (b.exact) {
      EXPECT_NEAR(b.q_s, q, 1e-10 * q);
      break;
    }
    ++bounds;
    EXPECT_LT(b.q_s, q);
    EXPECT_GE(b.q_s, 2 * need);
    EXPECT_GT(b.q_s, previous);
    // The silence (the walk's survival) is above alpha at the bound.
    EXPECT_GT(silence_survival(chain(), kStart, b.q_s), kAlpha);
    // Asked again before the wait reaches it: the memoised bound, at no cost.
    RunBudget budget(nullptr, BudgetLimits{}, BudgetEstimate{});
    const TimeoutTable::Bound again = table.quantile_needed_s(chain(), kStart, kAlpha, need);
    EXPECT_EQ(budget.work_units(), 0.0);
    EXPECT_EQ(again.q_s, b.q_s);
    EXPECT_FALSE(again.exact);
    previous = b.q_s;
    need = b.q_s;
    ASSERT_LT(bounds, 64);
  }
  // The first cap is the Poisson path's reach (kMaxMass / 75 per s = 66.7 s), then 133 s and
  // 267 s; 533 s is beyond q = 302.5 s.
  EXPECT_EQ(bounds, 3);
  // quantile_s (a wait of the whole span) is exact, from the memo.
  EXPECT_NEAR(table.quantile_s(chain(), kStart, kAlpha), q, 1e-10 * q);
}

TEST(CappedQuantile, AQuantileBeyondTheRunSpanIsNeverWithinTheRun) {
  const double q = exact_quantile();
  TimeoutTable table;
  table.set_run_span_s(0.5 * q);
  const TimeoutTable::Bound b = table.quantile_needed_s(chain(), kStart, kAlpha, 0.4 * q);
  EXPECT_TRUE(b.exact);
  EXPECT_EQ(b.q_s, kInf);
  EXPECT_EQ(table.t_out(chain(), kStart, kAlpha, Duration::zero()), Duration::max());
  // Without a span the table is exact at any time (the dense path).
  TimeoutTable uncapped;
  EXPECT_NEAR(uncapped.quantile_s(chain(), kStart, kAlpha), q, 1e-12 * q);
}

}  // namespace capped_quantile_test
}  // namespace fdsim::timeout
