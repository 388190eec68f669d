// Queueing oracles: one node, no transfers, no failures, Poisson(lambda = 0.8) arrivals and
// exponential(mu = 1) execution times: an M/M/1 queue, whose response (sojourn) time under FCFS
// is exponential with rate mu - lambda = 0.2: mean 5, P(R > d) = exp(-0.2 d).
//
// Tolerances: response times are strongly autocorrelated (relaxation time ~ 1 / (mu (1 -
// sqrt(rho))^2) = 89 s), so the standard error comes from batch means: the 320 000 responses,
// in completion order, are cut into 32 batches of 10 000 (each >> the correlation length); the
// mean of the batch means has standard error sd(batch means) / sqrt(32). We require the
// estimate within 4.5 standard errors of the truth (a false failure has probability < 1e-4 even
// with the t(31) law) and, so that the test stays sharp, the standard error itself below twice
// its asymptotic value (M/M/1 at rho = 0.8: sigma^2_inf ~ 1.9e3 for the mean response, SE ~
// 0.077 for n = 320 000).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "models/loadsharing/stats.h"
#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;

struct BatchEstimate {
  double mean;
  double se;
};

BatchEstimate batch_means(const std::vector<double>& xs, size_t batches,
                          const std::function<double(double)>& f) {
  const size_t m = xs.size() / batches;
  std::vector<double> bm(batches, 0.0);
  for (size_t b = 0; b < batches; ++b) {
    for (size_t i = b * m; i < (b + 1) * m; ++i) bm[b] += f(xs[i]);
    bm[b] /= double(m);
  }
  double mean = 0;
  for (double v : bm) mean += v;
  mean /= double(batches);
  double ss = 0;
  for (double v : bm) ss += (v - mean) * (v - mean);
  return {mean, std::sqrt(ss / double(batches - 1)) / std::sqrt(double(batches))};
}

std::vector<double> single_node_responses(const std::string& scheduling, const json& deadline) {
  const json w = {{"arrival_rate_per_s", 0.8},
                  {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
                  {"deadline", deadline}};
  // late_tasks = finish: every task is served to completion (a work-conserving M/M/1 server);
  // under the default abort, tasks past their deadline would leave unserved.
  const json ls = {{"scheduling", scheduling},
                   {"execution_time_knowledge", "mean"},
                   {"transfers", false},
                   {"late_tasks", "finish"}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 1);
  testing::Harness h(cfg, 0, 2024, 406000.0, 2000.0);
  const json m = h.run();
  EXPECT_EQ(m["tasks_lost_count"], 0);
  std::vector<double> r = h.model->ledger().response_times_s();
  EXPECT_GE(r.size(), 320000u);  // 323 200 expected, Poisson sd 570
  r.resize(320000 <= r.size() ? 320000 : r.size());
  return r;
}

TEST(QueueingOracle, Fcfs_MM1ResponseTimeIsExponentialWithRateMuMinusLambda) {
  const std::vector<double> r =
      single_node_responses("fcfs", {{"kind", "fixed"}, {"relative_s", 1000.0}});
  ASSERT_EQ(r.size(), 320000u);
  const BatchEstimate mean = batch_means(r, 32, [](double x) { return x; });
  EXPECT_NEAR(mean.mean, 5.0, 4.5 * mean.se);
  EXPECT_LT(mean.se, 2 * 0.077);
  const BatchEstimate p5 = batch_means(r, 32, [](double x) { return x > 5.0 ? 1.0 : 0.0; });
  EXPECT_NEAR(p5.mean, std::exp(-1.0), 4.5 * p5.se);  // 0.367879
  EXPECT_LT(p5.se, 0.01);
  const BatchEstimate p10 = batch_means(r, 32, [](double x) { return x > 10.0 ? 1.0 : 0.0; });
  EXPECT_NEAR(p10.mean, std::exp(-2.0), 4.5 * p10.se);  // 0.135335
  EXPECT_LT(p10.se, 0.01);
}

// Non-preemptive MLFS that plans with the mean execution time orders by deadline (EDF), which
// never looks at the tasks' service times: the number in system is then the same process as
// under FCFS, so by Little's law the mean response is still 1 / (mu - lambda) = 5. The
// distribution is not: deadlines uniform in [1, 60] s reorder the queue and fatten the tail.
TEST(QueueingOracle, MlfsWithMeanPlanning_MeanResponseIsStillFive) {
  const std::vector<double> r =
      single_node_responses("mlfs", {{"kind", "uniform"}, {"min_s", 1.0}, {"max_s", 60.0}});
  ASSERT_EQ(r.size(), 320000u);
  const BatchEstimate mean = batch_means(r, 32, [](double x) { return x; });
  EXPECT_NEAR(mean.mean, 5.0, 4.5 * mean.se);
  EXPECT_LT(mean.se, 2 * 0.077);
  // Not FCFS in disguise: FCFS has p99 = ln(100) / 0.2 = 23.0 s.
  std::vector<double> sorted = r;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(quantile_sorted(sorted, 0.99), 1.2 * 23.03);
}

}  // namespace
}  // namespace fdsim::loadsharing
