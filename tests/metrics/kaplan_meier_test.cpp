// The shared Kaplan-Meier estimator (models/metrics/kaplan_meier.h) on hand-computed samples.
#include <gtest/gtest.h>

#include <cmath>

#include "models/metrics/kaplan_meier.h"

namespace fdsim::metrics {
namespace kaplan_meier_test {

// Events {1, 2, 2, 4}, one duration censored at 3: n = 5 at t = 1 (S = 4/5), 4 at t = 2 (two
// events: S = 4/5 * 2/4 = 0.4), the censored one leaves at 3, 1 at risk at t = 4 (S = 0).
TEST(KaplanMeier, TextbookSample) {
  const KaplanMeier km({4, 2, 1, 2}, {3});
  EXPECT_DOUBLE_EQ(km.survival(0.5), 1.0);
  EXPECT_DOUBLE_EQ(km.survival(1.0), 0.8);
  EXPECT_DOUBLE_EQ(km.survival(2.5), 0.4);
  EXPECT_DOUBLE_EQ(km.survival(3.5), 0.4);
  EXPECT_DOUBLE_EQ(km.survival(4.0), 0.0);
  EXPECT_DOUBLE_EQ(km.cdf(3.0), 0.6);
  EXPECT_DOUBLE_EQ(km.median(), 2.0);
}

TEST(KaplanMeier, CensoringAtAnEventTimeStaysAtRisk_AndHeavyCensoringHasNoMedian) {
  // Event at 2 with the censored duration 2 still at risk: S(2) = 1 - 1/2.
  EXPECT_DOUBLE_EQ(KaplanMeier({2}, {2}).survival(2.0), 0.5);
  const KaplanMeier heavy({1}, {5, 5, 5});
  EXPECT_DOUBLE_EQ(heavy.survival(1.0), 0.75);
  EXPECT_TRUE(std::isnan(heavy.median()));
  EXPECT_TRUE(std::isnan(KaplanMeier({}, {}).survival(1.0)));
  EXPECT_TRUE(std::isnan(KaplanMeier({}, {}).median()));
  // Only censored durations: nothing was ever detected, S = 1 everywhere, no median.
  const KaplanMeier none({}, {1, 2});
  EXPECT_DOUBLE_EQ(none.cdf(10.0), 0.0);
  EXPECT_TRUE(std::isnan(none.median()));
}

// Ignoring the censored durations would give S(2) = 1/2 and a median of 2; keeping them at risk
// until they leave gives S(2) = 1 - 1/4 and S(4) = 3/4 * (1 - 1/2) = 3/8, median 4.
TEST(KaplanMeier, CensoredDurationsStayAtRiskUntilTheyLeave) {
  const KaplanMeier km({2, 4}, {3, 5});
  EXPECT_DOUBLE_EQ(km.survival(2.0), 0.75);
  EXPECT_DOUBLE_EQ(km.survival(3.9), 0.75);
  EXPECT_DOUBLE_EQ(km.survival(4.0), 0.375);
  EXPECT_DOUBLE_EQ(km.survival(100.0), 0.375);
  EXPECT_DOUBLE_EQ(km.median(), 4.0);
}

}  // namespace kaplan_meier_test
}  // namespace fdsim::metrics
