// The fast exact path of T_out (issue 13, item 7): the Poisson-mixture quantile
// (poisson_survival.h) against Eigen's matrix exponential and the spectral / uniformization
// paths it replaced, the bounded memos of TimeoutTable (a hit returns the uncached value, the
// memory stays bounded), and the lower bounds the model arms its timers at (never above the
// exact quantile).

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <unsupported/Eigen/MatrixFunctions>

#include "models/timeout/bounded_cache.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/silence_chain.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/timeout_table.h"

namespace fdsim::timeout {
namespace timeout_fast_path_test {

SilenceChain chain_of(double lu, double lm, double lo, double mu, double loss) {
  SilenceChain c;
  c.th_u = 1;
  c.th_f = 4;
  c.lambda = {lu, lm, lo};
  c.mu = mu;
  c.loss = loss;
  return c;
}

// The diagonals of Q~ (silence_chain.h), built here independently.
void silence_diagonals(const SilenceChain& c, Eigen::VectorXd* d, Eigen::VectorXd* up,
                       Eigen::VectorXd* lo) {
  const int64_t n = c.top() + 1;
  *d = Eigen::VectorXd(n);
  *up = Eigen::VectorXd(n - 1);
  *lo = Eigen::VectorXd(n - 1);
  for (int64_t s = 0; s < n; ++s) {
    const double birth = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
    const double death = s >= 1 ? c.mu : 0.0;
    (*d)(s) = -(birth + death);
    if (s + 1 < n) {
      const double keep = c.region_of(s) == c.region_of(s + 1) ? 1.0 : c.loss;
      (*up)(s) = birth * keep;
      (*lo)(s) = c.mu * keep;
    }
  }
}

Eigen::MatrixXd dense(const Eigen::VectorXd& d, const Eigen::VectorXd& up,
                      const Eigen::VectorXd& lo) {
  Eigen::MatrixXd q = d.asDiagonal();
  for (Eigen::Index i = 0; i + 1 < d.size(); ++i) {
    q(i, i + 1) = up(i);
    q(i + 1, i) = lo(i);
  }
  return q;
}

TEST(PoissonSurvival, SurvivalAndDensityMatchTheMatrixExponential) {
  for (double loss : {0.02, 0.3}) {
    const SilenceChain c = chain_of(0.9, 0.75, 1.3, 1.0, loss);
    Eigen::VectorXd d, up, lo;
    silence_diagonals(c, &d, &up, &lo);
    const Eigen::MatrixXd q = dense(d, up, lo);
    for (Eigen::Index s0 : {0, 1, 3, 5, 20}) {
      PoissonSurvival ps(d, up, lo, s0);
      for (double t : {0.0, 0.2, 3.0, 12.0, 60.0}) {
        const Eigen::MatrixXd e = (q * t).exp();
        const double want_s = e.row(s0).sum();
        const double want_f = -(e * q).row(s0).sum();
        EXPECT_NEAR(ps.survival(t), want_s, 1e-12 + 1e-10 * want_s) << s0 << " " << t;
        EXPECT_NEAR(ps.density(t), want_f, 1e-12 + 1e-10 * std::abs(want_f)) << s0 << " " << t;
      }
    }
  }
}

// The quantile agrees with the spectral path (where it is accurate) to 1e-9 relative and keeps
// the defining property S(q) <= alpha < S(q (1 - 1e-9)) under the matrix exponential.
TEST(PoissonSurvival, QuantileMatchesSpectralAndMatrixExponential) {
  for (double loss : {0.02, 0.2}) {
    for (double lo_rate : {0.6, 0.95}) {
      const SilenceChain c = chain_of(0.8, 0.9, lo_rate, 1.0, loss);
      Eigen::VectorXd d, up, lo;
      silence_diagonals(c, &d, &up, &lo);
      const Eigen::MatrixXd q = dense(d, up, lo);
      for (Eigen::Index s0 : {0, 1, 2, 4, 5}) {
        for (double alpha : {0.05, 0.01}) {
          PoissonSurvival ps(d, up, lo, s0);
          const double got = ps.quantile(alpha);
          const SpectralExit e(d, up, lo, s0);
          if (e.accurate()) {
            EXPECT_NEAR(got, e.quantile(alpha), 1e-9 * got) << loss << " " << s0 << " " << alpha;
          }
          EXPECT_LE((q * got).exp().row(s0).sum(), alpha + 1e-12);
          EXPECT_GT((q * (got * (1 - 1e-9))).exp().row(s0).sum(), alpha);
        }
      }
    }
  }
}

// Long quantiles (Lambda t above kDirectMass: the series starts near the Poisson mode) match
// the spectral sum, which is accurate from the bottom of a slowly draining region.
TEST(PoissonSurvival, LongQuantilesBeyondTheDirectRange) {
  const ExitChain top = top_region_chain(4, 0.97, 1.0);
  const SpectralExit e(top, 6);
  ASSERT_TRUE(e.accurate());
  const double want = e.quantile(0.01);
  ASSERT_GT(want * (top.lambda + top.mu), PoissonSurvival::kDirectMass);
  Eigen::VectorXd d(41), up(40), lo(40);
  for (Eigen::Index i = 0; i < 41; ++i) {
    const double birth = i == 40 ? 0.0 : top.lambda;
    d(i) = -(birth + top.mu);
    if (i < 40) {
      up(i) = birth;
      lo(i) = top.mu;
    }
  }
  PoissonSurvival ps(d, up, lo, 1);
  EXPECT_NEAR(ps.quantile(0.01), want, 1e-9 * want);
  EXPECT_NEAR(ps.survival(want), e.survival(want), 1e-10);
}

// A memo hit returns exactly the value computed without memo (a fresh table, or the function
// the table calls on the rounded chain), over a grid of keys; a second table agrees bit for bit.
TEST(TimeoutTableMemo, HitsEqualTheUncachedComputation_OverAGridOfKeys) {
  TimeoutTable table;
  int checked = 0;
  for (double lu : {0.31, 0.6, 0.8123}) {
    for (double lo_rate : {0.7, 0.95, 1.2}) {
      for (double mu : {0.9, 1.0}) {
        for (double loss : {0.0, 0.02, 0.1}) {
          for (int64_t s0 : {0, 1, 3, 5, 9}) {
            for (double alpha : {0.05, 0.01}) {
              const SilenceChain c = chain_of(lu, 0.9 * lu + 0.1, lo_rate, mu, loss);
              const double first = table.quantile_s(c, s0, alpha);
              const double again = table.quantile_s(c, s0, alpha);
              TimeoutTable fresh;
              const double uncached = fresh.quantile_s(c, s0, alpha);
              EXPECT_EQ(first, again);
              EXPECT_EQ(first, uncached);
              // The value is a function of the rounded chain (4 significant digits).
              SilenceChain r = c;
              for (double& l : r.lambda) l = round_4_significant(l).value();
              r.mu = round_4_significant(mu).value();
              if (loss > 0) {
                EXPECT_NEAR(first, silence_quantile(r, s0, alpha), 1e-9 * first);
              } else {
                const ExitChain ec = TimeoutTable::rounded(region_chain_of(r, s0));
                const double want = exit_quantile(ec, s0, alpha);
                if (std::isinf(want)) {
                  EXPECT_TRUE(std::isinf(first));
                } else {
                  EXPECT_NEAR(first, want, 1e-9 * want) << describe(ec) << " s0 " << s0;
                }
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 3 * 2 * 3 * 5 * 2);
}

// The bounds the model arms its timers at never exceed the exact quantile (loss or not, every
// region), and are exact where they say so.
TEST(TimeoutTableLowerBound, NeverAboveTheExactQuantile_OverAGrid) {
  TimeoutTable table;
  for (double lu : {0.2, 0.6, 0.9}) {
    for (double lo_rate : {0.5, 0.9, 0.99, 1.3}) {
      for (double loss : {0.0, 0.02, 0.2}) {
        for (int64_t s0 : {0, 1, 2, 4, 5, 6, 9, 20, 45}) {
          for (double alpha : {0.05, 0.01}) {
            const SilenceChain c = chain_of(lu, 0.8, lo_rate, 1.0, loss);
            const TimeoutTable::Bound b = table.quantile_lower_bound_s(c, s0, alpha);
            const double q = table.quantile_s(c, s0, alpha);
            EXPECT_LE(b.q_s, q) << lu << " " << lo_rate << " " << loss << " " << s0;
            if (b.exact) {
              EXPECT_EQ(b.q_s, q);
            }
            EXPECT_GT(b.q_s, 0.0);
          }
        }
      }
    }
  }
}

// The memos hold at most kMaxEntries entries each whatever the number of distinct keys, and
// values computed after an eviction are still the uncached ones.
TEST(TimeoutTableMemo, MemoryIsBounded) {
  using Cache = BoundedCache<7, double>;
  TimeoutTable table;
  const ExitChain probe = region_chain(2, 4, 0.777, 1.0);
  const double before = table.quantile_s(probe, 3, 0.05);
  for (int i = 0; i < 3 * int(Cache::kMaxEntries); ++i) {
    const double lambda = 0.5 + 1e-3 * i;  // distinct to 4 digits
    table.quantile_s(region_chain(0, 1, lambda, 1.0), 1, 0.05);
    ASSERT_LE(table.size(), 2 * Cache::kMaxEntries);
  }
  EXPECT_LE(table.size(), Cache::kMaxEntries);
  EXPECT_EQ(table.quantile_s(probe, 3, 0.05), before);
  EXPECT_LE(TimeoutTable::max_bytes(), size_t(2) << 20);  // 2 MB per table at most
}

TEST(BoundedCache, FindsWhatItStoresAndEmptiesWhenFull) {
  BoundedCache<2, int> c;
  EXPECT_EQ(c.find({1, 2}), nullptr);
  c.put({1, 2}, 7);
  c.put({2, 1}, 8);
  ASSERT_NE(c.find({1, 2}), nullptr);
  EXPECT_EQ(*c.find({1, 2}), 7);
  EXPECT_EQ(*c.find({2, 1}), 8);
  EXPECT_EQ(c.size(), 2u);
  for (uint64_t i = 0; i < BoundedCache<2, int>::kMaxEntries; ++i) c.put({100, i}, int(i));
  // The put that found the memo full emptied it first.
  EXPECT_EQ(c.find({1, 2}), nullptr);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(*c.find({100, BoundedCache<2, int>::kMaxEntries - 1}),
            int(BoundedCache<2, int>::kMaxEntries - 1));
}

}  // namespace timeout_fast_path_test
}  // namespace fdsim::timeout
