// The fast path of T_out (spectral_exit.h) against the reference computations of exit_chain.h
// (uniformization) and Eigen's Pade matrix exponential, and the lossy silence chain
// (silence_chain.h) against the matrix exponential and a Monte Carlo of lossy broadcasts.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <unsupported/Eigen/MatrixFunctions>

#include "models/timeout/exit_chain.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/timeout_table.h"
#include "sim/engine/rng.h"

namespace fdsim::timeout {
namespace spectral_exit_test {

std::vector<std::pair<ExitChain, int64_t>> chains() {
  return {
      {region_chain(0, 1, 0.8, 1.0), 1},      {region_chain(0, 1, 0.8, 1.0), 0},
      {region_chain(2, 4, 0.8, 1.0), 2},      {region_chain(2, 4, 0.8, 1.0), 4},
      {top_region_chain(4, 0.8, 1.0), 5},     {top_region_chain(4, 0.95, 1.0), 7},
      {top_region_chain(4, 0.99, 1.0), 5},    {region_chain(2, 4, 40.0, 50.0), 2},
      {top_region_chain(4, 400.0, 500.0), 5}, {region_chain(1, 3, 0.05, 2.0), 2},
      {region_chain(0, 1, 1e-3, 1.0), 1},     {top_region_chain(4, 0.6, 1.0), 20},
  };
}

TEST(SpectralExit, SurvivalMatchesUniformization_To1e10) {
  for (const auto& [chain, s0] : chains()) {
    const SpectralExit e(chain, s0);
    ASSERT_TRUE(e.usable()) << describe(chain);
    if (!e.accurate()) continue;  // tested below: the fallback
    for (double t : {0.0, 0.01, 0.3, 1.0, 5.0, 10.0, 37.5, 200.0}) {
      EXPECT_NEAR(e.survival(t), survival(chain, s0, t), 1e-10)
          << describe(chain) << " s0 " << s0 << " t " << t;
    }
  }
}

// The quantile is the same number as exit_quantile's to 1e-9 relative (both bracket the root to
// that width or better), and keeps the defining property S(q) <= alpha < S(q (1 - 1e-7)).
TEST(SpectralExit, QuantileMatchesExitQuantile_To1e9Relative) {
  for (const auto& [chain, s0] : chains()) {
    for (double alpha : {0.5, 0.2, 0.05, 0.01, 1e-4}) {
      const double want = exit_quantile(chain, s0, alpha);
      const double got = spectral_quantile(chain, s0, alpha);
      EXPECT_NEAR(got, want, 1e-9 * want) << describe(chain) << " s0 " << s0 << " " << alpha;
      EXPECT_LE(survival(chain, s0, got), alpha + 1e-11) << describe(chain) << " " << alpha;
      EXPECT_GT(survival(chain, s0, got * (1 - 1e-7)), alpha) << describe(chain) << " " << alpha;
    }
  }
}

TEST(SpectralExit, SpecSectionFTable_ThroughTheTimeoutTable) {
  TimeoutTable table;
  EXPECT_NEAR(table.quantile_s(region_chain(0, 1, 0.8, 1.0), 1, 0.05), 9.8073, 1e-4 * 9.8073);
  EXPECT_NEAR(table.quantile_s(region_chain(0, 1, 0.8, 1.0), 1, 0.01), 15.6533, 1e-4 * 15.6533);
  EXPECT_NEAR(table.quantile_s(region_chain(2, 4, 0.8, 1.0), 2, 0.05), 5.1013, 1e-4 * 5.1013);
  EXPECT_NEAR(table.quantile_s(region_chain(2, 4, 0.8, 1.0), 2, 0.01), 8.1087, 1e-4 * 8.1087);
}

// lambda > mu in the top region: from its bottom, the sum of exponentials would lose about
// (lambda / mu)^20 * 1e-16 to cancellation; spectral_quantile uses uniformization there.
TEST(SpectralExit, IllConditionedStartStates_FallBackToUniformization) {
  // lambda / mu = 1.6: the scale grows by 1.6^20 = 1.2e4 from the bottom to the top.
  const ExitChain c = top_region_chain(2, 1.6, 1.0);
  EXPECT_TRUE(SpectralExit(c, 3).usable());
  EXPECT_FALSE(SpectralExit(c, 3).accurate());
  EXPECT_TRUE(SpectralExit(c, 43).accurate());  // the top state has the largest scale
  EXPECT_DOUBLE_EQ(spectral_quantile(c, 3, 0.05), exit_quantile(c, 3, 0.05));
  // lambda / mu = 3: the slowest mode is ~1e-15 / s, lost in rounding: not even usable.
  const ExitChain steep = top_region_chain(2, 3.0, 1.0);
  EXPECT_FALSE(SpectralExit(steep, 3).accurate());
  EXPECT_DOUBLE_EQ(spectral_quantile(steep, 3, 0.05), exit_quantile(steep, 3, 0.05));
  // From the top of {5..45} with lambda = 0.6 (decreasing scale) the spread is (1/0.6)^20: the
  // bottom is accurate, the top is not.
  const ExitChain low = top_region_chain(4, 0.6, 1.0);
  EXPECT_TRUE(SpectralExit(low, 5).accurate());
  EXPECT_FALSE(SpectralExit(low, 45).accurate());
}

TEST(SpectralExit, DecoupledOrUnreachableChains_FallBack) {
  // lambda = 0 in {0, 1}: the exit is unreachable, +infinity as before.
  EXPECT_FALSE(SpectralExit(region_chain(0, 1, 0.0, 1.0), 1).usable());
  EXPECT_TRUE(std::isinf(spectral_quantile(region_chain(0, 1, 0.0, 1.0), 1, 0.05)));
  // mu = 0 in {2..4}: decoupled, uniformization answers.
  const ExitChain c = region_chain(2, 4, 0.8, 0.0);
  EXPECT_FALSE(SpectralExit(c, 2).usable());
  EXPECT_DOUBLE_EQ(spectral_quantile(c, 2, 0.05), exit_quantile(c, 2, 0.05));
}

// ------------------------------------------------------------------------------------------
// The silence under loss.

SilenceChain lossy(double loss) {
  SilenceChain c;
  c.th_u = 1;
  c.th_f = 4;
  c.lambda = {0.9, 0.75, 0.6};
  c.mu = 1.0;
  c.loss = loss;
  return c;
}

// Dense Q~ of silence_chain.h built independently, and e_s0' expm(Q~ t) 1.
double expm_silence(const SilenceChain& c, int64_t s0, double t) {
  const int64_t n = c.top() + 1;
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (int64_t s = 0; s < n; ++s) {
    const double birth = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
    const double death = s >= 1 ? c.mu : 0.0;
    q(s, s) = -(birth + death);
    if (s + 1 < n) q(s, s + 1) = birth * (c.region_of(s) == c.region_of(s + 1) ? 1.0 : c.loss);
    if (s >= 1) q(s, s - 1) = death * (c.region_of(s) == c.region_of(s - 1) ? 1.0 : c.loss);
  }
  return (q * t).exp().row(s0).sum();
}

TEST(SilenceChain, ZeroLossIsTheRegionExitTime) {
  const SilenceChain c = lossy(0.0);
  for (int64_t s0 : {0, 1, 2, 4, 5, 9}) {
    const ExitChain r = region_chain_of(c, s0);
    for (double t : {0.5, 3.0, 12.0}) EXPECT_DOUBLE_EQ(silence_survival(c, s0, t), survival(r, s0, t));
    EXPECT_DOUBLE_EQ(silence_quantile(c, s0, 0.05), spectral_quantile(r, s0, 0.05));
  }
}

TEST(SilenceChain, LossyMatchesMatrixExponential_AndExceedsTheLosslessLaw) {
  for (double loss : {0.02, 0.2}) {
    const SilenceChain c = lossy(loss);
    for (int64_t s0 : {0, 1, 2, 5}) {
      for (double t : {0.5, 3.0, 12.0, 40.0}) {
        EXPECT_NEAR(silence_survival(c, s0, t), expm_silence(c, s0, t), 1e-10)
            << "loss " << loss << " s0 " << s0 << " t " << t;
        EXPECT_GT(silence_survival(c, s0, t), silence_survival(lossy(0.0), s0, t));
      }
      const double q = silence_quantile(c, s0, 0.01);
      EXPECT_NEAR(expm_silence(c, s0, q), 0.01, 1e-9) << "loss " << loss << " s0 " << s0;
    }
  }
}

// Monte Carlo of the thing itself: a queue with region-dependent input, every region change
// broadcast and lost with probability `loss`; the silence ends at the first broadcast that
// arrives. 1e5 paths, 4 standard errors.
TEST(SilenceChain, MatchesMonteCarloOfLossyBroadcasts) {
  const SilenceChain c = lossy(0.2);
  const int64_t s0 = 2;
  const std::vector<double> times = {1.0, 4.0, 10.0};
  constexpr int kPaths = 100000;
  Rng rng = RngFactory(77, 0).stream(0, "test.silence");
  std::vector<int> alive(times.size(), 0);
  for (int i = 0; i < kPaths; ++i) {
    int64_t s = s0;
    double t = 0;
    for (;;) {
      const double birth = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
      const double death = s >= 1 ? c.mu : 0.0;
      t += rng.exponential(birth + death);
      if (t > times.back()) break;
      const int64_t next = rng.uniform01() * (birth + death) < birth ? s + 1 : s - 1;
      const bool change = c.region_of(next) != c.region_of(s);
      s = next;
      if (change && rng.uniform01() >= c.loss) break;  // a broadcast got through
    }
    for (size_t j = 0; j < times.size(); ++j) alive[j] += t > times[j] ? 1 : 0;
  }
  for (size_t j = 0; j < times.size(); ++j) {
    const double p = silence_survival(c, s0, times[j]);
    EXPECT_NEAR(double(alive[j]) / kPaths, p, 4 * std::sqrt(p * (1 - p) / kPaths)) << times[j];
  }
}

TEST(SilenceChain, TimeoutTableCachesByRoundedRatesAndLoss) {
  TimeoutTable table;
  const SilenceChain c = lossy(0.02);
  const double q = table.quantile_s(c, 1, 0.01);
  EXPECT_DOUBLE_EQ(q, silence_quantile(c, 1, 0.01));
  SilenceChain near = c;
  near.lambda[0] = 0.90000001;  // equal to 4 digits: the same entry
  EXPECT_EQ(table.quantile_s(near, 1, 0.01), q);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_GT(table.quantile_s(lossy(0.05), 1, 0.01), q);
  EXPECT_EQ(table.size(), 2u);
}

}  // namespace spectral_exit_test
}  // namespace fdsim::timeout

namespace fdsim::timeout {
namespace spectral_exit_test {

// The lower bound the model arms its timers at (TimeoutTable::quantile_lower_bound_s) is never
// above the exact quantile, is within 1e-6 of it for a small region (closed form,
// closed_form_exit.h), and is close to it in the usual case of the top region (entered at its
// bottom: above 40% of it here; the deeper the tail, the looser).
TEST(TimeoutTableLowerBound, NeverAboveTheQuantile_TightForSmallRegions) {
  TimeoutTable table;
  for (double lambda : {0.3, 0.8, 0.95, 1.2}) {
    for (int64_t s0 : {5, 6, 9, 20, 45}) {
      const ExitChain top = top_region_chain(4, lambda, 1.0);
      for (double alpha : {0.05, 0.01}) {
        const TimeoutTable::Bound b = table.quantile_lower_bound_s(top, s0, alpha);
        const double q = table.quantile_s(top, s0, alpha);
        EXPECT_FALSE(b.exact);
        EXPECT_LE(b.q_s, q) << describe(top) << " s0 " << s0 << " alpha " << alpha;
        if (s0 == 5 && lambda <= 0.8) {
          EXPECT_GT(b.q_s, 0.4 * q) << describe(top);
        }
      }
    }
  }
  const ExitChain m = region_chain(2, 4, 0.8, 1.0);
  const TimeoutTable::Bound small = table.quantile_lower_bound_s(m, 2, 0.05);
  EXPECT_FALSE(small.exact);
  EXPECT_LE(small.q_s, table.quantile_s(m, 2, 0.05));
  EXPECT_GT(small.q_s, table.quantile_s(m, 2, 0.05) * (1 - 1e-6));
  for (double loss : {0.02, 0.2}) {
    SilenceChain c;
    c.lambda = {0.9, 0.8, 0.7};
    c.mu = 1.0;
    c.loss = loss;
    for (int64_t s0 : {0, 1, 2, 4, 5, 12}) {
      const TimeoutTable::Bound b = table.quantile_lower_bound_s(c, s0, 0.01);
      EXPECT_LE(b.q_s, table.quantile_s(c, s0, 0.01)) << "loss " << loss << " s0 " << s0;
    }
  }
}

}  // namespace spectral_exit_test
}  // namespace fdsim::timeout
