// Latency models: draws follow the distribution that mean_ms()/quantile_ms() describe. Oracles
// are the closed-form CDFs written out here (independent of the code under test); tolerances
// come from the sample size (KS critical value, standard error of the mean).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "tests/support/internal_error.h"
#include "sim/net/latency.h"

namespace fdsim::net {
namespace {

constexpr int kN = 40000;
// Kolmogorov-Smirnov critical value at level 0.001 is 1.949 / sqrt(n).
const double kKsCritical = 1.949 / std::sqrt(double(kN));

std::vector<double> sample(const LatencyModel& m, uint64_t seed, int n = kN) {
  Rng rng = RngFactory(seed, 0).stream(0, "net.latency");
  std::vector<double> v(n);
  for (double& x : v) x = m.draw(rng).millis();
  return v;
}

double ks_statistic(std::vector<double> v, const std::function<double(double)>& cdf) {
  std::sort(v.begin(), v.end());
  double d = 0;
  const double n = double(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, std::fabs(double(i + 1) / n - f), std::fabs(f - double(i) / n)});
  }
  return d;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

double phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Checks one model against its CDF and its exact standard deviation.
void check_model(const LatencyModel& m, const std::function<double(double)>& cdf, double sd,
                 double expected_mean, double expected_min) {
  EXPECT_NEAR(m.mean_ms(), expected_mean, 1e-12 * std::max(1.0, expected_mean));
  EXPECT_DOUBLE_EQ(m.min_ms(), expected_min);
  EXPECT_FALSE(m.deterministic());
  for (double p : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999})
    EXPECT_NEAR(cdf(m.quantile_ms(p)), p, 1e-9) << "p = " << p;
  const std::vector<double> v = sample(m, 11);
  EXPECT_LT(ks_statistic(v, cdf), kKsCritical);
  EXPECT_NEAR(mean_of(v), m.mean_ms(), 4.5 * sd / std::sqrt(double(kN)));
  EXPECT_GE(*std::min_element(v.begin(), v.end()), expected_min - 1e-6);
}

TEST(Latency, Constant_DrawsExactlyTheValueToTheNanosecond) {
  auto m = constant_latency(1.5);
  Rng rng(1);
  EXPECT_EQ(m->draw(rng), Duration::us(1500));
  EXPECT_TRUE(m->deterministic());
  EXPECT_DOUBLE_EQ(m->mean_ms(), 1.5);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.99), 1.5);
  EXPECT_DOUBLE_EQ(m->min_ms(), 1.5);
  // A deterministic model does not touch the stream.
  Rng fresh(1);
  EXPECT_EQ(rng.uniform01(), fresh.uniform01());
}

TEST(Latency, Uniform_MatchesItsCdfAndMean) {
  const double a = 2, b = 7;
  auto m = uniform_latency(a, b);
  check_model(
      *m, [&](double x) { return std::clamp((x - a) / (b - a), 0.0, 1.0); },
      (b - a) / std::sqrt(12.0), (a + b) / 2, a);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.5), 4.5);
}

TEST(Latency, Exponential_IsMinimumPlusExponentialWithTheGivenMean) {
  const double a = 0.5, mean = 3;
  auto m = exponential_latency(a, mean);
  check_model(
      *m, [&](double x) { return x <= a ? 0.0 : 1 - std::exp(-(x - a) / (mean - a)); }, mean - a,
      mean, a);
  EXPECT_NEAR(m->quantile_ms(0.5), a + (mean - a) * std::log(2.0), 1e-12);
}

TEST(Latency, Lognormal_MedianIsTheMedianOfTheWholeDelay) {
  const double a = 1, median = 4, sigma = 0.6;
  const double mu = std::log(median - a);
  auto m = lognormal_latency(a, median, sigma);
  const double mean_tail = std::exp(mu + sigma * sigma / 2);
  const double sd = std::sqrt((std::exp(sigma * sigma) - 1) * std::exp(2 * mu + sigma * sigma));
  check_model(
      *m, [&](double x) { return x <= a ? 0.0 : phi((std::log(x - a) - mu) / sigma); }, sd,
      a + mean_tail, a);
  EXPECT_NEAR(m->quantile_ms(0.5), median, 1e-12);
  // The 97.5 % point of N(0,1) is 1.959963984540054.
  EXPECT_NEAR(m->quantile_ms(0.975), a + std::exp(mu + sigma * 1.959963984540054), 1e-9);
}

TEST(Latency, Pareto_ScaleIsTheMinimumAndTheMeanIsAlphaOverAlphaMinusOne) {
  const double xm = 2, alpha = 4.5;  // finite fourth moment: the sample mean is well behaved
  auto m = pareto_latency(xm, alpha);
  const double sd = xm * std::sqrt(alpha / ((alpha - 1) * (alpha - 1) * (alpha - 2)));
  check_model(
      *m, [&](double x) { return x <= xm ? 0.0 : 1 - std::pow(xm / x, alpha); }, sd,
      alpha * xm / (alpha - 1), xm);
}

TEST(Latency, Empirical_QuantilesInvertTheEmpiricalCdf) {
  auto m = empirical_latency({3, 1, 10, 2, 2});  // sorted: 1 2 2 3 10
  EXPECT_DOUBLE_EQ(m->mean_ms(), 3.6);
  EXPECT_DOUBLE_EQ(m->min_ms(), 1);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.2), 1);   // F(1) = 0.2 exactly
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.21), 2);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.6), 2);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.61), 3);
  EXPECT_DOUBLE_EQ(m->quantile_ms(0.99), 10);
  EXPECT_FALSE(m->deterministic());
  // Every sample is drawn with probability 1/5 (the value 2 with 2/5).
  const std::vector<double> v = sample(*m, 5, 20000);
  int twos = 0, tens = 0;
  for (double x : v) {
    twos += x == 2;
    tens += x == 10;
    ASSERT_TRUE(x == 1 || x == 2 || x == 3 || x == 10) << x;
  }
  const double n = double(v.size());
  EXPECT_NEAR(twos / n, 0.4, 4.5 * std::sqrt(0.4 * 0.6 / n));
  EXPECT_NEAR(tens / n, 0.2, 4.5 * std::sqrt(0.2 * 0.8 / n));
}

TEST(Latency, DegenerateModelsAreDeterministic) {
  EXPECT_TRUE(uniform_latency(3, 3)->deterministic());
  EXPECT_TRUE(lognormal_latency(1, 3, 0)->deterministic());
  EXPECT_DOUBLE_EQ(lognormal_latency(1, 3, 0)->quantile_ms(0.5), 3);
  EXPECT_TRUE(empirical_latency({4, 4})->deterministic());
}

TEST(Latency, SameStreamSameDraws) {
  auto m = exponential_latency(1, 5);
  EXPECT_EQ(sample(*m, 3, 100), sample(*m, 3, 100));
  EXPECT_NE(sample(*m, 3, 100), sample(*m, 4, 100));
}

TEST(LatencyDeathTest, OutOfDomainParametersAbort) {
  EXPECT_INTERNAL_ERROR(pareto_latency(1, 1.0), "alpha");
  EXPECT_INTERNAL_ERROR(exponential_latency(2, 2), "mean_ms");
  EXPECT_INTERNAL_ERROR(uniform_latency(3, 2), "min_ms");
  EXPECT_INTERNAL_ERROR(empirical_latency({}), "no samples");
}

}  // namespace
}  // namespace fdsim::net
