// Issue 24 item 7: the QoS mistake durations are kept exactly up to the arm's cap
// (MistakeDurationBudget), then pooled as streaming moments (duration_moments.h): memory no
// longer grows with simulated time, and the statistics stay equal up to rounding.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "models/metrics/duration_moments.h"
#include "models/metrics/qos_pair_recorder.h"
#include "models/metrics/qos_summary.h"

namespace fdsim::metrics {
namespace {

// The two-pass statistics over the durations in sequence (what QosSummary computes exactly).
struct TwoPass {
  double mean = 0, sd = 0, max = 0;
};
TwoPass two_pass(const std::vector<double>& v) {
  TwoPass t;
  double sum = 0;
  for (double d : v) {
    sum += d;
    t.max = std::max(t.max, d);
  }
  t.mean = sum / double(v.size());
  double ss = 0;
  for (double d : v) ss += (d - t.mean) * (d - t.mean);
  t.sd = std::sqrt(ss / double(v.size() - 1));
  return t;
}

// Mistake i lasts (1 + (i * 7919) mod 997) ms and starts 2 s after the previous one started.
void feed(QosPairRecorder& r, int64_t first, int64_t count, std::vector<double>* durations) {
  for (int64_t i = first; i < first + count; ++i) {
    const int64_t ms = 1 + (i * 7919) % 997;
    r.suspect(SimTime::zero() + Duration::ms(2000 * i));
    r.trust(SimTime::zero() + Duration::ms(2000 * i + ms));
    durations->push_back(Duration::ms(ms).seconds());
  }
}

// Two pairs of one arm share a cap of 5: the first 5 durations are kept, the 6th overflows the
// budget, both recorders report it and drop what they hold at their next completed mistake.
TEST(QosBoundedDurations, TheArmsCapIsSharedAndOverflowDropsTheStoredDurations) {
  auto budget = std::make_shared<MistakeDurationBudget>();
  budget->cap = 5;
  QosPairRecorder a(SimTime::zero(), SimTime::zero() + Duration::s(100000), budget);
  QosPairRecorder b(SimTime::zero(), SimTime::zero() + Duration::s(100000), budget);
  std::vector<double> da, db;
  feed(a, 0, 3, &da);
  feed(b, 0, 2, &db);
  EXPECT_TRUE(a.mistake_durations_kept());
  EXPECT_EQ(a.mistake_durations().size(), 3u);
  EXPECT_EQ(b.mistake_durations().size(), 2u);
  feed(b, 2, 1, &db);  // the 6th of the arm
  EXPECT_FALSE(a.mistake_durations_kept());
  EXPECT_FALSE(b.mistake_durations_kept());
  EXPECT_EQ(b.mistake_durations().size(), 0u);
  EXPECT_EQ(a.mistake_durations().size(), 3u);  // dropped at its next completed mistake
  feed(a, 3, 1000, &da);
  EXPECT_EQ(a.mistake_durations().size(), 0u);
  EXPECT_EQ(a.mistakes_completed(), 1003u);
  EXPECT_EQ(b.mistakes_completed(), 3u);
  a.finish(SimTime::zero() + Duration::s(100000));
  b.finish(SimTime::zero() + Duration::s(100000));

  QosSummary sum;
  sum.add(a);
  sum.add(b);
  const nlohmann::json j = sum.to_json();
  std::vector<double> all = da;
  all.insert(all.end(), db.begin(), db.end());
  const TwoPass t = two_pass(all);
  EXPECT_EQ(j["mistakes_completed_count"], 1006u);
  EXPECT_EQ(j["mistake_duration_max_s"].get<double>(), t.max);
  EXPECT_NEAR(j["mistake_duration_sample_mean_s"].get<double>(), t.mean, 1e-12 * t.mean);
  EXPECT_NEAR(j["mistake_duration_sd_s"].get<double>(), t.sd, 1e-12 * t.sd);
}

// Under the cap the summary is the exact two-pass computation, bit for bit (what keeps every
// shipped result byte-identical).
TEST(QosBoundedDurations, UnderTheCapTheStatisticsAreTheExactTwoPassValues) {
  QosPairRecorder a(SimTime::zero(), SimTime::zero() + Duration::s(100000));
  QosPairRecorder b(SimTime::zero(), SimTime::zero() + Duration::s(100000));
  std::vector<double> d;
  feed(a, 0, 700, &d);
  feed(b, 0, 300, &d);
  ASSERT_TRUE(a.mistake_durations_kept());
  QosSummary sum;
  sum.add(a);
  sum.add(b);
  const nlohmann::json j = sum.to_json();
  const TwoPass t = two_pass(d);
  EXPECT_EQ(j["mistake_duration_sample_mean_s"].get<double>(), t.mean);
  EXPECT_EQ(j["mistake_duration_sd_s"].get<double>(), t.sd);
  EXPECT_EQ(j["mistake_duration_max_s"].get<double>(), t.max);
}

// 2 million mistakes on one pair, over the default cap of 2^20: nothing is stored at the end,
// and the streamed mean and sd agree with the two-pass values to 1e-12 (rounding only).
TEST(QosBoundedDurations, PastTheDefaultCapNothingIsStoredAndTheMomentsAgree) {
  const int64_t n = 2'000'000;
  ASSERT_GT(uint64_t(n), MistakeDurationBudget::kDefaultCap);
  QosPairRecorder r(SimTime::zero(), SimTime::zero() + Duration::s(2 * n + 10));
  std::vector<double> d;
  d.reserve(size_t(n));
  feed(r, 0, n, &d);
  r.finish(SimTime::zero() + Duration::s(2 * n + 10));
  EXPECT_FALSE(r.mistake_durations_kept());
  EXPECT_EQ(r.mistake_durations().size(), 0u);
  EXPECT_EQ(r.mistake_durations().capacity(), 0u);
  QosSummary sum;
  sum.add(r);
  const nlohmann::json j = sum.to_json();
  const TwoPass t = two_pass(d);
  EXPECT_EQ(j["mistakes_completed_count"], uint64_t(n));
  EXPECT_EQ(j["mistake_duration_max_s"].get<double>(), t.max);
  EXPECT_EQ(j["mistake_duration_sample_mean_s"].get<double>(), t.mean);  // same sequential sum
  EXPECT_NEAR(j["mistake_duration_sd_s"].get<double>(), t.sd, 1e-12 * t.sd);
}

// Chan's merge of two halves is the moments of the whole.
TEST(QosBoundedDurations, MergedMomentsAreTheMomentsOfTheUnion) {
  DurationMoments a, b, whole;
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) {
    const double x = 0.001 * double(1 + (i * 31) % 97) + (i < 500 ? 0.0 : 3.0);
    (i < 500 ? a : b).add(x);
    whole.add(x);
    v.push_back(x);
  }
  a.merge(b);
  const TwoPass t = two_pass(v);
  EXPECT_EQ(a.n, 1000u);
  EXPECT_NEAR(a.mean_s, t.mean, 1e-13);
  EXPECT_NEAR(std::sqrt(a.m2_s2 / 999.0), t.sd, 1e-12);
  EXPECT_NEAR(std::sqrt(whole.m2_s2 / 999.0), t.sd, 1e-12);
  EXPECT_EQ(a.max_s, t.max);
}

}  // namespace
}  // namespace fdsim::metrics
