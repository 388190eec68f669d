// Crash and pause processes: exponential times with the configured means (tolerances from the
// sample size), keyed per-node streams, start/stop windows.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "tests/faults/faults_fixture.h"

namespace fdsim::faults {
namespace {

using nlohmann::json;
using testing_support::FaultWorld;
using testing_support::parse_faults;

FaultsConfig parsed(const json& j, size_t nodes) {
  const auto p = parse_faults(j, nodes);
  EXPECT_TRUE(p.diag.ok()) << (p.diag.ok() ? "" : p.problems().front());
  return p.cfg;
}

// Up and down periods of every node, from the ground-truth listener.
struct Periods : net::HostListener {
  Simulator& sim;
  std::map<NodeId, SimTime> last;
  std::vector<double> up_s, down_s;
  std::map<NodeId, std::vector<double>> crash_times_s;
  explicit Periods(Simulator& s) : sim(s) {}
  void on_crash(NodeId n) override {
    up_s.push_back((sim.now() - (last.count(n) ? last[n] : SimTime::zero())).seconds());
    last[n] = sim.now();
    crash_times_s[n].push_back(sim.now().seconds());
  }
  void on_recover(NodeId n, uint32_t) override {
    down_s.push_back((sim.now() - last[n]).seconds());
    last[n] = sim.now();
  }
};

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

TEST(CrashProcess, UpAndDownTimesAreExponentialWithTheConfiguredMeans) {
  const double up = 10, down = 2;
  const size_t n_nodes = 40;
  FaultWorld w(n_nodes, parsed({{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", up},
                                 {"mean_down_s", down}}},
                               n_nodes));
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(3000));
  // About 40 * 3000 / 12 = 10000 cycles. Exponential: sd = mean, so se = mean / sqrt(n).
  ASSERT_GT(p.up_s.size(), 8000u);
  ASSERT_GT(p.down_s.size(), 8000u);
  EXPECT_NEAR(mean(p.up_s), up, 4.5 * up / std::sqrt(double(p.up_s.size())));
  EXPECT_NEAR(mean(p.down_s), down, 4.5 * down / std::sqrt(double(p.down_s.size())));
  // Exponential, not just the right mean: P(X > mean) = e^-1.
  double above = 0;
  for (double x : p.up_s) above += x > up;
  const double q = std::exp(-1.0), n = double(p.up_s.size());
  EXPECT_NEAR(above / n, q, 4.5 * std::sqrt(q * (1 - q) / n));
}

TEST(CrashProcess, WithoutMeanDownNodesStayDownAndNothingHappensOutsideTheWindow) {
  FaultWorld w(50, parsed({{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 5},
                            {"start_s", 100}, {"stop_s", 104}}},
                          50));
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(1000));
  EXPECT_TRUE(p.down_s.empty());
  ASSERT_FALSE(p.crash_times_s.empty());
  for (const auto& [node, times] : p.crash_times_s) {
    ASSERT_EQ(times.size(), 1u);
    EXPECT_GE(times[0], 100);
    EXPECT_LT(times[0], 104);
  }
  // P(crash within 4 s of the start) = 1 - e^(-4/5) per node.
  const double q = 1 - std::exp(-0.8);
  EXPECT_NEAR(p.crash_times_s.size() / 50.0, q, 4.5 * std::sqrt(q * (1 - q) / 50));
}

std::vector<double> node0_crash_times(const json& faults, size_t n_nodes) {
  FaultWorld w(n_nodes, parsed(faults, n_nodes), 9);
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(500));
  return p.crash_times_s[0];
}

TEST(CrashProcess, AddingNodesOrOtherFaultsDoesNotChangeNode0Draws) {
  const json alone = {{{"kind", "crash_process"}, {"nodes", {0}}, {"mean_up_s", 20},
                       {"mean_down_s", 3}}};
  const json more = {{{"kind", "pause_process"}, {"nodes", "all"}, {"mean_interval_s", 7},
                      {"duration_ms", 300}},
                     {{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 20},
                      {"mean_down_s", 3}},
                     {{"kind", "crash"}, {"at_s", 50}, {"nodes", {5}}}};
  const auto base = node0_crash_times(alone, 2);
  ASSERT_GT(base.size(), 10u);
  EXPECT_EQ(base, node0_crash_times(alone, 30));
  EXPECT_EQ(base, node0_crash_times(more, 30));
}

TEST(PauseProcess, PauseStartsArePoissonAndDurationsComeFromTheDistribution) {
  const size_t n_nodes = 20;
  FaultWorld w(n_nodes, parsed({{{"kind", "pause_process"}, {"nodes", "all"},
                                 {"mean_interval_s", 5},
                                 {"duration", {{"model", "uniform"}, {"min_ms", 10}, {"max_ms", 30}}}}},
                               n_nodes));
  struct Pauses : net::HostListener {
    Simulator& sim;
    std::map<NodeId, SimTime> started;
    std::vector<double> len_ms;
    size_t count = 0;
    explicit Pauses(Simulator& s) : sim(s) {}
    void on_pause(NodeId n) override {
      started[n] = sim.now();
      ++count;
    }
    void on_resume(NodeId n) override { len_ms.push_back((sim.now() - started[n]).millis()); }
  } pauses(w.sim);
  w.hosts.add_listener(&pauses);
  const double horizon_s = 2000;
  w.sim.run_until(SimTime::from_seconds(horizon_s));
  // Poisson count of starts: mean = variance = n * T / interval = 8000. A start that falls
  // inside a running pause (probability <= 30 ms / 5 s = 0.6 %) merges and is not counted, and
  // lengthens that pause by at most 30 ms: both biases are bounded and added to the tolerance.
  const double overlap = 0.030 / 5;
  const double expected = n_nodes * horizon_s / 5;
  EXPECT_NEAR(double(pauses.count), expected, 4.5 * std::sqrt(expected) + overlap * expected);
  for (double l : pauses.len_ms) {
    ASSERT_GE(l, 10);
    ASSERT_LE(l, 30 * 2);  // a merged pair is at most two pauses
  }
  const double se = (20 / std::sqrt(12.0)) / std::sqrt(double(pauses.len_ms.size()));
  EXPECT_NEAR(mean(pauses.len_ms), 20, 4.5 * se + overlap * 30);
}

}  // namespace
}  // namespace fdsim::faults

namespace fdsim::faults {
namespace {

uint64_t faulty_run_fingerprint(uint64_t seed) {
  const json faults = {{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 30},
                        {"mean_down_s", 5}},
                       {{"kind", "pause_process"}, {"nodes", "all"}, {"mean_interval_s", 10},
                        {"duration", {{"model", "exponential"}, {"min_ms", 5}, {"mean_ms", 80}}}},
                       {{"kind", "partition"}, {"at_s", 50}, {"heal_at_s", 70}, {"a", {0, 1}}}};
  FaultWorld w(10, parsed(faults, 10), seed);
  w.sim.run_until(SimTime::from_seconds(300));
  return w.sim.fingerprint();
}

TEST(FaultProcesses, SameSeedSameFingerprint_DifferentSeedDifferentFingerprint) {
  EXPECT_EQ(faulty_run_fingerprint(5), faulty_run_fingerprint(5));
  EXPECT_NE(faulty_run_fingerprint(5), faulty_run_fingerprint(6));
}

}  // namespace
}  // namespace fdsim::faults
