// far_exit.h: the drift bound on a one-sided region's exit probability, checked against the
// exact survival (uniformization), and T_out of a far CET region computed without the dense
// fallback (issue 37: 62 squarings of a 1 042-state matrix per computation).

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "models/timeout/exit_chain.h"
#include "models/timeout/far_exit.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/timeout_table.h"
#include "sim/engine/budget.h"

namespace fdsim::timeout {
namespace far_exit_test {

// Regions with one exit: {0..hi} (exit upward; state 0 has no death) and the reflecting top
// region {th_f+1 ..} (exit downward), over rates with and against the drift.
std::vector<ExitChain> one_sided_regions() {
  std::vector<ExitChain> out;
  for (int64_t hi : {2, 7, 19})
    for (double lambda : {0.3, 1.0, 2.5})
      for (double mu : {0.5, 3.0, 10.0}) out.push_back(region_chain(0, hi, lambda, mu));
  for (double lambda : {0.5, 3.0, 12.0})
    for (double mu : {0.4, 2.0, 6.0}) out.push_back(top_region_chain(5, lambda, mu));
  return out;
}

// P(W <= t) <= exp(bound) for every start and time: the bound is an upper bound of the exact
// exit probability, never below it (a bound without its drift term, (b - a) t r^-m, fails
// this at long times).
TEST(FarExit, TheDriftBoundIsAboveTheExactExitProbability) {
  int claims = 0;
  for (const ExitChain& c : one_sided_regions()) {
    for (int64_t s0 = c.lo; s0 <= c.hi; s0 += std::max<int64_t>(1, (c.hi - c.lo) / 3)) {
      for (double t : {0.0, 0.05, 1.0, 20.0, 400.0}) {
        const double ln_b = log_exit_probability_bound(c, s0, t);
        if (std::isnan(ln_b)) continue;  // no drift away from the exit
        ++claims;
        const double exact = 1.0 - survival(c, s0, t);
        EXPECT_LE(exact, std::exp(ln_b) * (1 + 1e-9) + 1e-12)
            << describe(c) << " s0=" << s0 << " t=" << t;
      }
    }
  }
  EXPECT_GT(claims, 100);
}

// Where the claim is made, the exact survival at t is above alpha, i.e. the quantile
// inf { u : S(u) <= alpha } is later than t (S is non-increasing). (The survival, not
// exit_quantile: for these far exits the latter gallops to 1e18 / Lambda, 10 ms a call.)
TEST(FarExit, AClaimImpliesALaterExactQuantile) {
  int claims = 0;
  for (const ExitChain& c : one_sided_regions()) {
    for (int64_t s0 = c.lo; s0 <= c.hi; ++s0) {
      for (double t : {0.01, 0.5, 5.0, 50.0}) {
        if (!exit_later_than(c, s0, 0.05, t)) continue;
        ++claims;
        EXPECT_GT(survival(c, s0, t), 0.05) << describe(c) << " s0=" << s0 << " t=" << t;
      }
    }
  }
  EXPECT_GT(claims, 10);
}

TEST(FarExit, NoClaimWithExitsOnBothSidesOrWithTheDrift) {
  // {3..9}: exits at 2 and 10.
  EXPECT_TRUE(std::isnan(log_exit_probability_bound(region_chain(3, 9, 0.1, 100.0), 5, 1.0)));
  // {0..9} with lambda > mu drifts toward its exit.
  EXPECT_TRUE(std::isnan(log_exit_probability_bound(region_chain(0, 9, 2.0, 1.0), 0, 1.0)));
  // {0..9} with a reflecting top: no exit at all.
  ExitChain closed = region_chain(0, 9, 1.0, 2.0);
  closed.reflecting_top = true;
  EXPECT_FALSE(exit_later_than(closed, 3, 0.05, 1.0));
}

// The chain a CET arm met in bench/budget_families.py's "execution_prior_shape 1e3" family: the
// idle region {0..300} (th_u 0.3 s x mu 1000 per s), a node at 148 with lambda 1.829 per s. Its
// exit (a climb of 153 states against mu / lambda = 547) is later than any Duration, so T_out
// is "never"; before far_exit.h the Poisson path gave up and the dense uniformization of the
// 1 042-state silence chain galloped through 62 squarings (about 1.1e9 work units, 17 s).
TEST(FarExit, AFarCetRegionIsNeverWithinAFewWorkUnits) {
  BudgetLimits limits;
  limits.work_units = 1e7;  // about 150 times the work the fast paths need here
  RunBudget budget(nullptr, limits, BudgetEstimate{});
  TimeoutTable table;
  SilenceChain c;
  c.th_u = 300;
  c.th_f = 1000;
  c.lambda = {1.829, 0.7521, 1.0};
  c.mu = 1000;
  c.loss = 0.005;
  EXPECT_TRUE(exit_later_than(region_chain_of(c, 148), 148, 0.05, kBeyondDurationS));
  EXPECT_EQ(table.t_out(c, 148, 0.05, Duration::ms(3)), Duration::max());
  // The loss-free region chain of the same broadcast.
  EXPECT_EQ(table.t_out(region_chain(0, 300, 1.829, 1000.0), 148, 0.05, Duration::ms(3)),
            Duration::max());
  EXPECT_LT(budget.work_units(), 1e6);
}

}  // namespace far_exit_test
}  // namespace fdsim::timeout
