// The closed-form region-exit survival (closed_form_exit.h) that TimeoutTable's small-region
// lower bounds come from: S(t) against Eigen's matrix exponential of the sub-generator, the
// quantile against the exact spectral quantile over a grid with extreme rate ratios, and the
// bound the table derives from it never above the exact T_out quantile.

#include <cmath>

#include <gtest/gtest.h>
#include <unsupported/Eigen/MatrixFunctions>

#include "models/timeout/closed_form_exit.h"
#include "models/timeout/exit_chain.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/timeout_table.h"

namespace fdsim::timeout {
namespace closed_form_exit_test {

double expm_survival(const ExitChain& c, int64_t s0, double t) {
  const Eigen::MatrixXd q = sub_generator(c);
  const Eigen::MatrixXd e = (q * t).exp();
  return e.row(static_cast<Eigen::Index>(s0 - c.lo)).sum();
}

double survival_of(const ExpSum& s, double t) {
  double sum = 0;
  for (int j = 0; j < s.n; ++j) sum += s.w[size_t(j)] * std::exp(-s.r[size_t(j)] * t);
  return sum;
}

// The regions the default thresholds give (U = {0,1}, M = {2,3,4}), a larger medium region, a
// two-state medium region, and a two-state reflecting top.
std::vector<ExitChain> chains(double lambda, double mu) {
  return {region_chain(0, 1, lambda, mu), region_chain(2, 4, lambda, mu),
          region_chain(3, 12, lambda, mu), region_chain(5, 6, lambda, mu),
          ExitChain{7, 8, lambda, mu, true}};
}

TEST(ClosedFormExit, SurvivalMatchesTheMatrixExponential) {
  int checked = 0;
  for (double lambda : {0.05, 0.5, 0.95, 1.0, 3.0}) {
    for (double mu : {0.3, 1.0, 2.5}) {
      for (const ExitChain& c : chains(lambda, mu)) {
        for (int64_t s0 = c.lo; s0 <= c.hi; ++s0) {
          const ExpSum s = closed_form_survival(c, s0);
          ASSERT_GT(s.n, 0) << describe(c);
          for (double t : {0.0, 0.3, 2.0, 10.0, 40.0}) {
            // The terms may cancel (closed_form_exit.h): the error is relative to their sizes.
            double abs_sum = 0;
            for (int j = 0; j < s.n; ++j)
              abs_sum += std::abs(s.w[size_t(j)]) * std::exp(-s.r[size_t(j)] * t);
            const double want = expm_survival(c, s0, t);
            EXPECT_NEAR(survival_of(s, t), want, 1e-13 * abs_sum + 1e-10 * want + 1e-300)
                << describe(c) << " s0 " << s0 << " t " << t;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 5 * 3 * (2 + 3 + 10 + 2 + 2) * 5);
}

// The shapes without a closed form here are declined (n = 0), never approximated.
TEST(ClosedFormExit, DeclinesChainsWithoutAClosedForm) {
  EXPECT_EQ(closed_form_survival(region_chain(0, 4, 0.8, 1.0), 2).n, 0);  // state 0 in a larger U
  EXPECT_EQ(closed_form_survival(top_region_chain(4, 0.8, 1.0), 5).n, 0);  // 41 states
  EXPECT_EQ(closed_form_survival(ExitChain{2, 5, 0.8, 1.0, true}, 3).n, 0);  // reflecting, 4 states
  EXPECT_EQ(closed_form_survival(region_chain(0, 1, 0.0, 1.0), 1).n, 0);  // unreachable exit
  EXPECT_TRUE(std::isnan(closed_form_quantile(ExpSum{}, 0.05)));
}

// Over rate ratios from 1e-5 to 1e5, every quantile the closed form gives is within 1e-8 of
// the exact spectral quantile (the bound shrinks it by 1e-7); it declines (NaN: too much
// cancellation) only for the larger regions at extreme ratios, never for the default regions
// (at most 3 states) with ratios within [1/100, 100], and the table then falls back to the
// exact value.
TEST(ClosedFormExit, QuantileMatchesTheSpectralQuantile) {
  int given = 0, declined_small_moderate = 0;
  for (double lambda : {0.001, 0.02, 0.3, 0.95, 1.0, 1.05, 4.0, 60.0, 1000.0}) {
    for (double mu : {0.01, 1.0, 30.0}) {
      for (const ExitChain& c : chains(lambda, mu)) {
        for (int64_t s0 = c.lo; s0 <= c.hi; ++s0) {
          for (double alpha : {0.2, 0.05, 0.01, 1e-4}) {
            const double q = closed_form_quantile(closed_form_survival(c, s0), alpha);
            if (std::isnan(q)) {
              const double ratio = lambda / mu;
              if (c.hi - c.lo < 3 && ratio >= 0.01 && ratio <= 100) ++declined_small_moderate;
              continue;
            }
            const double want = spectral_quantile(c, s0, alpha);
            EXPECT_NEAR(q, want, 1e-8 * want)
                << describe(c) << " s0 " << s0 << " alpha " << alpha;
            ++given;
          }
        }
      }
    }
  }
  EXPECT_EQ(declined_small_moderate, 0);
  EXPECT_GT(given, 1800);
}

// The table's small-region bound: never above the exact quantile, within 1e-6 of it when it
// comes from the closed form, and exact (the same value) where there is none.
TEST(ClosedFormExit, TableBoundIsBelowTheExactQuantile) {
  TimeoutTable table;
  for (double lambda : {0.01, 0.3, 0.95, 1.0, 1.7, 25.0}) {
    for (const ExitChain& c : {region_chain(0, 1, lambda, 1.0), region_chain(2, 4, lambda, 1.0),
                               region_chain(0, 4, lambda, 1.0)}) {
      for (int64_t s0 = c.lo; s0 <= c.hi; ++s0) {
        for (double alpha : {0.05, 0.01}) {
          const TimeoutTable::Bound b = table.quantile_lower_bound_s(c, s0, alpha);
          const double q = table.quantile_s(c, s0, alpha);
          EXPECT_LE(b.q_s, q) << describe(c) << " s0 " << s0;
          if (b.exact) {
            EXPECT_EQ(b.q_s, q);
          } else {
            EXPECT_GT(b.q_s, q * (1 - 1e-6)) << describe(c) << " s0 " << s0;
          }
          EXPECT_EQ(b.exact, c.lo == 0 && c.hi == 4) << describe(c);
        }
      }
    }
  }
}

}  // namespace closed_form_exit_test
}  // namespace fdsim::timeout
