// Non-Poisson arrival processes (models/loadsharing/arrival_process.h) against their formulas:
// the MMPP's and the batch process's mean rate and index of dispersion of counts from one long
// stationary path, and the exact instants of a replayed trace (order, looping, node offsets).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "models/loadsharing/arrival_process.h"
#include "tests/support/sample_moments.h"

namespace fdsim::loadsharing {
namespace {

// Counts of arrivals in consecutive windows of `window_s` over `windows` windows.
std::vector<double> window_counts(ArrivalProcess& p, Rng& rng, double window_s, size_t windows) {
  std::vector<double> counts(windows, 0.0);
  const double end_s = window_s * double(windows);
  for (auto t = p.first(rng); t && t->seconds() < end_s; t = p.next(*t, rng))
    counts[size_t(t->seconds() / window_s)] += 1;
  return counts;
}


TEST(ArrivalProcesses, MmppMeanRateAndDispersion) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::mmpp2;
  s.rate_per_s[0] = 0.5;
  s.rate_per_s[1] = 5.0;
  s.mean_sojourn_s[0] = 20.0;
  s.mean_sojourn_s[1] = 5.0;
  ArrivalProcess p(s, 0);
  Rng rng(7);
  const double t = 100.0;  // window, s
  const auto c = window_counts(p, rng, t, 20000);
  const test_support::Moments m = test_support::sample_moments(c);
  const double pi0 = 20.0 / 25.0, pi1 = 5.0 / 25.0;
  const double rate = pi0 * 0.5 + pi1 * 5.0;  // 1.4 /s
  EXPECT_DOUBLE_EQ(s.mean_rate_per_s(), rate);
  const double sw = 1.0 / 20.0 + 1.0 / 5.0;  // s = r0 + r1
  const double idc = 1 + 2 * pi0 * pi1 * (0.5 - 5.0) * (0.5 - 5.0) / (rate * sw) *
                             (1 - (1 - std::exp(-sw * t)) / (sw * t));
  ASSERT_GT(idc, 5.0);  // far from Poisson, so the test can tell them apart
  // Windows are correlated only over a few sojourns (25 s << 100 s): treat them as about
  // independent; the count mean's sd is sqrt(var / windows).
  EXPECT_NEAR(m.mean / t, rate, 4 * std::sqrt(m.var / 20000.0) / t);
  // The variance ratio's relative sd is about sqrt(2 / windows) (x2 for the heavy tail).
  EXPECT_NEAR(m.var / m.mean, idc, idc * 4 * 2 * std::sqrt(2.0 / 20000.0));
  std::printf("mmpp2: rate %.4f /s (formula %.4f), dispersion %.3f (formula %.3f)\n",
              m.mean / t, rate, m.var / m.mean, idc);
}

TEST(ArrivalProcesses, BatchPoissonMeanRateAndDispersion) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::batch_poisson;
  s.batch_rate_per_s = 0.2;
  s.batch.law = BatchSizeLaw::geometric;
  s.batch.mean = 4.0;
  ArrivalProcess p(s, 0);
  Rng rng(11);
  const auto c = window_counts(p, rng, 50.0, 20000);
  const test_support::Moments m = test_support::sample_moments(c);
  EXPECT_DOUBLE_EQ(s.mean_rate_per_s(), 0.8);
  EXPECT_NEAR(m.mean / 50.0, 0.8, 4 * std::sqrt(m.var / 20000.0) / 50.0);
  // Compound Poisson: Var N / E N = E[B^2] / E[B] = (2 - p) / p = 2 mean - 1 = 7.
  EXPECT_DOUBLE_EQ(s.batch.mean_square() / s.batch.mean_size(), 7.0);
  EXPECT_NEAR(m.var / m.mean, 7.0, 7.0 * 4 * 2 * std::sqrt(2.0 / 20000.0));
  std::printf("batch_poisson: rate %.4f /s (formula 0.8), dispersion %.3f (formula 7)\n",
              m.mean / 50.0, m.var / m.mean);
}

TEST(ArrivalProcesses, BatchTasksShareTheirInstant) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::batch_poisson;
  s.batch_rate_per_s = 1.0;
  s.batch.law = BatchSizeLaw::deterministic;
  s.batch.value = 3;
  ArrivalProcess p(s, 0);
  Rng rng(3);
  std::vector<SimTime> v;
  for (auto t = p.first(rng); t && v.size() < 9; t = p.next(*t, rng)) v.push_back(*t);
  ASSERT_EQ(v.size(), 9u);
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(v[3 * b], v[3 * b + 1]);
    EXPECT_EQ(v[3 * b], v[3 * b + 2]);
    if (b > 0) {
      EXPECT_LT(v[3 * b - 1], v[3 * b]);
    }
  }
}

TEST(ArrivalProcesses, BatchSizeMoments) {
  BatchSize u;
  u.law = BatchSizeLaw::uniform;
  u.min = 2;
  u.max = 4;
  EXPECT_DOUBLE_EQ(u.mean_size(), 3.0);
  EXPECT_DOUBLE_EQ(u.mean_square(), (4.0 + 9.0 + 16.0) / 3.0);
  Rng rng(5);
  double sum = 0;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t b = u.draw(rng);
    ASSERT_GE(b, 2u);
    ASSERT_LE(b, 4u);
    sum += double(b);
  }
  EXPECT_NEAR(sum / 30000, 3.0, 4 * std::sqrt(2.0 / 3.0 / 30000));
}

std::shared_ptr<const std::vector<SimTime>> instants(std::vector<double> s) {
  auto v = std::make_shared<std::vector<SimTime>>();
  for (double x : s) v->push_back(SimTime::from_seconds(x));
  return v;
}

std::vector<double> replay(const ArrivalProcessSpec& s, size_t rank, size_t count) {
  ArrivalProcess p(s, rank);
  Rng rng(1);
  std::vector<double> out;
  for (auto t = p.first(rng); t && out.size() < count; t = p.next(*t, rng))
    out.push_back(double(t->count_ns()) / 1e9);
  return out;
}

TEST(ArrivalProcesses, TraceReplaysInOrderAndStops) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::trace;
  s.instants = instants({0.5, 1.0, 1.0, 4.0});
  EXPECT_EQ(replay(s, 0, 100), (std::vector<double>{0.5, 1.0, 1.0, 4.0}));
}

TEST(ArrivalProcesses, TraceLoopsWithItsPeriod) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::trace;
  s.instants = instants({0.5, 1.0, 4.0});
  s.loop = true;
  s.period = Duration::from_seconds(5);
  EXPECT_EQ(replay(s, 0, 7), (std::vector<double>{0.5, 1.0, 4.0, 5.5, 6.0, 9.0, 10.5}));
  EXPECT_DOUBLE_EQ(s.mean_rate_per_s(), 3.0 / 5.0);
}

TEST(ArrivalProcesses, TraceNodeOffsets) {
  ArrivalProcessSpec s;
  s.kind = ArrivalProcessSpec::Kind::trace;
  s.instants = instants({0.5, 1.0, 4.0});
  s.loop = true;
  s.period = Duration::from_seconds(5);
  s.node_offset = Duration::from_seconds(3);
  // Rank 1 starts reading at 3 s: rows 4.0 (at 1 s), then 0.5 + 5 - 3, 1.0 + 5 - 3, ...
  EXPECT_EQ(replay(s, 1, 4), (std::vector<double>{1.0, 2.5, 3.0, 6.0}));
  // Rank 2: offset 6 mod 5 = 1 s: rows 1.0 (at 0), 4.0 (at 3), 5.5 - 1, ...
  EXPECT_EQ(replay(s, 2, 4), (std::vector<double>{0.0, 3.0, 4.5, 5.0}));
  // Without a loop the rows before the offset are skipped and the replay stops.
  s.loop = false;
  EXPECT_EQ(replay(s, 1, 10), (std::vector<double>{1.0}));
}

}  // namespace
}  // namespace fdsim::loadsharing
