// GammaRateEstimator: conjugate Gamma posterior with a forgetting factor (docs/models/load-sharing.md, "On-line estimators").

#include <cmath>

#include <gtest/gtest.h>

#include "tests/support/internal_error.h"
#include "models/timeout/gamma_estimator.h"
#include "sim/engine/rng.h"

namespace fdsim::timeout {
namespace {

TEST(GammaRateEstimator, SpecExample_Prior2_2p5_45ArrivalsIn50) {
  GammaRateEstimator e(2.0, 2.5);
  e.observe(45, 50.0);
  EXPECT_DOUBLE_EQ(e.shape(), 47.0);
  EXPECT_DOUBLE_EQ(e.rate(), 52.5);
  EXPECT_NEAR(e.mean(), 0.895238, 1e-6);
  EXPECT_NEAR(e.sd(), 0.130584, 1e-6);
}

TEST(GammaRateEstimator, ExecutionRateUpdate_IsGammaC0PlusND0PlusX) {
  GammaRateEstimator mu(1.0, 1.0);
  mu.observe(10, 8.0);  // 10 completions, 8 s of total execution
  EXPECT_DOUBLE_EQ(mu.mean(), 11.0 / 9.0);
}

TEST(GammaRateEstimator, NoForgetting_SequentialUpdatesEqualOneBatchUpdate) {
  GammaRateEstimator seq(2.0, 2.5, 1.0);
  const double counts[] = {3, 0, 7, 1, 34};
  const double exposures[] = {4.0, 2.5, 10.0, 1.5, 32.0};
  for (int i = 0; i < 5; ++i) seq.observe(counts[i], exposures[i]);
  seq.observe_exposure(0.0);  // a zero-length exposure changes nothing
  GammaRateEstimator batch(2.0, 2.5, 1.0);
  batch.observe(45, 50.0);
  EXPECT_DOUBLE_EQ(seq.shape(), batch.shape());
  EXPECT_DOUBLE_EQ(seq.rate(), batch.rate());
}

TEST(GammaRateEstimator, ForgettingAppliesToTheOldPosteriorBeforeEachUpdate) {
  GammaRateEstimator e(2.0, 2.5, 0.5);
  e.observe(3, 2.0);  // decay 0.25: a = 0.5 + 3, b = 0.625 + 2
  EXPECT_DOUBLE_EQ(e.shape(), 3.5);
  EXPECT_DOUBLE_EQ(e.rate(), 2.625);
  e.observe_exposure(1.0);  // decay 0.5, no events
  EXPECT_DOUBLE_EQ(e.shape(), 1.75);
  EXPECT_DOUBLE_EQ(e.rate(), 2.3125);
}

// Rate 1/s for 200 s, then 3/s for 200 s, fed as the expected count per 1 s step. With w = 0.95
// the weight of evidence older than 200 s is 0.95^200 = 3.5e-5, so the estimate is 3 up to
// that: |mean - 3| <= 2 * 3.5e-5 * 3 (old rate and prior both below 3). Without forgetting the
// estimate is exactly (2 + 200 + 600) / (2.5 + 400).
TEST(GammaRateEstimator, Forgetting_TracksARateChange_NoForgettingAveragesIt) {
  GammaRateEstimator forget(2.0, 2.5, 0.95);
  GammaRateEstimator keep(2.0, 2.5, 1.0);
  for (int s = 0; s < 400; ++s) {
    const double rate = s < 200 ? 1.0 : 3.0;
    forget.observe(rate, 1.0);
    keep.observe(rate, 1.0);
  }
  EXPECT_NEAR(forget.mean(), 3.0, 2 * std::pow(0.95, 200) * 3.0);
  EXPECT_NEAR(keep.mean(), 802.0 / 402.5, 1e-12);
  // The posterior's effective exposure stays bounded by the memory: b -> 1 / (1 - w) = 20 s.
  EXPECT_NEAR(forget.rate(), 1 / (1 - 0.95), 1e-3);
}

// The same with Poisson counts from fdsim::Rng. At the end the shape is a weighted count with
// weights w^u over the last steps (rate 3): variance 3 sum w^{2u} = 3 / (1 - w^2) = 30.8, over a
// rate b = 1 / (1 - w) = 20, so the estimate's sd is sqrt(30.8) / 20 = 0.28; tolerance 4 sd.
// The no-forgetting estimate (about 2) is outside that band.
TEST(GammaRateEstimator, Forgetting_TracksARateChangeWithPoissonCounts) {
  Rng rng = RngFactory(7, 0).stream(0, "timeout.gamma");
  GammaRateEstimator forget(2.0, 2.5, 0.95);
  GammaRateEstimator keep(2.0, 2.5, 1.0);
  for (int s = 0; s < 400; ++s) {
    const double k = static_cast<double>(rng.poisson(s < 200 ? 1.0 : 3.0));
    forget.observe(k, 1.0);
    keep.observe(k, 1.0);
  }
  EXPECT_NEAR(forget.mean(), 3.0, 4 * std::sqrt(3.0 / (1 - 0.95 * 0.95)) / 20.0);
  // Without forgetting: mean of the two phases, sd sqrt(800) / 402.5 = 0.07.
  EXPECT_NEAR(keep.mean(), 802.0 / 402.5, 4 * std::sqrt(800.0) / 402.5);
}

TEST(GammaRateEstimatorDeathTest, InvalidArgumentsAbort) {
  EXPECT_INTERNAL_ERROR(GammaRateEstimator(0.0, 1.0), "prior shape");
  EXPECT_INTERNAL_ERROR(GammaRateEstimator(1.0, 1.0, 1.5), "forgetting factor");
  GammaRateEstimator e(1.0, 1.0);
  EXPECT_INTERNAL_ERROR(e.observe(-1, 1.0), "count");
}

}  // namespace
}  // namespace fdsim::timeout
