// TimeoutTable: T_out = ceil_ns(quantile of the rounded chain) + allowance, cached.

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "models/timeout/spectral_exit.h"
#include "models/timeout/timeout_table.h"

namespace fdsim::timeout {
namespace {

TEST(RoundTo4Significant, KeepsFourDecimalDigits_HalfAwayFromZero) {
  EXPECT_EQ(round_4_significant(0.123456), (RoundedRate{1235, -4}));
  EXPECT_EQ(round_4_significant(0.8), (RoundedRate{8000, -4}));
  EXPECT_EQ(round_4_significant(1234.5), (RoundedRate{1235, 0}));  // exact tie: away from zero
  EXPECT_EQ(round_4_significant(1234.49), (RoundedRate{1234, 0}));
  EXPECT_EQ(round_4_significant(9999.6), (RoundedRate{1000, 1}));  // carries into a new decade
  EXPECT_EQ(round_4_significant(1000.0), (RoundedRate{1000, 0}));
  EXPECT_EQ(round_4_significant(2.5e-7), (RoundedRate{2500, -10}));
  EXPECT_EQ(round_4_significant(0.0), (RoundedRate{0, 0}));
  EXPECT_DOUBLE_EQ(round_4_significant(0.123456).value(), 0.1235);
  EXPECT_DOUBLE_EQ(round_4_significant(98765.4).value(), 98770.0);
}

// The rounding as it was first written (start from floor(log10(rate)) - 3, powers of ten by
// repeated multiplication): round_4_significant now starts from the binary exponent and reads
// the powers from a table, and must give the same (mantissa, exponent) for every rate, since
// the rounded rates are the T_out cache keys and the chain the quantile is computed on.
RoundedRate reference_round_4(double rate) {
  if (rate == 0) return RoundedRate{};
  auto pow10 = [](int k) {
    double p = 1;
    for (int i = 0; i < (k < 0 ? -k : k); ++i) p *= 10;
    return p;
  };
  int e = static_cast<int>(std::floor(std::log10(rate))) - 3;
  for (int tries = 0; tries < 4; ++tries) {
    const double scaled = e >= 0 ? rate / pow10(e) : rate * pow10(-e);
    const int64_t m = std::llround(scaled);
    if (m >= 10000) {
      if (m == 10000) return RoundedRate{1000, e + 1};
      ++e;
    } else if (m < 1000) {
      --e;
    } else {
      return RoundedRate{m, e};
    }
  }
  ADD_FAILURE() << "reference did not converge for " << rate;
  return RoundedRate{};
}

TEST(RoundTo4Significant, SameAsTheLog10StartForEveryRate) {
  std::vector<double> rates;
  // Every decade from 1e-30 to 1e30: the powers of ten, the carries (9999.5.., 999.95..) and
  // the ties, each with its neighbouring doubles.
  for (int d = -30; d <= 30; ++d) {
    for (double m : {1.0, 9.9995, 9.99949999, 9.99950001, 0.99995, 1.2345, 9.999999999999999}) {
      const double x = m * std::pow(10.0, d);
      rates.push_back(x);
      rates.push_back(std::nextafter(x, 0.0));
      rates.push_back(std::nextafter(x, 1e300));
    }
  }
  // Random rates over the same range (a fixed splitmix64 sequence).
  uint64_t state = 42;
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // Exact ties (k + 0.5, representable) and their neighbours where the mantissa is decided.
  for (int i = 0; i < 20000; ++i) {
    const double tie = double(999 + next() % 99001) + 0.5;
    rates.push_back(tie);
    rates.push_back(std::nextafter(tie, 0.0));
    rates.push_back(std::nextafter(tie, 1e300));
  }
  for (int i = 0; i < 200000; ++i) {
    const double u = double(next() >> 11) / 9007199254740992.0;  // [0, 1)
    rates.push_back(std::pow(10.0, -30 + 60 * u));
  }
  size_t differ = 0;
  for (double r : rates) {
    if (!(round_4_significant(r) == reference_round_4(r))) {
      ++differ;
      ADD_FAILURE() << "rate " << r;
      if (differ > 10) break;
    }
  }
  EXPECT_EQ(differ, 0u);
}

TEST(TimeoutTable, OracleRowU_TOutIsTheQuantilePlusAllowance) {
  TimeoutTable table;
  const ExitChain u = region_chain(0, 1, 0.8, 1.0);
  // The table computes the quantile spectrally (spectral_exit.h); exit_quantile (uniformization)
  // agrees to 1e-9 relative (spectral_exit_test.cpp), not to the nanosecond.
  const double q_s = spectral_quantile(u, 1, 0.05);  // 9.8073 s (docs/models/hou-shin-timeout.md)
  EXPECT_NEAR(q_s, 9.8073, 1e-4 * 9.8073);
  const Duration allowance = Duration::ms(120);
  const Duration t = table.t_out(u, 1, 0.05, allowance);
  EXPECT_EQ(t, Duration::ns(static_cast<int64_t>(std::ceil(q_s * 1e9))) + allowance);
  EXPECT_EQ(table.t_out(u, 1, 0.05, Duration::zero()) + allowance, t);
}

TEST(TimeoutTable, RepeatedQueries_ReturnIdenticalValuesAndDoNotGrowTheCache) {
  TimeoutTable table;
  const ExitChain m = region_chain(2, 4, 0.8, 1.0);
  const ExitChain top = top_region_chain(4, 0.8, 1.0);
  const Duration first_m = table.t_out(m, 2, 0.01, Duration::ms(5));
  const Duration first_top = table.t_out(top, 5, 0.01, Duration::ms(5));
  ASSERT_EQ(table.size(), 2u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(table.t_out(m, 2, 0.01, Duration::ms(5)), first_m);
    EXPECT_EQ(table.t_out(top, 5, 0.01, Duration::ms(5)), first_top);
    // The allowance is added outside the cache: it does not create entries either.
    EXPECT_EQ(table.t_out(m, 2, 0.01, Duration::ms(i)),
              first_m - Duration::ms(5) + Duration::ms(i));
  }
  EXPECT_EQ(table.size(), 2u);
}

TEST(TimeoutTable, RatesEqualTo4Digits_ShareOneEntryAndOneValue) {
  TimeoutTable table;
  const Duration a = table.t_out(region_chain(2, 4, 0.80001, 1.0), 2, 0.05, Duration::zero());
  const Duration b = table.t_out(region_chain(2, 4, 0.79996, 0.999998), 2, 0.05, Duration::zero());
  EXPECT_EQ(a, b);
  EXPECT_EQ(table.size(), 1u);
  // The value is that of the rounded chain (lambda = 0.8, mu = 1), not of the first query.
  const double q = spectral_quantile(region_chain(2, 4, 0.8, 1.0), 2, 0.05);
  EXPECT_EQ(a, Duration::ns(static_cast<int64_t>(std::ceil(q * 1e9))));
  // A change in the 4th digit is a new entry with a different value.
  const Duration c = table.t_out(region_chain(2, 4, 0.8010, 1.0), 2, 0.05, Duration::zero());
  EXPECT_EQ(table.size(), 2u);
  EXPECT_LT(c, a);  // more arrivals: the upward exit comes sooner
}

TEST(TimeoutTable, KeyDistinguishesRegionStateAndAlpha) {
  TimeoutTable table;
  const ExitChain m = region_chain(2, 4, 0.8, 1.0);
  const Duration s2 = table.t_out(m, 2, 0.05, Duration::zero());
  const Duration s3 = table.t_out(m, 3, 0.05, Duration::zero());
  const Duration s2_strict = table.t_out(m, 2, 0.01, Duration::zero());
  const Duration u = table.t_out(region_chain(0, 1, 0.8, 1.0), 1, 0.05, Duration::zero());
  EXPECT_EQ(table.size(), 4u);
  EXPECT_GT(s3, s2);         // the middle state is farthest from both exits
  EXPECT_GT(s2_strict, s2);  // a smaller false-suspicion bound needs a longer timeout
  EXPECT_GT(u, s2);          // matches the oracle table: 9.8073 s vs 5.1013 s
}

TEST(TimeoutTable, UnreachableExit_NeverSuspects) {
  TimeoutTable table;
  EXPECT_EQ(table.t_out(region_chain(0, 1, 0.0, 1.0), 1, 0.05, Duration::ms(10)), Duration::max());
  // A rate so small that the quantile is beyond the Duration range saturates as well.
  EXPECT_EQ(table.t_out(region_chain(0, 1, 1e-12, 1.0), 1, 0.05, Duration::ms(10)),
            Duration::max());
}

}  // namespace
}  // namespace fdsim::timeout
