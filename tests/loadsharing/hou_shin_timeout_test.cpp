#include "models/loadsharing/hou_shin_timeout.h"

#include <gtest/gtest.h>

namespace fdsim::loadsharing {
namespace {

Broadcast reported(Region r, int64_t ql, double lambda_r, double mu) {
  Broadcast b;
  b.region = r;
  b.queue_length = ql;
  b.load = double(ql);
  b.estimates.mu_per_s = mu;
  b.estimates.region_input_per_s = {lambda_r, lambda_r, lambda_r};
  return b;
}

// The oracle table of docs/models/hou-shin-timeout.md (lambda = 0.8, mu = 1, TH_u = 1, TH_f = 4, no
// allowance): T_out is given to 4 decimals there, so the tolerance is 1e-3 s.
TEST(HouShinTimeout, ReproducesTheSpecOracleTable) {
  timeout::TimeoutTable table;
  const RegionThresholds th{1, 4};
  auto t_out = [&](Region r, int64_t s0, double alpha) {
    return hou_shin_timeout(table, reported(r, s0, 0.8, 1.0), th, LoadIndex::ql, alpha,
                            Duration::zero())
        .seconds();
  };
  EXPECT_NEAR(t_out(Region::U, 1, 0.05), 9.8073, 1e-3);
  EXPECT_NEAR(t_out(Region::U, 1, 0.01), 15.6533, 1e-3);
  EXPECT_NEAR(t_out(Region::M, 2, 0.05), 5.1013, 1e-3);
  EXPECT_NEAR(t_out(Region::M, 2, 0.01), 8.1087, 1e-3);
}

TEST(HouShinTimeout, AllowanceIsAddedAndRegionsMapToTheirChains) {
  timeout::TimeoutTable table;
  const RegionThresholds th{1, 4};
  const Broadcast b = reported(Region::M, 3, 0.8, 1.0);
  const Duration base = hou_shin_timeout(table, b, th, LoadIndex::ql, 0.05, Duration::zero());
  EXPECT_EQ(hou_shin_timeout(table, b, th, LoadIndex::ql, 0.05, Duration::ms(7)),
            base + Duration::ms(7));
  int64_t s0 = -1;
  timeout::ExitChain c = exit_chain_for(b, th, LoadIndex::ql, &s0);
  EXPECT_EQ(c.lo, 2);
  EXPECT_EQ(c.hi, 4);
  EXPECT_FALSE(c.reflecting_top);
  EXPECT_EQ(s0, 3);
  // O is truncated with a reflecting top; a load beyond the truncation is clamped into it.
  c = exit_chain_for(reported(Region::O, 500, 0.8, 1.0), th, LoadIndex::ql, &s0);
  EXPECT_EQ(c.lo, 5);
  EXPECT_TRUE(c.reflecting_top);
  EXPECT_EQ(s0, c.hi);
  c = exit_chain_for(reported(Region::U, 0, 0.8, 1.0), th, LoadIndex::ql, &s0);
  EXPECT_EQ(c.lo, 0);
  EXPECT_EQ(c.hi, 1);
  EXPECT_EQ(s0, 0);
}

}  // namespace
}  // namespace fdsim::loadsharing
