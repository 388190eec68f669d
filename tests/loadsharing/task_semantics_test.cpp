// Task semantics that make P(dynamic failure) monotone in the quality of diagnosis (issue 13,
// item 1): infeasible tasks fail at arrival and are never transferred, late tasks are never
// started and aborted at their deadline (late_tasks = abort), transfers only when the task can
// still make it at the receiver, and the decomposition of the failure ratio.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace task_semantics_test {

using testing::json;

uint64_t count(const json& m, const char* key) { return m[key].get<uint64_t>(); }

// Deterministic 5 s tasks with a 3 s relative deadline: none can ever make it.
TEST(TaskSemantics, InfeasibleTasksFailAtArrivalAndAreNeverQueuedOrTransferred) {
  const json w = {{"arrival_rate_per_s", 0.5},
                  {"execution", {{"distribution", "deterministic"}, {"value_s", 5.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 3.0}}}};
  const LoadSharingConfig cfg = testing::parse_ok(w, {{"buddy_size", 3}}, 4);
  testing::Harness h(cfg, 0, 3, 500.0, 0.0);
  const json m = h.run();
  EXPECT_GT(count(m, "tasks_arrived_count"), 800u);
  EXPECT_EQ(count(m, "tasks_infeasible_count"), count(m, "tasks_arrived_count"));
  EXPECT_EQ(count(m, "tasks_feasible_count"), 0u);
  EXPECT_EQ(count(m, "transfers_attempted_count"), 0u);
  EXPECT_EQ(count(m, "guarantee_failures_count"), 0u);
  EXPECT_EQ(count(m, "response_time_count"), 0u);
  EXPECT_DOUBLE_EQ(m["dynamic_failure_ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m["dynamic_failure_infeasible_ratio"].get<double>(), 1.0);
  EXPECT_TRUE(m["dynamic_failure_feasible_ratio"].is_null());
}

// One overloaded node, no transfers, FCFS, deterministic 1 s tasks with a 2.5 s deadline at 1.5
// tasks/s. Under `finish` the server runs every task, late or not, and the queue grows without
// bound: almost everything is late. Under `abort` a task that cannot end by its deadline is
// never started (it cannot: exec is known), so the server only runs tasks that make it, and no
// task ever completes late.
json overloaded(const char* late_tasks) {
  const json w = {{"arrival_rate_per_s", 1.5},
                  {"execution", {{"distribution", "deterministic"}, {"value_s", 1.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 2.5}}}};
  const json ls = {{"scheduling", "fcfs"},
                   {"transfers", false},
                   {"unplaced", "in_order"},
                   {"late_tasks", late_tasks},
                   {"buddy_size", 0}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 1);
  testing::Harness h(cfg, 0, 8, 2000.0, 100.0);
  return h.run();
}

TEST(TaskSemantics, AbortNeverStartsALateTask_FinishRunsThemAll) {
  const json abort = overloaded("abort"), finish = overloaded("finish");
  EXPECT_EQ(count(abort, "tasks_arrived_count"), count(finish, "tasks_arrived_count"));
  EXPECT_EQ(count(abort, "tasks_completed_late_count"), 0u);
  EXPECT_GT(count(abort, "tasks_expired_count"), 500u);
  EXPECT_EQ(count(abort, "tasks_aborted_count"), 0u);  // exec known: none starts doomed
  EXPECT_EQ(count(finish, "tasks_expired_count"), 0u);
  EXPECT_GT(count(finish, "tasks_completed_late_count"), 1000u);
  // The server is never idle with work in either case; under abort all its work is useful:
  // close to 1 on-time task per second of the 1900 s window (a little less: the queue
  // sometimes empties), against almost none under finish.
  EXPECT_GT(count(abort, "tasks_completed_on_time_count"), 1600u);
  EXPECT_LT(count(finish, "tasks_completed_on_time_count"), 50u);
  EXPECT_LT(abort["dynamic_failure_ratio"].get<double>(),
            finish["dynamic_failure_ratio"].get<double>());
}

// With only the mean execution time known, the scheduler cannot tell that a 3 s task will miss
// its 2 s deadline: it starts it, and the task is aborted at its deadline. Arrivals are rare
// (every task finds the node idle), so every task is aborted exactly 2 s after its arrival.
TEST(TaskSemantics, ARunningTaskIsAbortedAtItsDeadline) {
  const json w = {{"arrival_rate_per_s", 0.02},
                  {"execution", {{"distribution", "deterministic"}, {"value_s", 3.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", 2.0}}}};
  const json ls = {{"execution_time_knowledge", "mean"}, {"transfers", false},
                   {"buddy_size", 0}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 1);
  testing::Harness h(cfg, 0, 4, 4000.0, 0.0);
  testing::MemoryTrace trace;
  h.sim.set_trace(&trace);
  const json m = h.run();
  const auto arrivals = trace.of_kind("task_arrival"), aborts = trace.of_kind("task_aborted");
  ASSERT_GT(arrivals.size(), 40u);
  // The last task may still be running at the horizon.
  EXPECT_GE(aborts.size() + 1, arrivals.size());
  for (size_t i = 0; i < aborts.size(); ++i) {
    EXPECT_EQ(aborts[i].fields["task"], arrivals[i].fields["task"]);
    EXPECT_EQ(aborts[i].t, arrivals[i].t + Duration::s(2));
  }
  EXPECT_EQ(count(m, "tasks_aborted_count"), aborts.size());
  EXPECT_EQ(count(m, "tasks_completed_on_time_count"), 0u);
  EXPECT_EQ(count(m, "tasks_infeasible_count"), 0u);  // not known to be infeasible
}

// Two nodes over 100 ms links; node 1 gets no work. Node 0 is overloaded with 1 s tasks. With
// a deadline of 1.05 s a task that fails the guarantee test could only reach node 1 after
// 100 ms and would end at 1.1 s: it is not sent. With 1.5 s it is.
json two_nodes(double deadline_s) {
  const json w = {{"arrival_rate_per_s", 0.0},
                  {"load_phases",
                   json::array({{{"nodes", json::array({0})}, {"from_s", 0}, {"rate_per_s", 1.5}}})},
                  {"execution", {{"distribution", "deterministic"}, {"value_s", 1.0}}},
                  {"deadline", {{"kind", "fixed"}, {"relative_s", deadline_s}}}};
  const LoadSharingConfig cfg = testing::parse_ok(w, {{"buddy_size", 1}}, 2);
  testing::Harness h(cfg, 0, 6, 600.0, 0.0, testing::constant_network(100.0));
  return h.run();
}

TEST(TaskSemantics, TransferOnlyIfTheTaskCanStillMeetItsDeadlineAtTheReceiver) {
  const json tight = two_nodes(1.05), loose = two_nodes(1.5);
  EXPECT_GT(count(tight, "guarantee_failures_count"), 100u);
  EXPECT_EQ(count(tight, "transfers_attempted_count"), 0u);
  EXPECT_EQ(count(tight, "unplaced_too_late_count"), count(tight, "unplaced_no_receiver_count"));
  EXPECT_GT(count(tight, "unplaced_too_late_count"), 100u);
  EXPECT_GT(count(loose, "transfers_attempted_count"), 100u);
  EXPECT_EQ(count(loose, "unplaced_too_late_count"), 0u);
}

// The decomposition adds up to the failure ratio, in a run with crashes, transfers, loss and
// every kind of failure; the feasible ratio excludes the infeasible tasks.
TEST(TaskSemantics, DecompositionAddsUpToTheDynamicFailureRatio) {
  const json w = {{"arrival_rate_per_s", 0.9},
                  {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
                  {"deadline", {{"kind", "uniform"}, {"min_s", 2.0}, {"max_s", 8.0}}}};
  const json ls = {{"buddy_size", 4}, {"unplaced", "drop"}};
  const LoadSharingConfig cfg = testing::parse_ok(w, ls, 6);
  net::NetworkConfig netcfg;
  netcfg.latency = net::exponential_latency(1.0, 5.0);
  netcfg.loss = 0.02;
  testing::Harness h(cfg, 0, 12, 1500.0, 100.0, netcfg);
  for (int i = 0; i < 6; ++i) {
    const NodeId n = NodeId(i);
    h.sim.schedule_at(SimTime::from_seconds(200.0 + 180.0 * i), h.sim.kind("test.crash"), n,
                      [&h, n] { h.hosts.crash(n); });
    h.sim.schedule_at(SimTime::from_seconds(260.0 + 180.0 * i), h.sim.kind("test.recover"), n,
                      [&h, n] { h.hosts.recover(n); });
  }
  const json m = h.run();
  double sum = 0;
  for (const char* part :
       {"dynamic_failure_infeasible_ratio", "dynamic_failure_missed_ratio",
        "dynamic_failure_aborted_ratio", "dynamic_failure_dropped_ratio",
        "dynamic_failure_lost_in_crash_ratio", "dynamic_failure_lost_to_dead_ratio",
        "dynamic_failure_lost_unreachable_ratio"})
    sum += m[part].get<double>();
  EXPECT_NEAR(sum, m["dynamic_failure_ratio"].get<double>(), 1e-12);
  EXPECT_GT(count(m, "tasks_infeasible_count"), 0u);
  EXPECT_GT(count(m, "tasks_dropped_count"), 0u);
  EXPECT_GT(count(m, "tasks_lost_in_crash_count"), 0u);
  const double arrived = m["tasks_arrived_count"].get<double>();
  const double infeasible = m["tasks_infeasible_count"].get<double>();
  const double failed = m["dynamic_failure_ratio"].get<double>() * arrived;
  EXPECT_NEAR(m["dynamic_failure_feasible_ratio"].get<double>(),
              (failed - infeasible) / (arrived - infeasible), 1e-12);
  EXPECT_EQ(count(m, "tasks_feasible_count"), uint64_t(arrived - infeasible));
}

}  // namespace task_semantics_test
}  // namespace fdsim::loadsharing
