// Student t quantiles against published tables, and the summary of a hand-computed sample.
#include <cmath>

#include <gtest/gtest.h>

#include "sim/sweep/stats.h"

namespace fdsim::sweep {
namespace {

TEST(StudentT, QuantilesMatchPublishedTables) {
  // The four values of the brief (4 decimals), then more digits from R's qt().
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062, 5e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.7764, 5e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 29), 2.0452, 5e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.9623, 5e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062047362, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.30265272975, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.26215716280, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 10), 3.16927267262, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 3), 2.35336343480, 1e-8);
}

TEST(StudentT, LargeDegreesOfFreedomTendToTheNormalQuantile) {
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.959966, 2e-6);
}

TEST(StudentT, CdfOfCauchyIsExact) {
  // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi.
  for (double t : {-3.0, -0.5, 0.0, 1.0, 10.0})
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12) << t;
}

TEST(Summary, HandComputedSample) {
  // 1..5: mean 3, sample variance 10/4 = 2.5, half-width t_{0.975,4} sqrt(2.5/5).
  const Summary s = summarize({1, 2, 3, 4, 5});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(*s.mean, 3.0);
  EXPECT_DOUBLE_EQ(*s.sd, std::sqrt(2.5));
  EXPECT_NEAR(*s.ci95_half_width, 2.776445105 * std::sqrt(0.5), 1e-8);
  EXPECT_NEAR(*s.ci95_half_width, 1.963243, 1e-6);
}

TEST(Summary, OneValueHasNoSpreadAndNoValueHasNoMean) {
  const Summary one = summarize({4.5});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(*one.mean, 4.5);
  EXPECT_FALSE(one.sd.has_value());
  EXPECT_FALSE(one.ci95_half_width.has_value());
  const Summary none = summarize({});
  EXPECT_EQ(none.n, 0u);
  EXPECT_FALSE(none.mean.has_value());
}

}  // namespace
}  // namespace fdsim::sweep
