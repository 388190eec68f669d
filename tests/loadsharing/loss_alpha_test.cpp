// alpha as a bound under broadcast loss (issue 13, item 5), with 2% loss at alpha = 0.01 and
// 0.05, for both Hou-Shin arms. Each test has a control that shows the bound failing when the
// loss is ignored (loss_allowance = 0): the test can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "models/loadsharing/loss_tolerance.h"
#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace loss_alpha_test {

using testing::json;

constexpr double kLoss = 0.02;
constexpr double kHeavyLoss = 0.2;  // the controls: a loss that alpha must visibly account for

uint64_t count(const json& m, const char* key) { return m[key].get<uint64_t>(); }

TEST(LossTolerance, SmallestKWithLossToTheKAtMostHalfAlpha) {
  EXPECT_EQ(tolerated_broadcasts(0.0, 0.01), 1u);
  EXPECT_EQ(tolerated_broadcasts(0.02, 0.05), 1u);  // 0.02 <= 0.025
  EXPECT_EQ(tolerated_broadcasts(0.02, 0.01), 2u);  // 4e-4 <= 0.005 < 0.02
  EXPECT_EQ(tolerated_broadcasts(0.1, 0.001), 4u);  // 1e-4 <= 5e-4 < 1e-3
}

// The exact setting of false_suspicion_rate_test.cpp (independent M/M/1 queues at lambda = 0.8,
// FCFS, no transfers, one observer per node over a constant 1 ms link, estimates pinned to the
// true rates), with 2% loss on every broadcast. Under the model of hou_shin_timeout.h (region
// changes broadcast, each lost independently) the silence after a received broadcast exceeds
// T_out with probability alpha exactly, so false suspicions per received broadcast are alpha
// within binomial error (4 sigma). Received broadcasts: sent x (1 - loss), whose own binomial
// noise (~ 0.05% of the count) is negligible here.
struct Rate {
  double rate = 0, tolerance = 0;
};
Rate hou_shin_rate(double alpha, const json& ls_extra, double loss = kLoss) {
  const double lambda = 0.8;
  const size_t nodes = 8;
  const json w = {{"arrival_rate_per_s", lambda},
                  {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 1e6}}}};
  const json estimation = {{"arrival_prior_shape", lambda * 1e9},
                           {"arrival_prior_exposure_s", 1e9},
                           {"execution_prior_shape", 1e9},
                           {"execution_prior_exposure_s", 1e9}};
  json ls = {{"scheduling", "fcfs"},
             {"transfers", false},
             {"buddy_size", 1},
             {"estimation", estimation},
             {"arms", json::array({{{"name", "hs"}, {"diagnosis", "hou_shin"}, {"alpha", alpha}}})}};
  ls.update(ls_extra);
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, nodes);
  net::NetworkConfig netcfg = testing::constant_network(1.0);
  netcfg.loss = loss;
  testing::Harness h(cfg, 0, 29, 20000.0, 0.0, netcfg);
  const json m = h.run();
  EXPECT_EQ(count(m, "crashes_count"), 0u);
  const double n = double(count(m, "broadcasts_region_change_count")) * (1 - loss) + nodes;
  Rate r;
  r.rate = double(count(m, "false_suspicions_count")) / n;
  r.tolerance = 4.0 * std::sqrt(alpha * (1 - alpha) / n);
  std::printf("[ hou_shin loss %.2f alpha %.2f %s ] trials %.0f, false suspicions %llu, rate %.5f "
              "(tol %.5f)\n",
              loss, alpha, ls_extra.dump().c_str(), n,
              (unsigned long long)count(m, "false_suspicions_count"), r.rate, r.tolerance);
  return r;
}

TEST(AlphaUnderLoss, HouShinFalseSuspicionsPerBroadcastAreAlpha_With2PercentLoss) {
  for (double alpha : {0.01, 0.05}) {
    const Rate r = hou_shin_rate(alpha, json::object());
    EXPECT_NEAR(r.rate, alpha, r.tolerance) << "alpha " << alpha;
    // Ignoring 2% loss costs little here (the region changes of a loaded queue follow each
    // other closely, so a lost one is soon followed by another), but it is an excess: on the
    // same sample paths the loss-blind T_out gives more false suspicions.
    const Rate blind = hou_shin_rate(alpha, {{"loss_allowance", 0.0}});
    EXPECT_GT(blind.rate, r.rate) << "alpha " << alpha;
  }
  // Control with 20% loss: blind, the rate is far above alpha; accounted for, it is alpha.
  const Rate heavy = hou_shin_rate(0.05, json::object(), kHeavyLoss);
  EXPECT_NEAR(heavy.rate, 0.05, heavy.tolerance);
  const Rate heavy_blind = hou_shin_rate(0.05, {{"loss_allowance", 0.0}}, kHeavyLoss);
  EXPECT_GT(heavy_blind.rate, 0.05 + heavy_blind.tolerance);
}

// hou_shin_extra in a loaded system with transfers (8 nodes, buddy size 4, constant 1 ms links,
// so the delay allowance is 0 and only the loss can make an observer wait too long): false
// suspicions per received broadcast are at most alpha (k = 2 at alpha = 0.01: the rate is about
// loss^2; k = 1 at alpha = 0.05: about loss). Control: at alpha = 0.01 with the loss ignored
// (k = 1) the rate is about the loss, 2%, twice alpha.
Rate extra_rate(double alpha, const json& ls_extra, double loss = kLoss) {
  const json w = {{"arrival_rate_per_s", 0.75},
                  {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
                  {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};
  const json estimation = {{"arrival_prior_shape", 3000.0},
                           {"arrival_prior_exposure_s", 4000.0},
                           {"execution_prior_shape", 4000.0},
                           {"execution_prior_exposure_s", 4000.0}};
  json ls = {{"buddy_size", 4},
             {"estimation", estimation},
             {"arms", json::array({{{"name", "hx"}, {"diagnosis", "hou_shin_extra"},
                                    {"alpha", alpha}}})}};
  ls.update(ls_extra);
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 8);
  net::NetworkConfig netcfg = testing::constant_network(1.0);
  netcfg.loss = loss;
  testing::Harness h(cfg, 0, 31, 3000.0, 0.0, netcfg);
  const json m = h.run();
  EXPECT_GT(count(m, "transfers_delivered_count"), 100u);
  const double n = double(count(m, "broadcast_messages_count")) * (1 - loss);
  Rate r;
  r.rate = double(count(m, "false_suspicions_count")) / n;
  r.tolerance = 4.0 * std::sqrt(alpha * (1 - alpha) / n);
  std::printf("[ hou_shin_extra loss %.2f alpha %.2f %s ] received %.0f, false suspicions %llu, "
              "rate %.5f\n",
              loss, alpha, ls_extra.dump().c_str(), n,
              (unsigned long long)count(m, "false_suspicions_count"), r.rate);
  return r;
}

TEST(AlphaUnderLoss, HouShinExtraFalseSuspicionsStayBelowAlpha_With2PercentLoss) {
  for (double alpha : {0.01, 0.05}) {
    const Rate r = extra_rate(alpha, json::object());
    EXPECT_LE(r.rate, alpha + r.tolerance) << "alpha " << alpha;
  }
  // With k = 2 the rate is about loss^2 = 4e-4: far below alpha; with the loss ignored (k = 1)
  // it is several times larger (still below alpha here: most silences end with a region change,
  // not with an extra broadcast).
  const Rate aware = extra_rate(0.01, json::object());
  const Rate blind = extra_rate(0.01, {{"loss_allowance", 0.0}});
  EXPECT_LT(aware.rate, 0.002);
  EXPECT_GT(blind.rate, 2 * aware.rate);
  // Control with 20% loss at alpha = 0.01: blind (k = 1) the rate exceeds alpha several times;
  // accounted for (k = 4: 0.2^4 = 0.0016 <= 0.005) it stays below.
  const Rate heavy = extra_rate(0.01, json::object(), kHeavyLoss);
  EXPECT_LE(heavy.rate, 0.01 + heavy.tolerance);
  const Rate heavy_blind = extra_rate(0.01, {{"loss_allowance", 0.0}}, kHeavyLoss);
  EXPECT_GT(heavy_blind.rate, 0.01 + heavy_blind.tolerance);
}

}  // namespace loss_alpha_test
}  // namespace fdsim::loadsharing
