// False suspicions of healthy nodes under the Hou-Shin timeout (docs/models/hou-shin-timeout.md).
//
// 1. With extra broadcasts, a healthy node is falsely suspected only when a broadcast is lost or
//    delayed beyond the allowance (extra broadcasts). With no loss and every delay within the allowance
//    there must be none at all, however long the run.
// 2. Without extra broadcasts, T_out is the (1 - alpha) quantile of the time to the sender's next
//    region change. Where the exit chain is the truth (M/M/1 queue length, estimates equal
//    to the true rates, constant latency so that receipt-to-receipt = send-to-send), every
//    broadcast received is one trial that ends in a false suspicion with probability alpha.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;

uint64_t count(const json& m, const char* key) { return m[key].get<uint64_t>(); }

// Delays of 1 to 21 ms in 1 ms steps, with the two extremes five times more frequent than the
// others (31 samples): the difference of two delays reaches the full 20 ms spread in about 4% of
// the pairs of consecutive broadcasts. With fewer than 100 samples the empirical 99th percentile
// is the largest sample, so the default allowance (q99 - min) is exactly max - min = 20 ms.
std::vector<double> delay_samples_ms() {
  std::vector<double> s;
  for (int i = 0; i < 5; ++i) s.push_back(1.0);
  for (int ms = 1; ms <= 21; ++ms) s.push_back(double(ms));
  for (int i = 0; i < 5; ++i) s.push_back(21.0);
  return s;
}

// Loaded nodes (lambda 0.7 to 0.8, mu = 1, exponential execution, MLFS, transfers on), buddy size
// 4, no loss, no crash; delays drawn from delay_samples_ms(). `ls_extra` is merged into the
// load_sharing section.
json run_loaded_system(const json& arm, const json& ls_extra, double horizon_s) {
  const json w = {
      {"arrival_rate_per_s", 0.75},
      {"load_phases",
       json::array({{{"nodes", json::array({1, 4, 6})}, {"from_s", 0}, {"rate_per_s", 0.8}},
                    {{"nodes", json::array({2, 7})}, {"from_s", 0}, {"rate_per_s", 0.7}}})},
      {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
      {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};
  // Priors worth a few thousand seconds of evidence: the estimates (and so T_out) still move with
  // the load and the transfers, but slowly enough to keep the timeout cache small.
  const json estimation = {{"arrival_prior_shape", 3000.0},
                           {"arrival_prior_exposure_s", 4000.0},
                           {"execution_prior_shape", 4000.0},
                           {"execution_prior_exposure_s", 4000.0}};
  json ls = {{"buddy_size", 4}, {"estimation", estimation}, {"arms", json::array({arm})}};
  ls.update(ls_extra);
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 8);
  net::NetworkConfig netcfg;
  netcfg.latency = net::empirical_latency(delay_samples_ms());
  testing::Harness h(cfg, 0, 11, horizon_s, 0.0, netcfg);
  const json m = h.run();
  std::printf(
      "[ %-8s ] region-change broadcasts %llu, extra %llu, datagrams %llu, "
      "transfers %llu, suspicions %llu (false %llu)\n",
      arm["name"].get<std::string>().c_str(),
      (unsigned long long)count(m, "broadcasts_region_change_count"),
      (unsigned long long)count(m, "broadcasts_extra_count"),
      (unsigned long long)count(m, "broadcast_messages_count"),
      (unsigned long long)count(m, "transfers_delivered_count"),
      (unsigned long long)count(m, "suspicions_count"),
      (unsigned long long)count(m, "false_suspicions_count"));
  EXPECT_EQ(count(m, "crashes_count"), 0u);
  EXPECT_EQ(count(m, "broadcasts_recovery_count"), 0u);
  // Every broadcast goes to the sender's 4 observers.
  EXPECT_EQ(count(m, "broadcast_messages_count"),
            4 * (count(m, "broadcasts_region_change_count") + count(m, "broadcasts_extra_count")));
  return m;
}

// Why zero, exactly: the sender sends its next broadcast at the latest T_out - margin after its
// previous one (an extra one, if no region change came first); the margin defaults to the
// allowance a, so that is q = the exit quantile after the previous send. The observer suspects
// when the silence since it RECEIVED the previous broadcast strictly exceeds q + a. With delays d
// and d' of the previous and the next broadcast, the next one arrives q + d' - d <= q + a after
// the previous receipt, since d' - d <= max - min = a. (A reordered older broadcast is ignored
// and changes nothing.) At d' - d = a exactly (about 4% of the pairs here) the broadcast arrives
// 1 ns before the suspicion would be due.
// Two controls on the same system show that the zero is not for want of occasions: without
// extra broadcasts the silences are suspected about alpha of the time; with an allowance (and
// margin) 1 us short of the 20 ms spread, the extra broadcasts whose delay is 20 ms longer than
// the previous one's (3.7% of them, per observer) are suspected.
TEST(HouShinExtra, HealthyLoadedNodesAreNeverSuspected_WhenDelaysStayWithinTheAllowance) {
  const std::shared_ptr<const net::LatencyModel> delays =
      net::empirical_latency(delay_samples_ms());
  ASSERT_EQ(delays->min_ms(), 1.0);
  ASSERT_EQ(delays->quantile_ms(0.99), 21.0);  // the default allowance is max - min = 20 ms
  const double horizon_s = 2000.0;
  for (double alpha : {0.05, 0.2}) {
    SCOPED_TRACE(alpha);
    const json m = run_loaded_system({{"name", alpha == 0.05 ? "extra_05" : "extra_20"},
                                      {"diagnosis", "hou_shin_extra"},
                                      {"alpha", alpha}},
                                     json::object(), horizon_s);
    // Thousands of timed silences of each kind, each received by 4 observers with independent
    // delays, in a loaded system that transfers tasks.
    EXPECT_GT(count(m, "broadcasts_region_change_count"), 6000u);
    EXPECT_GT(count(m, "broadcasts_extra_count"), alpha == 0.05 ? 250u : 1200u);
    EXPECT_GT(count(m, "transfers_delivered_count"), 300u);
    EXPECT_EQ(count(m, "suspicions_count"), 0u);
    EXPECT_EQ(count(m, "false_suspicions_count"), 0u);
    EXPECT_EQ(m["live_suspected_time_s"].get<double>(), 0.0);
  }
  const json plain =
      run_loaded_system({{"name", "plain_05"}, {"diagnosis", "hou_shin"}, {"alpha", 0.05}},
                        json::object(), horizon_s);
  EXPECT_GT(count(plain, "false_suspicions_count"), 400u);
  const json short_allowance =
      run_loaded_system({{"name", "short_20"}, {"diagnosis", "hou_shin_extra"}, {"alpha", 0.2}},
                        {{"delay_allowance_ms", 19.999}}, horizon_s);
  EXPECT_GT(count(short_allowance, "false_suspicions_count"), 40u);
}

// One run of the exact setting: `nodes` independent M/M/1 queues (lambda, mu = 1, FCFS, no
// transfers, relative deadlines of 10^6 s so that every task passes the guarantee test and none
// is dropped, reordered or set aside; FCFS because MLFS with known execution times orders by
// execution time, and then the queue length is no longer the M/M/1 chain), each observed by exactly
// one buddy over a constant 1 ms link (allowance q99 - min = 0), priors worth 10^9 s of evidence at
// the true rates so that the piggy-backed lambda, mu and lambda_r stay within 10^-6 of the truth
// (T_out rounds them to 4 significant digits anyway: they round to exactly lambda and 1).
struct Trials {
  uint64_t broadcasts = 0;
  uint64_t chances = 0;
  uint64_t false_suspicions = 0;
};

Trials run_exact_setting(double alpha, double lambda, size_t nodes, double horizon_s,
                         uint64_t seed) {
  const json w = {{"arrival_rate_per_s", lambda},
                  {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 1e6}}}};
  const json estimation = {{"arrival_prior_shape", lambda * 1e9},
                           {"arrival_prior_exposure_s", 1e9},
                           {"execution_prior_shape", 1e9},
                           {"execution_prior_exposure_s", 1e9}};
  const json ls = {
      {"scheduling", "fcfs"},
      {"transfers", false},
      {"buddy_size", 1},
      {"estimation", estimation},
      {"arms", json::array({{{"name", "hs"}, {"diagnosis", "hou_shin"}, {"alpha", alpha}}})}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, nodes);
  testing::Harness h(cfg, 0, seed, horizon_s, 0.0, testing::constant_network(1.0));
  const json m = h.run();
  EXPECT_EQ(count(m, "guarantee_failures_count"), 0u);
  EXPECT_EQ(count(m, "tasks_missed_count"), 0u);
  EXPECT_EQ(count(m, "transfers_attempted_count"), 0u);
  EXPECT_EQ(count(m, "broadcasts_extra_count"), 0u);
  EXPECT_EQ(count(m, "broadcasts_recovery_count"), 0u);
  EXPECT_EQ(count(m, "broadcast_messages_count"), count(m, "broadcasts_region_change_count"));
  EXPECT_EQ(count(m, "suspicions_count"), count(m, "false_suspicions_count"));
  Trials t;
  t.broadcasts = count(m, "broadcasts_region_change_count");
  // The initial view (empty buddy, state 0 of U, received at 1 ms) is a trial too: the system
  // does start empty at t = 0. The last trial of each pair may be cut short by the horizon
  // (at most `nodes` of them, counted as no suspicion).
  t.chances = t.broadcasts + nodes;
  t.false_suspicions = count(m, "false_suspicions_count");
  return t;
}

// Why alpha, and why the binomial tolerance: with buddy size 1 every broadcast is received by
// one observer, 1 ms after it was sent (so the silence after receipt is the time between two
// sends). Each broadcast reports the state s0 in which the queue entered its region; by the
// strong Markov property the time W to the next region change is the exit time of the chain of
// docs/models/hou-shin-timeout.md from s0, whatever happened before, and T_out(s0) is its (1 - alpha) quantile (to
// 1e-9, rounded up to the ns). So the indicators 1{W > T_out} have conditional mean alpha given
// the past: their sum minus n alpha is a martingale with variance n alpha (1 - alpha), and the
// rate is within 4 standard deviations of alpha but for a 6e-5 chance. (Broadcasts of one node to
// several observers over constant links would be the same trial counted several times.) What the
// chain neglects: the truncation of O at 45 tasks (reached from 5 before 4 with probability below
// 1e-4 at lambda = 0.8), and the at most `nodes` trials cut short by the horizon.
TEST(HouShin, FalseSuspicionsPerBroadcastAreCloseToAlpha_InAStationarySetting) {
  const size_t nodes = 8;
  const double lambda = 0.8;
  // About 0.39 region changes per second per node at lambda = 0.8 (U <-> M crossings at
  // 2 pi_1 lambda = 0.256/s, M <-> O at 2 pi_4 lambda = 0.131/s): 8 x 30000 s gives ~93000
  // trials, a tolerance of about 6% of alpha at alpha = 0.05.
  const double horizon_s = 30000.0;
  for (double alpha : {0.01, 0.05, 0.2}) {
    const Trials t = run_exact_setting(alpha, lambda, nodes, horizon_s, 23);
    const double n = double(t.chances);
    const double rate = double(t.false_suspicions) / n;
    const double tolerance = 4.0 * std::sqrt(alpha * (1 - alpha) / n);
    std::printf(
        "[ alpha %.2f ] broadcasts %llu, trials %llu, false suspicions %llu, rate %.5f, "
        "tolerance %.5f\n",
        alpha, (unsigned long long)t.broadcasts, (unsigned long long)t.chances,
        (unsigned long long)t.false_suspicions, rate, tolerance);
    EXPECT_GT(t.broadcasts, 85000u);
    EXPECT_NEAR(rate, alpha, tolerance) << "alpha " << alpha;
  }
}

}  // namespace
}  // namespace fdsim::loadsharing
