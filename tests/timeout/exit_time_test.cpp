// The region-exit time distribution: the oracle table of docs/models/hou-shin-timeout.md, an
// independent matrix exponential (Eigen's Pade scaling-and-squaring), a Monte Carlo of the same
// chain, and the quantile's defining property.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <unsupported/Eigen/MatrixFunctions>

#include "tests/support/internal_error.h"
#include "models/timeout/exit_chain.h"
#include "sim/engine/rng.h"

namespace fdsim::timeout {
namespace {

struct OracleRow {
  const char* name;
  ExitChain chain;
  int64_t s0;
  double mean_s, s5, s10, q05_s, q01_s;
};

// docs/models/hou-shin-timeout.md, "Oracle values": lambda = 0.8, mu = 1, U = {0,1}, M = {2,3,4}, no allowance.
std::vector<OracleRow> oracle_table() {
  return {
      {"U, s0 = 1", region_chain(0, 1, 0.8, 1.0), 1, 2.81250, 0.187822, 0.047416, 9.8073, 15.6533},
      {"M, s0 = 2", region_chain(2, 4, 0.8, 1.0), 2, 1.53117, 0.052787, 0.003635, 5.1013, 8.1087},
  };
}

void expect_rel(double got, double want, double rel, const char* what, const char* row) {
  EXPECT_NEAR(got, want, rel * std::abs(want)) << what << " for " << row;
}

TEST(ExitTimeOracle, SpecSectionFTable_MatchesTo1e4Relative) {
  for (const OracleRow& r : oracle_table()) {
    expect_rel(mean_exit_time(r.chain, r.s0), r.mean_s, 1e-4, "E[W]", r.name);
    expect_rel(survival(r.chain, r.s0, 5.0), r.s5, 1e-4, "S(5)", r.name);
    expect_rel(survival(r.chain, r.s0, 10.0), r.s10, 1e-4, "S(10)", r.name);
    expect_rel(exit_quantile(r.chain, r.s0, 0.05), r.q05_s, 1e-4, "T_out(0.05)", r.name);
    expect_rel(exit_quantile(r.chain, r.s0, 0.01), r.q01_s, 1e-4, "T_out(0.01)", r.name);
  }
}

double expm_survival(const ExitChain& c, int64_t s0, double t) {
  const Eigen::MatrixXd e = (sub_generator(c) * t).exp();
  return e.row(static_cast<Eigen::Index>(s0 - c.lo)).sum();
}

TEST(ExitTimeSurvival, MatchesEigenMatrixExponential_ShortAndLongTimes) {
  struct Case {
    ExitChain chain;
    int64_t s0;
  };
  const std::vector<Case> cases = {
      {region_chain(0, 1, 0.8, 1.0), 1},       {region_chain(0, 1, 0.8, 1.0), 0},
      {region_chain(2, 4, 0.8, 1.0), 3},       {top_region_chain(4, 0.8, 1.0), 5},
      {top_region_chain(4, 0.95, 1.0), 7},     {region_chain(2, 4, 40.0, 50.0), 2},
      {top_region_chain(4, 400.0, 500.0), 5},  // Lambda t up to ~9e4: many doubling steps
  };
  for (const Case& k : cases) {
    for (double t : {0.0, 0.01, 0.3, 1.0, 5.0, 10.0, 37.5, 200.0}) {
      const double want = expm_survival(k.chain, k.s0, t);
      EXPECT_NEAR(survival(k.chain, k.s0, t), want, 1e-10)
          << describe(k.chain) << " s0 " << k.s0 << " t " << t;
    }
  }
}

// Direct simulation of the chain of exit_chain.h: exponential holding times, birth with
// probability birth / (birth + death), stop on an exit move.
double simulate_exit_time(const ExitChain& c, int64_t s0, Rng& rng, double t_cap) {
  int64_t s = s0;
  double t = 0;
  for (;;) {
    const double birth = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
    const double death = s >= 1 ? c.mu : 0.0;
    t += rng.exponential(birth + death);
    if (t > t_cap) return t;
    if (rng.uniform01() * (birth + death) < birth) {
      if (s == c.hi) return t;
      ++s;
    } else {
      if (s == c.lo) return t;
      --s;
    }
  }
}

// 1e5 independent paths per chain; each S(t) estimate is a binomial proportion, checked within
// 4 standard errors sqrt(p (1 - p) / n) (12 checks: a false failure has probability ~1e-3 per
// seed, and the seed is fixed).
TEST(ExitTimeSurvival, MatchesMonteCarloOfTheSameChain_WithinBinomialError) {
  constexpr int kSamples = 100000;
  const std::vector<std::pair<ExitChain, int64_t>> cases = {
      {region_chain(0, 1, 0.8, 1.0), 1},
      {region_chain(2, 4, 0.8, 1.0), 2},
      {top_region_chain(4, 0.8, 1.0), 5},
  };
  const std::vector<double> times = {0.5, 2.0, 5.0, 10.0};
  RngFactory rngs(20240601, 0);
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [chain, s0] = cases[i];
    Rng rng = rngs.stream(static_cast<NodeId>(i), "timeout.mc");
    std::vector<int> alive(times.size(), 0);
    for (int n = 0; n < kSamples; ++n) {
      const double w = simulate_exit_time(chain, s0, rng, times.back());
      for (size_t j = 0; j < times.size(); ++j) alive[j] += w > times[j] ? 1 : 0;
    }
    for (size_t j = 0; j < times.size(); ++j) {
      const double p = survival(chain, s0, times[j]);
      const double se = std::sqrt(p * (1 - p) / kSamples);
      EXPECT_NEAR(static_cast<double>(alive[j]) / kSamples, p, 4 * se)
          << describe(chain) << " s0 " << s0 << " t " << times[j];
    }
  }
}

TEST(ExitTimeQuantile, SurvivalAtTheQuantileIsAlpha_AndJustBeforeItIsAbove) {
  const std::vector<std::pair<ExitChain, int64_t>> cases = {
      {region_chain(0, 1, 0.8, 1.0), 1},    {region_chain(2, 4, 0.8, 1.0), 2},
      {top_region_chain(4, 0.8, 1.0), 5},   {top_region_chain(4, 0.99, 1.0), 5},
      {region_chain(1, 3, 0.05, 2.0), 2},
  };
  for (const auto& [chain, s0] : cases) {
    for (double alpha : {0.99, 0.5, 0.05, 0.01, 1e-4}) {
      const double q = exit_quantile(chain, s0, alpha);
      ASSERT_TRUE(std::isfinite(q));
      // The bracket is 1e-9 q wide and S' = -density <= total rate, so S(q) is within a few
      // 1e-9 of alpha; q is the bracket's upper end, so S(q) <= alpha up to rounding.
      EXPECT_LE(survival(chain, s0, q), alpha + 1e-11) << describe(chain) << " alpha " << alpha;
      EXPECT_NEAR(survival(chain, s0, q), alpha, 1e-8 * std::max(1.0, q))
          << describe(chain) << " alpha " << alpha;
      EXPECT_GT(survival(chain, s0, q * (1 - 1e-7)), alpha) << describe(chain) << " " << alpha;
    }
  }
}

// Multiplying both rates by c runs the same chain c times faster: every quantile divides by c.
TEST(ExitTimeQuantile, ScalesInverselyWithTheRates) {
  const double q1 = exit_quantile(top_region_chain(4, 0.9, 1.0), 5, 0.01);
  for (double c : {1e-3, 0.5, 7.0, 1e3}) {
    const double qc = exit_quantile(top_region_chain(4, 0.9 * c, 1.0 * c), 5, 0.01);
    EXPECT_NEAR(qc * c, q1, 1e-8 * q1) << "scale " << c;
  }
}

TEST(ExitTimeQuantile, NearCriticalTopRegion_HasTheHeavyTail) {
  // The busy period's tail: at lambda/mu = 0.99 the 1% quantile is far beyond the mean, which is
  // why extra broadcasts matter (docs/models/hou-shin-timeout.md). Exactness is checked against expm.
  const ExitChain top = top_region_chain(4, 0.99, 1.0);
  const double q = exit_quantile(top, 5, 0.01);
  EXPECT_GT(q, 10 * mean_exit_time(top, 5));
  EXPECT_NEAR(expm_survival(top, 5, q), 0.01, 1e-9);
}

// Region {0,1} with lambda = 1e-3, mu = 1: leaving needs an arrival while a task is in service,
// so the 1% quantile is about 4.6e6 s while Lambda ~ 1: far beyond the step-by-step bracket, this
// exercises the galloping with doubling matrices. Oracle: the 2-state chain's closed form
// S(t) = A e^{th1 t} + (1 - A) e^{th2 t}, th1 th2 = lambda^2, th1 + th2 = -(2 lambda + mu),
// S'(0) = -lambda (the exit rate from state 1).
TEST(ExitTimeQuantile, VeryLongTail_MatchesTwoStateClosedForm) {
  const double lambda = 1e-3, mu = 1.0;
  const double tr = -(2 * lambda + mu), det = lambda * lambda;
  const double th2 = (tr - std::sqrt(tr * tr - 4 * det)) / 2;  // fast mode
  const double th1 = det / th2;                                   // slow mode, stable form
  const double amp = (-lambda - th2) / (th1 - th2);
  auto closed = [&](double t) { return amp * std::exp(th1 * t) + (1 - amp) * std::exp(th2 * t); };
  const ExitChain u = region_chain(0, 1, lambda, mu);
  for (double t : {0.5, 3.0, 1e4, 1e6, 5e6}) {
    EXPECT_NEAR(survival(u, 1, t), closed(t), 1e-10) << "t " << t;
  }
  for (double alpha : {0.05, 0.01}) {
    const double q = exit_quantile(u, 1, alpha);
    // At q the fast mode is e^{-q} = 0: the root of amp e^{th1 q} = alpha.
    const double want = std::log(amp / alpha) / -th1;
    EXPECT_GT(q, 1e6);
    EXPECT_NEAR(q, want, 1e-8 * want) << "alpha " << alpha;
  }
}

TEST(ExitTimeDeathTest, AlphaOutsideOpenUnitIntervalAborts) {
  EXPECT_INTERNAL_ERROR(exit_quantile(region_chain(0, 1, 0.8, 1.0), 1, 0.0), "alpha must be in");
  EXPECT_INTERNAL_ERROR(exit_quantile(region_chain(0, 1, 0.8, 1.0), 1, 1.0), "alpha must be in");
}

}  // namespace
}  // namespace fdsim::timeout
