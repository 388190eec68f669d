#include "tests/loadsharing/test_time.h"
#include "models/loadsharing/workload.h"

#include <gtest/gtest.h>

#include <cmath>

#include "models/loadsharing/arrival_schedule.h"

namespace fdsim::loadsharing {
namespace {


TEST(ArrivalSchedule, ConstantRateInvertsTheExponentialDraw) {
  const ArrivalSchedule a({{SimTime::zero(), 2.0}});
  EXPECT_EQ(a.next_after(at_s(1), 1.0), at_s(1.5));
  EXPECT_EQ(a.next_after(at_s(0), 0.0), at_s(0));
}

TEST(ArrivalSchedule, IntensityAccumulatesAcrossPhasesAndSkipsZeroRate) {
  const ArrivalSchedule a({{SimTime::zero(), 1.0}, {at_s(10), 0.0}, {at_s(20), 4.0}});
  // From t = 5: 5 units of intensity until 10, none until 20, then 2 more at rate 4.
  EXPECT_EQ(a.next_after(at_s(5), 7.0), at_s(20.5));
  EXPECT_EQ(a.next_after(at_s(5), 3.0), at_s(8));
  EXPECT_EQ(a.next_after(at_s(12), 1.0), at_s(20.25));
  EXPECT_DOUBLE_EQ(a.rate_at(at_s(15)), 0.0);
  EXPECT_DOUBLE_EQ(a.rate_at(at_s(25)), 4.0);
}

TEST(ArrivalSchedule, ALastPhaseOfRateZeroStopsArrivals) {
  const ArrivalSchedule a({{SimTime::zero(), 1.0}, {at_s(10), 0.0}});
  EXPECT_FALSE(a.next_after(at_s(9), 2.0).has_value());
  EXPECT_EQ(a.next_after(at_s(9), 0.5), at_s(9.5));
}

// Counts in each phase are Poisson(rate x length): 10000 expected in each, sd 100. A 4.5 sd
// band fails by chance with probability < 1e-5 per phase.
TEST(TaskSource, ArrivalCountsPerPhaseMatchTheRates) {
  WorkloadConfig w;
  w.arrivals.emplace_back(std::vector<RatePhase>{{SimTime::zero(), 2.0}, {at_s(5000), 0.5}});
  w.exec_laws.push_back(ExecTimeDistribution{});
  w.exec_law_of_node = {0};
  TaskSource src(w, RngFactory(7, 0), 1);
  int64_t first = 0, second = 0;
  std::optional<SimTime> t = src.first_arrival(0);
  while (t && *t < at_s(25000)) {
    (*t < at_s(5000) ? first : second) += 1;
    std::optional<SimTime> next;
    src.draw_task(0, *t, &next);
    t = next;
  }
  EXPECT_NEAR(double(first), 10000.0, 450.0);
  EXPECT_NEAR(double(second), 10000.0, 450.0);
}

// The k-th task of a node is the same whatever else is drawn: streams are keyed per node and
// purpose, and one node's draws never move another's.
TEST(TaskSource, NodeStreamsAreIndependentOfOtherNodes) {
  WorkloadConfig w;
  for (int i = 0; i < 3; ++i)
    w.arrivals.emplace_back(std::vector<RatePhase>{{SimTime::zero(), 1.0}});
  w.exec_laws.push_back(ExecTimeDistribution{});
  w.exec_law_of_node = {0, 0, 0};
  auto sequence = [&](bool touch_node0) {
    TaskSource src(w, RngFactory(11, 3), 3);
    if (touch_node0) {
      std::optional<SimTime> t = src.first_arrival(0), next;
      for (int k = 0; k < 50 && t; ++k, t = next) src.draw_task(0, *t, &next);
    }
    std::vector<int64_t> out;
    std::optional<SimTime> t = src.first_arrival(2), next;
    for (int k = 0; k < 20 && t; ++k, t = next) {
      const DrawnArrival d = src.draw_task(2, *t, &next);
      out.push_back(t->count_ns());
      out.push_back(d.exec.count_ns());
      out.push_back(d.relative_deadline.count_ns());
    }
    return out;
  };
  EXPECT_EQ(sequence(false), sequence(true));
}

// Sample means of the execution-time laws against their exact means (n = 40000 draws; the
// tolerance is 4.5 standard errors of the mean, from each law's standard deviation).
TEST(ExecTimeDistribution, SampleMeansMatchTheLaws) {
  Rng rng(12345);
  auto check = [&](const ExecTimeDistribution& d, double sd) {
    const int n = 40000;
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += d.draw(rng).seconds();
    EXPECT_NEAR(sum / n, d.mean_s(), 4.5 * sd / std::sqrt(double(n))) << d.describe();
  };
  ExecTimeDistribution e;
  e.law = ExecLaw::exponential;
  e.rate_per_s = 2.0;
  check(e, 0.5);
  ExecTimeDistribution u;
  u.law = ExecLaw::uniform;
  u.min_s = 1;
  u.max_s = 3;
  check(u, 2.0 / std::sqrt(12.0));
  ExecTimeDistribution l;
  l.law = ExecLaw::lognormal;
  l.mean_s_param = 2.0;
  l.sigma = 0.5;
  check(l, 2.0 * std::sqrt(std::exp(0.25) - 1.0));
  ExecTimeDistribution emp;
  emp.law = ExecLaw::empirical;
  emp.samples_s = {1, 2, 6};
  check(emp, std::sqrt(14.0 / 3.0));  // mean 3, variance (4 + 1 + 9) / 3
  ExecTimeDistribution det;
  det.law = ExecLaw::deterministic;
  det.value_s = 0.25;
  EXPECT_EQ(det.draw(rng), Duration::ms(250));
}

TEST(DeadlineDistribution, LaxityRuleScalesTheExecutionTime) {
  Rng rng(1);
  DeadlineDistribution d;
  d.rule = DeadlineRule::laxity;
  d.factor = 2.5;
  EXPECT_EQ(d.draw_relative(rng, Duration::s(2)), Duration::s(5));
  d.rule = DeadlineRule::fixed;
  d.relative_s = 7;
  EXPECT_EQ(d.draw_relative(rng, Duration::s(2)), Duration::s(7));
  d.rule = DeadlineRule::uniform;
  d.min_s = 3;
  d.max_s = 4;
  for (int i = 0; i < 100; ++i) {
    const Duration r = d.draw_relative(rng, Duration::s(2));
    EXPECT_GE(r, Duration::s(3));
    EXPECT_LE(r, Duration::s(4));
  }
}

}  // namespace
}  // namespace fdsim::loadsharing
