// Failure processes beyond the exponential: Weibull / lognormal / empirical up and down times
// (sample mean and variance against the closed forms), correlated group crashes (every member
// down at one instant), crash storms (sizes, window, spacing), the hold rule, and the
// validation of the new fields (exact JSON paths, event-rate budget).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "sim/engine/trace.h"
#include "tests/faults/faults_fixture.h"
#include "tests/support/sample_moments.h"

// A named namespace: the test sources are compiled as one unity file, and the other test files'
// anonymous-namespace helpers (parsed, Periods, has_problem) would clash.
namespace fdsim::faults {
namespace failure_law_test {

using nlohmann::json;
using testing_support::FaultWorld;
using testing_support::parse_faults;

FaultsConfig parsed(const json& j, size_t nodes) {
  const auto p = parse_faults(j, nodes);
  EXPECT_TRUE(p.diag.ok()) << (p.diag.ok() ? "" : p.problems().front());
  return p.cfg;
}

bool has_problem(const json& faults, const std::string& text, size_t nodes = 4) {
  const auto p = parse_faults(faults, nodes);
  for (const auto& s : p.problems())
    if (s.find(text) != std::string::npos) return true;
  ADD_FAILURE() << "no problem containing: " << text << "\n  got: "
                << (p.problems().empty() ? "(none)" : p.problems().front());
  return false;
}

// Up periods (start or recovery to crash) and down periods of every node.
struct Periods : net::HostListener {
  Simulator& sim;
  std::map<NodeId, SimTime> last;
  std::vector<double> up_s, down_s;
  std::vector<std::pair<double, NodeId>> crashes, recoveries;
  explicit Periods(Simulator& s) : sim(s) {}
  void on_crash(NodeId n) override {
    up_s.push_back((sim.now() - (last.count(n) ? last[n] : SimTime::zero())).seconds());
    last[n] = sim.now();
    crashes.push_back({sim.now().seconds(), n});
  }
  void on_recover(NodeId n, uint32_t) override {
    down_s.push_back((sim.now() - last[n]).seconds());
    last[n] = sim.now();
    recoveries.push_back({sim.now().seconds(), n});
  }
};

using test_support::Moments;
Moments moments(const std::vector<double>& v) { return test_support::sample_moments(v); }

// Raw moments E[X^k] of the laws, for the standard errors of the sample mean and variance.
double weibull_raw(double shape, double scale, int k) {
  return std::pow(scale, k) * std::tgamma(1.0 + k / shape);
}
double lognormal_raw(double median, double sigma, int k) {
  return std::exp(k * std::log(median) + k * k * sigma * sigma / 2);
}
// se of the sample mean: sqrt(var / n); of the sample variance: sqrt((mu4 - var^2) / n), with
// mu4 the fourth central moment from the raw moments m1..m4.
struct Se {
  double mean, var;
};
Se standard_errors(double m1, double m2, double m3, double m4, double n) {
  const double var = m2 - m1 * m1;
  const double mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1;
  return {std::sqrt(var / n), std::sqrt((mu4 - var * var) / n)};
}

// Runs a crash_process with the given up law and a short exponential down time on 50 nodes and
// checks the up times' sample mean and variance against the law's formulas (4.5 se).
void check_up_law(const json& up, double mean, double var, Se per_sample_se_at_n1) {
  const size_t n_nodes = 50;
  FaultWorld w(n_nodes, parsed({{{"kind", "crash_process"}, {"nodes", "all"}, {"up", up},
                                 {"mean_down_s", 0.5}}},
                               n_nodes));
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(4000));
  ASSERT_GT(p.up_s.size(), 15000u);
  // The first up period of a node starts at 0, every later one at a recovery: all are draws.
  const Moments m = moments(p.up_s);
  const double n = double(p.up_s.size());
  std::printf("%s: n %zu, mean %.4f s (formula %.4f, se %.4f), variance %.3f s^2 (formula %.3f, "
              "se %.3f)\n",
              up.dump().c_str(), p.up_s.size(), m.mean, mean, per_sample_se_at_n1.mean / std::sqrt(n),
              m.var, var, per_sample_se_at_n1.var / std::sqrt(n));
  EXPECT_NEAR(m.mean, mean, 4.5 * per_sample_se_at_n1.mean / std::sqrt(n)) << up.dump();
  EXPECT_NEAR(m.var, var, 4.5 * per_sample_se_at_n1.var / std::sqrt(n)) << up.dump();
  const Moments d = moments(p.down_s);
  EXPECT_NEAR(d.mean, 0.5, 4.5 * 0.5 / std::sqrt(double(p.down_s.size())));
}

TEST(FailureLaws, WeibullUpTimesHaveTheFormulaMeanAndVariance) {
  for (const double shape : {0.8, 2.0}) {
    const double scale = 10;
    const double m1 = weibull_raw(shape, scale, 1), m2 = weibull_raw(shape, scale, 2);
    const Se se = standard_errors(m1, m2, weibull_raw(shape, scale, 3),
                                  weibull_raw(shape, scale, 4), 1);
    // The law's own accessors give the same closed forms.
    const auto law = Lifetime::weibull(shape, scale);
    EXPECT_DOUBLE_EQ(law->mean_s(), m1);
    EXPECT_NEAR(law->variance_s2(), m2 - m1 * m1, 1e-9 * m2);
    check_up_law({{"distribution", "weibull"}, {"shape", shape}, {"scale_s", scale}}, m1,
                 m2 - m1 * m1, se);
  }
}

TEST(FailureLaws, LognormalUpTimesHaveTheFormulaMeanAndVariance) {
  const double median = 8, sigma = 0.6;
  const double m1 = lognormal_raw(median, sigma, 1), m2 = lognormal_raw(median, sigma, 2);
  const Se se = standard_errors(m1, m2, lognormal_raw(median, sigma, 3),
                                lognormal_raw(median, sigma, 4), 1);
  const auto law = Lifetime::lognormal(median, sigma);
  EXPECT_NEAR(law->mean_s(), m1, 1e-12 * m1);
  EXPECT_NEAR(law->variance_s2(), m2 - m1 * m1, 1e-9 * m2);
  check_up_law({{"distribution", "lognormal"}, {"median_s", median}, {"sigma", sigma}}, m1,
               m2 - m1 * m1, se);
}

TEST(FailureLaws, EmpiricalUpTimesDrawTheFileValuesUniformly) {
  const std::string path = testing::TempDir() + "/fdsim_world_uptimes.txt";
  {
    std::ofstream f(path);
    f << "# up times in ms\n2000\n6000\n\n10000  # three values: mean 6 s\n";
  }
  const double m1 = 6, m2 = (4.0 + 36 + 100) / 3, m3 = (8.0 + 216 + 1000) / 3,
               m4 = (16.0 + 1296 + 10000) / 3;
  check_up_law({{"distribution", "empirical"}, {"file", path}}, m1, m2 - m1 * m1,
               standard_errors(m1, m2, m3, m4, 1));
  // Only the file's values occur.
  FaultWorld w(5, parsed({{{"kind", "crash_process"}, {"nodes", "all"},
                           {"up", {{"distribution", "empirical"}, {"file", path}}},
                           {"mean_down_s", 1}}},
                         5));
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(500));
  ASSERT_GT(p.up_s.size(), 100u);
  for (double x : p.up_s) ASSERT_TRUE(x == 2 || x == 6 || x == 10) << x;
}

TEST(FailureLaws, ExponentialObjectIsTheSameProcessAsMeanUpS) {
  auto run = [](const json& faults) {
    FaultWorld w(6, parsed(faults, 6), 3);
    w.sim.run_until(SimTime::from_seconds(400));
    return w.timeline.events;
  };
  const auto a = run({{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 20},
                       {"mean_down_s", 4}}});
  const auto b = run({{{"kind", "crash_process"}, {"nodes", "all"},
                       {"up", {{"distribution", "exponential"}, {"mean_s", 20}}},
                       {"down", {{"distribution", "exponential"}, {"mean_s", 4}}}}});
  ASSERT_GT(a.size(), 100u);
  EXPECT_EQ(a, b);
}

TEST(GroupCrash, EveryMemberGoesDownAndComesBackAtOneInstant) {
  const size_t n_nodes = 8;
  FaultWorld w(n_nodes, parsed({{{"kind", "group_crash_process"}, {"nodes", "left"},
                                 {"mean_up_s", 50}, {"mean_down_s", 5}}},
                               n_nodes));
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  w.sim.run_until(SimTime::from_seconds(5000));
  ASSERT_GT(p.crashes.size(), 100u);
  ASSERT_EQ(p.crashes.size() % 2, 0u);
  // Crashes come in pairs {0, 1} at one instant, and so do recoveries; no other node is hit.
  for (size_t i = 0; i < p.crashes.size(); i += 2) {
    EXPECT_EQ(p.crashes[i].first, p.crashes[i + 1].first);
    EXPECT_EQ(std::set<NodeId>({p.crashes[i].second, p.crashes[i + 1].second}),
              std::set<NodeId>({0, 1}));
  }
  for (size_t i = 0; i + 1 < p.recoveries.size(); i += 2)
    EXPECT_EQ(p.recoveries[i].first, p.recoveries[i + 1].first);
  // One process: the group's up times are Exp(50) (the pairs counted once).
  std::vector<double> ups;
  for (size_t i = 0; i < p.up_s.size(); i += 2) ups.push_back(p.up_s[i]);
  EXPECT_NEAR(moments(ups).mean, 50, 4.5 * 50 / std::sqrt(double(ups.size())));
}

TEST(GroupCrash, ARackRecoveryDoesNotReviveANodeItsOwnProcessHoldsDown) {
  FaultsConfig cfg = parsed({{{"kind", "crash_process"}, {"nodes", {0}}, {"mean_up_s", 1e-3},
                              {"start_s", 1}, {"stop_s", 1.5}},  // crash-stop node 0 near t = 1
                             {{"kind", "group_crash_process"}, {"nodes", "left"},
                              {"mean_up_s", 10}, {"mean_down_s", 1}, {"start_s", 2}}},
                            4);
  FaultWorld w(4, cfg);
  w.sim.run_until(SimTime::from_seconds(500));
  EXPECT_TRUE(w.hosts.is_crashed(0));  // the rack came back many times; node 0 never did
  size_t node1_recoveries = 0;
  for (const auto& e : w.timeline.events) {
    EXPECT_EQ(e.find("recover 0"), std::string::npos) << e;
    node1_recoveries += e.find("recover 1") != std::string::npos;
  }
  EXPECT_GT(node1_recoveries, 10u);
}

struct StormTrace : TraceSink {
  std::vector<std::pair<double, std::vector<NodeId>>> storms;
  void record(SimTime t, NodeId, std::string_view kind, const json& fields) override {
    if (kind == "crash_storm") storms.push_back({t.seconds(), fields["nodes"]});
  }
};

TEST(CrashStorm, EachStormCrashesSizeDistinctNodesWithinTheWindowAtPoissonSpacing) {
  const size_t n_nodes = 20, size = 5;
  const double interval = 40, window = 2;
  FaultsConfig cfg = parsed({{{"kind", "crash_storm"}, {"nodes", "all"}, {"mean_interval_s", interval},
                              {"size", size}, {"window_s", window}, {"mean_down_s", 0.5}}},
                            n_nodes);
  StormTrace trace;
  FaultWorld w(n_nodes, cfg);
  w.sim.set_trace(&trace);  // storm events are recorded when they run, after start()
  Periods p(w.sim);
  w.hosts.add_listener(&p);
  const double horizon = 40000;
  w.sim.run_until(SimTime::from_seconds(horizon));
  ASSERT_GT(trace.storms.size(), 800u);
  // Storm starts are Poisson: count ~ horizon / interval, spacing mean = interval.
  const double expected = horizon / interval;
  EXPECT_NEAR(double(trace.storms.size()), expected, 4.5 * std::sqrt(expected));
  std::printf("storms: %zu (expected %.0f +- %.1f)\n", trace.storms.size(), expected,
              std::sqrt(expected));
  std::vector<double> gaps;
  for (size_t i = 1; i < trace.storms.size(); ++i)
    gaps.push_back(trace.storms[i].first - trace.storms[i - 1].first);
  EXPECT_NEAR(moments(gaps).mean, interval, 4.5 * interval / std::sqrt(double(gaps.size())));
  // Each storm names `size` distinct nodes, and each of them crashes within [t, t + window)
  // (a victim still down from the previous storm would be a merged hold, not a crash: with
  // storms 40 s apart and down times of 0.5 s that is rare; count the crashes that match).
  size_t matched = 0, named = 0;
  std::multiset<std::pair<double, NodeId>> crashes(p.crashes.begin(), p.crashes.end());
  for (const auto& [t, nodes] : trace.storms) {
    ASSERT_EQ(nodes.size(), size);
    ASSERT_EQ(std::set<NodeId>(nodes.begin(), nodes.end()).size(), size);
    for (NodeId n : nodes) {
      ++named;
      for (auto it = crashes.lower_bound({t, 0}); it != crashes.end() && it->first < t + window;
           ++it)
        if (it->second == n) {
          ++matched;
          break;
        }
    }
  }
  EXPECT_GE(double(matched), 0.99 * double(named));
  std::printf("storm gaps: mean %.3f s (expected %.1f); victims crashed in their window: %zu of %zu\n",
              moments(gaps).mean, interval, matched, named);
  // And no crash outside the window of a storm that named the node.
  for (const auto& [t, n] : p.crashes) {
    bool inside = false;
    for (const auto& [ts, nodes] : trace.storms)
      if (ts <= t && t < ts + window && std::count(nodes.begin(), nodes.end(), n) > 0)
        inside = true;
    ASSERT_TRUE(inside) << "crash of node " << n << " at " << t << " s";
  }
  // Victims are uniform: each node is named size / n of the time.
  std::map<NodeId, double> hits;
  for (const auto& s : trace.storms)
    for (NodeId n : s.second) ++hits[n];
  const double q = double(size) / n_nodes, storms = double(trace.storms.size());
  for (NodeId n = 0; n < n_nodes; ++n)
    EXPECT_NEAR(hits[n] / storms, q, 4.5 * std::sqrt(q * (1 - q) / storms)) << n;
}

TEST(FailureConfig, NewFieldsAreValidatedAtTheirPaths) {
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 5},
                            {"up", {{"distribution", "exponential"}, {"mean_s", 5}}}}},
                          "$.faults[0]: only one of 'mean_up_s', 'up' may be given"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"}}},
                          "$.faults[0].mean_up_s: required field is missing"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"},
                            {"up", {{"distribution", "weibull"}, {"shape", 0.01}, {"scale_s", 5}}}}},
                          "$.faults[0].up.shape:"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"},
                            {"up", {{"distribution", "gamma"}, {"mean_s", 5}}}}},
                          "$.faults[0].up.distribution:"));
  EXPECT_TRUE(has_problem({{{"kind", "group_crash_process"}, {"nodes", "all"}, {"mean_up_s", 5},
                            {"down", {{"distribution", "lognormal"}, {"median_s", 1}, {"sigma", 11}}}}},
                          "$.faults[0].down.sigma:"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"},
                            {"up", {{"distribution", "empirical"}, {"file", "/nonexistent/x"}}}}},
                          "$.faults[0].up.file:"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_storm"}, {"nodes", "left"}, {"mean_interval_s", 5},
                            {"size", 3}}},
                          "$.faults[0].size: expected at most the 2 nodes"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_storm"}, {"nodes", "left"}, {"mean_interval_s", 5},
                            {"size", 0}}},
                          "$.faults[0].size:"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_storm"}, {"nodes", "left"}, {"size", 1}}},
                          "$.faults[0].mean_interval_s: required field is missing"));
  // The event-rate budget: a Weibull mean of 1e-9 s on 4 nodes is 4e9 crashes per second.
  EXPECT_TRUE(has_problem({{{"kind", "crash_process"}, {"nodes", "all"},
                            {"up", {{"distribution", "weibull"}, {"shape", 1}, {"scale_s", 1e-9}}}}},
                          "$.faults[0].up: would schedule about 4e+09 events per simulated second"));
  EXPECT_TRUE(has_problem({{{"kind", "crash_storm"}, {"nodes", "all"}, {"mean_interval_s", 1e-9},
                            {"size", 2}}},
                          "$.faults[0].mean_interval_s: would schedule about 2e+09 events"));
  // Valid forms parse, with distinct stream names.
  const auto p = parse_faults({{{"kind", "group_crash_process"}, {"nodes", "left"}, {"mean_up_s", 5}},
                               {{"kind", "group_crash_process"}, {"nodes", "right"}, {"mean_up_s", 5}},
                               {{"kind", "crash_storm"}, {"nodes", "all"}, {"mean_interval_s", 5},
                                {"size", 4}, {"window_ms", 300}}});
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  EXPECT_EQ(p.cfg.group_crash_processes[1].stream, "faults.group_crash_process#1");
  EXPECT_EQ(p.cfg.crash_storms[0].window, Duration::ms(300));
  EXPECT_EQ(p.resolved["faults"][0]["mean_down_s"], nullptr);
}

}  // namespace failure_law_test
}  // namespace fdsim::faults
