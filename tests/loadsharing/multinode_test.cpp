// Multi-node runs: Little's law per node, conservation under crashes and pauses, common random
// numbers across arms, and the effect of transfers.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/loadsharing/test_time.h"
#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;


// Little's law L = lambda W on every node's own queue (tasks that joined it, local or
// transferred in): L is the time-average queue length over the window, lambda the rate of
// joins, W the mean stay of the tasks that joined in the window and left it. The identity is
// exact up to the tasks straddling the window ends (a handful of tasks of a few seconds each
// against a 19 000 s window, i.e. well below 1%); 2% leaves room for that and nothing else.
TEST(LittlesLaw, HoldsOnEveryNodeOfAMultiNodeRunWithTransfers) {
  const json w = {
      {"arrival_rate_per_s", 0.75},
      {"load_phases",
       json::array({{{"nodes", json::array({0, 1})}, {"from_s", 0}, {"rate_per_s", 0.95}}})},
      {"deadline", {{"kind", "uniform"}, {"min_s", 2.0}, {"max_s", 8.0}}}};
  const json ls = {{"buddy_size", 4}, {"per_node_metrics", true}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 8);
  testing::Harness h(cfg, 0, 99, 20000.0, 1000.0);
  const json m = h.run();
  EXPECT_GT(m["transfers_delivered_count"].get<int>(), 1000);
  const double window = m["window_s"];
  for (const json& row : m["per_node"]) {
    const double L = row["queue_length_mean_tasks"];
    const double lambda = row["entered_count"].get<double>() / window;
    const double W = row["sojourn_mean_s"];
    EXPECT_GT(L, 0.5) << row.dump();
    EXPECT_NEAR(L, lambda * W, 0.02 * L) << row.dump();
  }
}

struct CrashPlan {
  struct Step {
    SimTime at;
    NodeId node;
    int what;  // 0 crash, 1 recover, 2 pause, 3 resume
  };
  std::vector<Step> steps;
};

// Crash/repair (exponential up 120 s, down 30 s) and short pauses, drawn once from a test
// stream so that every arm replays exactly the same fault history.
CrashPlan make_plan(size_t nodes, double horizon_s) {
  CrashPlan plan;
  const RngFactory rng(4242, 0);
  for (size_t n = 0; n < nodes; ++n) {
    Rng r = rng.stream(NodeId(n), "test.faults");
    double t = r.exponential(1.0 / 120.0);
    while (t < horizon_s) {
      plan.steps.push_back({at_s(t), NodeId(n), 0});
      t += r.exponential(1.0 / 30.0);
      plan.steps.push_back({at_s(t), NodeId(n), 1});
      // A 2 s pause shortly after the repair (a task may be waiting for it).
      plan.steps.push_back({at_s(t + 5.0), NodeId(n), 2});
      plan.steps.push_back({at_s(t + 7.0), NodeId(n), 3});
      t += 10.0 + r.exponential(1.0 / 120.0);
    }
  }
  return plan;
}

void schedule(testing::Harness& h, const CrashPlan& plan) {
  for (const auto& s : plan.steps) {
    if (s.at >= h.world.horizon) continue;
    h.sim.schedule_at(s.at, h.sim.kind("test.fault"), s.node, [&h, s] {
      switch (s.what) {
        case 0:
          h.hosts.crash(s.node);
          break;
        case 1:
          h.hosts.recover(s.node);
          break;
        case 2:
          h.hosts.pause(s.node);
          break;
        default:
          h.hosts.resume(s.node);
          break;
      }
    });
  }
}

const json kArms = json::parse(R"([
  {"name": "none", "diagnosis": "none"},
  {"name": "fixed_3s", "diagnosis": "fixed", "timeout_ms": 3000},
  {"name": "oracle", "diagnosis": "oracle"},
  {"name": "hs05", "diagnosis": "hou_shin", "alpha": 0.05},
  {"name": "hs_extra", "diagnosis": "hou_shin_extra", "alpha": 0.05}])");

// Every arm of one replication: the finish() of each run checks conservation per origin node
// (it aborts on a violation); here we also check the identity on the reported metrics, and that
// every arm saw exactly the same tasks at every node.
TEST(LoadSharingRun, ConservationHoldsUnderCrashesAndPausesAndArmsSeeTheSameArrivals) {
  const json w = {{"arrival_rate_per_s", 0.8},
                  {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};
  // Strong priors (the rates are known well): the Hou-Shin estimates then move slowly, which
  // keeps the number of distinct T_out computations (and the test's run time) small.
  const json estimation = {{"arrival_prior_shape", 8000.0},
                           {"arrival_prior_exposure_s", 10000.0},
                           {"execution_prior_shape", 10000.0},
                           {"execution_prior_exposure_s", 10000.0}};
  const json ls = {
      {"buddy_size", 5}, {"per_node_metrics", true}, {"estimation", estimation}, {"arms", kArms}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 8);
  net::NetworkConfig netcfg;
  netcfg.latency = net::exponential_latency(1.0, 5.0);
  netcfg.loss = 0.02;
  const double horizon = 800.0;
  const CrashPlan plan = make_plan(8, horizon);

  std::vector<json> per_arm;
  for (size_t arm = 0; arm < cfg.arms.size(); ++arm) {
    testing::Harness h(cfg, arm, 7, horizon, 50.0, netcfg);
    schedule(h, plan);
    const json m = h.run();
    SCOPED_TRACE(cfg.arms[arm].name);
    EXPECT_EQ(m["tasks_arrived_count"].get<uint64_t>(),
              m["tasks_completed_on_time_count"].get<uint64_t>() +
                  m["tasks_missed_count"].get<uint64_t>() + m["tasks_lost_count"].get<uint64_t>() +
                  m["tasks_queued_at_horizon_count"].get<uint64_t>());
    EXPECT_GT(m["tasks_lost_in_crash_count"].get<int>(), 0);
    EXPECT_GT(m["crashes_count"].get<int>(), 20);
    EXPECT_GT(m["transfers_delivered_count"].get<int>(), 50);
    per_arm.push_back(m);
  }
  for (size_t arm = 1; arm < per_arm.size(); ++arm) {
    for (size_t n = 0; n < 8; ++n) {
      EXPECT_EQ(per_arm[arm]["per_node"][n]["arrived_count"],
                per_arm[0]["per_node"][n]["arrived_count"]);
      EXPECT_EQ(per_arm[arm]["per_node"][n]["arrived_while_down_count"],
                per_arm[0]["per_node"][n]["arrived_while_down_count"]);
    }
  }
  // No diagnosis: transfers go to dead nodes. The oracle never sends to a dead node (a task can
  // still die with a receiver that crashes during the transfer).
  EXPECT_GT(per_arm[0]["transfers_to_dead_count"].get<int>(), 0);
  EXPECT_EQ(per_arm[0]["suspicions_count"], 0);
  EXPECT_EQ(per_arm[2]["transfers_to_dead_count"], 0);
  EXPECT_EQ(per_arm[2]["false_suspicions_count"], 0);
  EXPECT_LT(per_arm[2]["tasks_lost_in_transfer_to_dead_count"].get<int>(),
            per_arm[0]["tasks_lost_in_transfer_to_dead_count"].get<int>());
  // Timeout arms detect crashes; extra broadcasts cut false suspicions of the plain test.
  EXPECT_GT(per_arm[1]["detections_count"].get<int>(), 0);
  EXPECT_GT(per_arm[4]["broadcasts_extra_count"].get<int>(), 0);
  EXPECT_LT(per_arm[4]["false_suspicions_count"].get<int>(),
            per_arm[3]["false_suspicions_count"].get<int>());
}

// Two overloaded nodes (rate 1.4 > mu) among lightly loaded ones: without transfers they miss
// many deadlines (fewer than the 0.4 / 1.4 a FCFS server would: the guarantee test admits the
// short tasks first, so more than one task per second completes in time); with transfers their
// excess goes to underloaded buddies.
TEST(LoadSharingRun, TransfersCutMissesWhenLoadIsImbalanced) {
  const json w = {
      {"arrival_rate_per_s", 0.2},
      {"load_phases",
       json::array({{{"nodes", json::array({0, 4})}, {"from_s", 0}, {"rate_per_s", 1.4}}})},
      {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};
  auto ratio = [&](bool transfers) {
    const LoadSharingConfig cfg =
        testing::parse_ok(w, {{"buddy_size", 4}, {"transfers", transfers}}, 8);
    testing::Harness h(cfg, 0, 5, 3000.0, 300.0);
    const json m = h.run();
    return m["dynamic_failure_ratio"].get<double>();
  };
  const double without = ratio(false), with = ratio(true);
  EXPECT_GT(without, 0.1);
  EXPECT_LT(with, 0.25 * without);
}

TEST(LoadSharingRun, DropPolicyCountsUnplacedTasksAsMissedAtOnce) {
  const json w = {{"arrival_rate_per_s", 1.5},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 3.0}}}};
  const LoadSharingConfig cfg =
      testing::parse_ok(w, {{"transfers", false}, {"unplaced", "drop"}}, 1);
  testing::Harness h(cfg, 0, 3, 2000.0, 100.0);
  const json m = h.run();
  EXPECT_GT(m["tasks_dropped_count"].get<int>(), 100);
  // Only guaranteed tasks run; the other misses are the tasks whose execution time exceeds
  // the 3 s deadline (infeasible at arrival since issue 13, not tested for a guarantee).
  EXPECT_GT(m["tasks_infeasible_count"].get<int>(), 10);
  EXPECT_EQ(m["tasks_dropped_count"].get<int>() + m["tasks_infeasible_count"].get<int>(),
            m["tasks_missed_count"].get<int>());
  EXPECT_EQ(m["tasks_dropped_count"], m["guarantee_failures_count"]);
}

}  // namespace
}  // namespace fdsim::loadsharing

namespace fdsim::loadsharing {
namespace {

LoadSharingConfig busy_config(const json& ls_extra) {
  const json w = {
      {"arrival_rate_per_s", 0.5},
      {"load_phases",
       json::array({{{"nodes", json::array({0, 3})}, {"from_s", 0}, {"rate_per_s", 1.2}}})},
      {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};
  json ls = {{"buddy_size", 4}};
  ls.update(ls_extra);
  return testing::parse_ok(w, ls, 6);
}

TEST(LoadSharingRun, SameSeedGivesIdenticalMetricsAndFingerprint) {
  const LoadSharingConfig cfg = busy_config(json::object());
  auto once = [&](uint64_t seed) {
    testing::Harness h(cfg, 0, seed, 1500.0, 100.0);
    const json m = h.run();
    return std::make_pair(m.dump(), h.sim.fingerprint());
  };
  const auto a = once(5), b = once(5), c = once(6);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  EXPECT_NE(a.second, c.second);
}

// Transfers over unreliable datagrams lose a task with each lost datagram; the reliable channel
// retransmits (loss only delays) and loses none. 20% loss, no crash.
TEST(LoadSharingRun, UnreliableTransfersLoseTasksReliableOnesDoNot) {
  net::NetworkConfig lossy = testing::constant_network(2.0);
  lossy.loss = 0.2;
  auto lost = [&](const std::string& transport) {
    const LoadSharingConfig cfg =
        busy_config({{"transfer_transport", transport}, {"transfer_give_up_s", 5.0}});
    testing::Harness h(cfg, 0, 9, 1500.0, 100.0, lossy);
    const json m = h.run();
    EXPECT_GT(m["transfers_attempted_count"].get<int>(), 200) << transport;
    return std::make_pair(m["tasks_lost_in_transfer_unreachable_count"].get<int>(),
                          m["transfers_attempted_count"].get<int>());
  };
  const auto unreliable = lost("unreliable");
  const auto reliable = lost("reliable");
  EXPECT_EQ(reliable.first, 0);
  // Binomial(attempts, 0.2): within 4.5 sd of the mean.
  const double n = unreliable.second, mean = 0.2 * n, sd = std::sqrt(n * 0.2 * 0.8);
  EXPECT_NEAR(unreliable.first, mean, 4.5 * sd);
}

// A partition cuts node 0 (overloaded) from everyone: the reliable channel gives up at the first
// attempt through the cut, and the model writes the task off after transfer_give_up_s.
TEST(LoadSharingRun, TransfersAcrossAPartitionAreWrittenOffAfterTheGiveUp) {
  const LoadSharingConfig cfg = busy_config({{"transfer_give_up_s", 5.0}});
  testing::Harness h(cfg, 0, 9, 1500.0, 100.0);
  h.sim.schedule_at(SimTime::from_seconds(500), h.sim.kind("test.partition"), kNoNode,
                    [&h] { h.net.add_partition({0}, {}, false); });
  const json m = h.run();
  EXPECT_GT(m["tasks_lost_in_transfer_unreachable_count"].get<int>(), 10);
  EXPECT_EQ(m["tasks_lost_in_transfer_to_dead_count"], 0);
}

}  // namespace
}  // namespace fdsim::loadsharing

namespace fdsim::loadsharing {
namespace {

// With known execution times, a guaranteed task's completion time is exact and no later
// insertion may push it past its deadline; background tasks never overtake it. So every miss is
// a task that was run without a guarantee, or one that was infeasible at arrival (execution
// time above its relative deadline: never queued). Placing the unguaranteed tasks in the MLFS
// order instead (in_order) breaks guarantees. One overloaded node, no transfers, no warm-up
// (every task counted); late_tasks = finish so that a broken guarantee shows as a late
// completion (under abort the victim may expire instead, which the counts below do not tell
// apart from an unguaranteed task expiring).
TEST(UnplacedPolicy, BackgroundRunsNeverMakeAGuaranteedTaskMiss_InOrderRunsDo) {
  const json w = {{"arrival_rate_per_s", 1.1},
                  {"deadline", {{"kind", "uniform"}, {"min_s", 2.0}, {"max_s", 12.0}}}};
  auto run = [&](const std::string& unplaced) {
    const LoadSharingConfig cfg =
        testing::parse_ok(w, {{"transfers", false}, {"unplaced", unplaced}, {"late_tasks", "finish"}}, 1);
    testing::Harness h(cfg, 0, 17, 3000.0, 0.0);
    return h.run();
  };
  const json bg = run("background");
  EXPECT_GT(bg["unguaranteed_runs_count"].get<int>(), 100);
  const int bg_infeasible = bg["tasks_infeasible_count"].get<int>();
  EXPECT_GT(bg_infeasible, 0);
  EXPECT_LE(bg["tasks_missed_count"].get<int>() - bg_infeasible,
            bg["unguaranteed_runs_count"].get<int>());
  EXPECT_GE(bg["tasks_completed_on_time_count"].get<int>(),
            bg["tasks_arrived_count"].get<int>() - bg["unguaranteed_runs_count"].get<int>() -
                bg["tasks_queued_at_horizon_count"].get<int>() - bg_infeasible);
  const json in_order = run("in_order");
  EXPECT_GT(in_order["tasks_missed_count"].get<int>() - in_order["tasks_infeasible_count"].get<int>(),
            in_order["unguaranteed_runs_count"].get<int>());
}

}  // namespace
}  // namespace fdsim::loadsharing
