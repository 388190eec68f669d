// TimeoutTable: T_out = ceil_ns(quantile of the rounded chain) + allowance, cached.

#include <cmath>

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
