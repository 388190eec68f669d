#include "tests/loadsharing/test_time.h"
#include "models/loadsharing/estimators.h"

#include <gtest/gtest.h>

namespace fdsim::loadsharing {
namespace {


// docs/models/load-sharing.md, "On-line estimators": prior Gamma(2, 2.5), 45 arrivals in 50 time units -> mean 0.895238.
TEST(NodeEstimators, ArrivalRatePosteriorMatchesTheConjugateUpdate) {
  EstimationConfig c;
  c.arrival_prior_shape = 2.0;
  c.arrival_prior_exposure_s = 2.5;
  NodeEstimators e(c, at_s(0), Region::U);
  for (int k = 1; k <= 45; ++k) e.on_arrival(at_s(k * 50.0 / 46.0));
  const Estimates est = e.snapshot(at_s(50));
  EXPECT_NEAR(est.lambda_per_s, 47.0 / 52.5, 1e-12);  // 0.895238
  EXPECT_NEAR(est.lambda_per_s, 0.895238, 1e-6);
}

TEST(NodeEstimators, ExecutionRateCountsCompletionsOverServiceTime) {
  EstimationConfig c;
  c.execution_prior_shape = 1.0;
  c.execution_prior_exposure_s = 1.0;
  NodeEstimators e(c, at_s(0), Region::U);
  e.on_completion(Duration::s(2));
  e.on_completion(Duration::s(3));
  e.on_completion(Duration::s(4));
  EXPECT_DOUBLE_EQ(e.mu_mean_per_s(), (1.0 + 3.0) / (1.0 + 9.0));
  EXPECT_DOUBLE_EQ(e.snapshot(at_s(100)).mu_per_s, 0.4);
}

// Region input rates count joins while in the region over the time spent in it.
TEST(NodeEstimators, RegionInputRatesUseOnlyTheTimeSpentInEachRegion) {
  EstimationConfig c;  // priors Gamma(1, 1)
  NodeEstimators e(c, at_s(0), Region::U);
  e.on_join(at_s(1));
  e.on_join(at_s(3));                      // 2 joins in U over [0, 3] ...
  e.on_region_change(at_s(4), Region::M);  // ... and 4 s in U
  e.on_join(at_s(5));
  e.on_join(at_s(5.5));
  e.on_join(at_s(6));  // 3 joins in M over [4, 6]
  e.on_region_change(at_s(6), Region::O);
  const Estimates est = e.snapshot(at_s(16));  // 10 s in O, no join
  EXPECT_DOUBLE_EQ(est.region_input_per_s[0], (1.0 + 2.0) / (1.0 + 4.0));
  EXPECT_DOUBLE_EQ(est.region_input_per_s[1], (1.0 + 3.0) / (1.0 + 2.0));
  EXPECT_DOUBLE_EQ(est.region_input_per_s[2], 1.0 / (1.0 + 10.0));
  EXPECT_DOUBLE_EQ(est.lambda_per_s, 1.0 / 17.0);  // no external arrival was reported
}

}  // namespace
}  // namespace fdsim::loadsharing
