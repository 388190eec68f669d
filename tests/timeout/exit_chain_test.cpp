// The region-exit chain: generator structure, which exits exist, closed-form mean exit times.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/support/internal_error.h"
#include "models/timeout/exit_chain.h"

namespace fdsim::timeout {
namespace {

TEST(ExitChainGenerator, RegionU_ExitsOnlyUpwardFromTheTopState) {
  const ExitChain u = region_chain(0, 1, 0.8, 1.0);
  const Eigen::MatrixXd q = sub_generator(u);
  ASSERT_EQ(q.rows(), 2);
  // State 0: birth to 1 only, no death (there is no state -1), so no exit from 0.
  EXPECT_DOUBLE_EQ(q(0, 0), -0.8);
  EXPECT_DOUBLE_EQ(q(0, 1), 0.8);
  // State 1: death to 0 stays inside, birth to 2 is the exit.
  EXPECT_DOUBLE_EQ(q(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(q(1, 1), -1.8);
  const Eigen::VectorXd exit_rate = -q.rowwise().sum();
  EXPECT_DOUBLE_EQ(exit_rate(0), 0.0);
  EXPECT_DOUBLE_EQ(exit_rate(1), 0.8);
}

TEST(ExitChainGenerator, RegionM_ExitsDownFromLoAndUpFromHi) {
  const ExitChain m = region_chain(2, 4, 0.8, 1.0);
  const Eigen::MatrixXd q = sub_generator(m);
  ASSERT_EQ(q.rows(), 3);
  const Eigen::VectorXd exit_rate = -q.rowwise().sum();
  EXPECT_DOUBLE_EQ(exit_rate(0), 1.0);  // 2 -> 1
  EXPECT_DOUBLE_EQ(exit_rate(1), 0.0);
  EXPECT_DOUBLE_EQ(exit_rate(2), 0.8);  // 4 -> 5
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(q(i, i), -1.8);
}

TEST(ExitChainGenerator, TopRegion_Has41StatesAndExitsOnlyDownward) {
  const ExitChain top = top_region_chain(4, 0.8, 1.0);
  EXPECT_EQ(top.lo, 5);
  EXPECT_EQ(top.hi, 45);
  const Eigen::MatrixXd q = sub_generator(top);
  ASSERT_EQ(q.rows(), 41);
  const Eigen::VectorXd exit_rate = -q.rowwise().sum();
  EXPECT_DOUBLE_EQ(exit_rate(0), 1.0);
  for (int i = 1; i < 41; ++i) EXPECT_DOUBLE_EQ(exit_rate(i), 0.0) << "state " << 5 + i;
  EXPECT_DOUBLE_EQ(q(40, 40), -1.0);  // reflecting: no birth at the top
}

TEST(MeanExitTime, RegionUEnteredAt1_IsLambdaPlusMuOverLambdaSquared) {
  for (double lambda : {0.1, 0.8, 1.0, 3.7}) {
    for (double mu : {0.5, 1.0, 2.0}) {
      const double expected = (lambda + mu) / (lambda * lambda);
      EXPECT_NEAR(mean_exit_time(region_chain(0, 1, lambda, mu), 1), expected, 1e-12 * expected)
          << "lambda " << lambda << " mu " << mu;
    }
  }
}

// Entered at TH_f + 1, the top region is left when the busy period above TH_f ends. With the
// 41-state truncation it is the M/M/1/41 busy period, whose mean is (1 - rho^41) / (mu - lambda):
// it differs from the unbounded 1/(mu - lambda) by exactly rho^41 / (mu - lambda).
TEST(MeanExitTime, TopRegionEnteredAboveThf_IsTheBusyPeriodUpToTruncation) {
  for (double lambda : {0.3, 0.8, 0.9}) {
    const double mu = 1.0;
    const double rho = lambda / mu;
    const double truncation = std::pow(rho, 41) / (mu - lambda);
    const double got = mean_exit_time(top_region_chain(4, lambda, mu), 5);
    EXPECT_NEAR(got, (1 - std::pow(rho, 41)) / (mu - lambda), 1e-9 * got) << lambda;
    EXPECT_NEAR(got, 1 / (mu - lambda), truncation * (1 + 1e-6) + 1e-12) << lambda;
    EXPECT_LT(got, 1 / (mu - lambda)) << lambda;
  }
}

// With lambda = mu = 1 in {2,3,4}, the jumps form a symmetric walk (one jump per 1/2 s on average)
// absorbed at 1 and 5: gambler's ruin gives k (4 - k) expected jumps from s = 1 + k.
TEST(MeanExitTime, SymmetricMiddleRegion_MatchesGamblersRuinSteps) {
  const ExitChain m = region_chain(2, 4, 1.0, 1.0);
  EXPECT_NEAR(mean_exit_time(m, 3), 4 * 0.5, 1e-12);
  EXPECT_NEAR(mean_exit_time(m, 2), 3 * 0.5, 1e-12);
  EXPECT_NEAR(mean_exit_time(m, 4), 3 * 0.5, 1e-12);
}

TEST(ExitChainDegenerate, NoArrivalsInRegionU_NeverExits) {
  const ExitChain u = region_chain(0, 1, 0.0, 1.0);
  EXPECT_FALSE(exit_reachable(u, 1));
  EXPECT_EQ(survival(u, 1, 1e6), 1.0);
  EXPECT_EQ(mean_exit_time(u, 1), std::numeric_limits<double>::infinity());
  EXPECT_EQ(exit_quantile(u, 1, 0.01), std::numeric_limits<double>::infinity());
}

TEST(ExitChainDegenerate, NoServiceInReflectingTop_NeverExits) {
  const ExitChain top = top_region_chain(4, 0.8, 0.0);
  EXPECT_FALSE(exit_reachable(top, 5));
  EXPECT_EQ(mean_exit_time(top, 5), std::numeric_limits<double>::infinity());
}

TEST(ExitChainDegenerate, OneSidedRatesStillExit) {
  // No arrivals but service: the queue drains out of {2..4} downward, one step per 1/mu.
  const ExitChain drain = region_chain(2, 4, 0.0, 2.0);
  EXPECT_TRUE(exit_reachable(drain, 4));
  EXPECT_NEAR(mean_exit_time(drain, 4), 3 / 2.0, 1e-12);
  // No service: arrivals push {0,1} out upward: from 0, two births.
  const ExitChain fill = region_chain(0, 1, 0.5, 0.0);
  EXPECT_NEAR(mean_exit_time(fill, 0), 2 / 0.5, 1e-12);
  // Erlang(2, 0.5) survival at t: e^{-x}(1 + x), x = 0.5 t.
  EXPECT_NEAR(survival(fill, 0, 3.0), std::exp(-1.5) * 2.5, 1e-11);
}

TEST(ExitChainDeathTest, StateOutsideRegionAborts) {
  EXPECT_INTERNAL_ERROR(mean_exit_time(region_chain(2, 4, 0.8, 1.0), 5), "outside the region");
}

TEST(ExitChainDeathTest, NegativeRateAborts) {
  EXPECT_INTERNAL_ERROR(region_chain(0, 1, -0.1, 1.0), "lambda must be");
}

}  // namespace
}  // namespace fdsim::timeout
