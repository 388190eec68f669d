#pragma once
// The fate of every task, by origin node: the accounting behind the load-sharing metrics
// (docs/models/metrics.md section 3).
//
// Contract: every task that arrives at a live node gets exactly one fate: completed on time
// (completion <= deadline), missed (infeasible at arrival, never started because its deadline
// had passed (expired), aborted at its deadline, completed late (late_tasks = finish), dropped
// by the `unplaced = drop` policy, or still unfinished at the horizon with its deadline already
// past), lost (in a crash of the node
// holding it, or in a transfer: to a node that was dead at the send or died before the
// delivery, or given up by the network), or it is still present (queued, in service, in
// transit, or held by a paused node) at the horizon with its deadline still ahead. Tasks arriving
// at a crashed node are only counted as "arrived while down" (no user is there to submit them). Two
// sets of counts are kept: every task, and the "counted" ones (arrival at or after the end of the
// warm-up), which the metrics report. check_conservation() compares, per origin, arrived - resolved
// with the tasks the model still physically holds, for both sets, and aborts the process with a
// message (time, node, counts) on any difference: a violation is a bug in the model, never a
// result.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/loadsharing/task.h"

namespace fdsim::loadsharing {

struct FateCounts {
  uint64_t arrived = 0;
  uint64_t on_time = 0;
  uint64_t missed_local = 0;           // completed late (or dropped) without being transferred
  uint64_t missed_after_transfer = 0;  // completed late (or dropped) after >= 1 transfer
  uint64_t dropped = 0;                // of the missed: dropped by the unplaced = drop policy
  uint64_t late_unfinished = 0;        // of the missed: unfinished at the horizon, deadline past
  uint64_t infeasible = 0;             // of the missed: exec > relative deadline, failed at arrival
  uint64_t expired = 0;                // of the missed: never started, could not finish in time
  uint64_t aborted = 0;                // of the missed: running at its deadline, aborted
  uint64_t completed_late = 0;         // of the missed: completed after the deadline (finish)
  uint64_t arrived_feasible = 0;       // of `arrived`: tasks with exec <= relative deadline
  uint64_t failed_feasible = 0;        // of those: missed or lost
  uint64_t lost_in_crash = 0;
  uint64_t lost_transfer_to_dead = 0;      // destination dead at the send or before the delivery
  uint64_t lost_transfer_unreachable = 0;  // network gave up (partition, play-dead, src crash)
  uint64_t arrived_while_down = 0;         // not part of `arrived`

  uint64_t missed() const { return missed_local + missed_after_transfer; }
  uint64_t lost() const {
    return lost_in_crash + lost_transfer_to_dead + lost_transfer_unreachable;
  }
  uint64_t resolved() const { return on_time + missed() + lost(); }
  void add(const FateCounts& o);
};

class TaskLedger {
 public:
  explicit TaskLedger(size_t node_count);

  void arrived(const Task& t);
  void arrived_while_down(NodeId origin, bool counted);
  // Returns true if the completion was on time.
  bool completed(const Task& t, SimTime now);
  void dropped(const Task& t);
  // Execution time above the relative deadline, known at arrival: failed there, never placed.
  void infeasible(const Task& t);
  // Removed from the queue without being started: it could no longer meet its deadline.
  void expired(const Task& t);
  // Running at its deadline: service stopped (late_tasks = abort).
  void aborted(const Task& t);
  // At the horizon: a task still held whose deadline has passed.
  void late_unfinished(const Task& t);
  void lost_in_crash(const Task& t);
  void lost_in_transfer(const Task& t, bool to_dead);

  const FateCounts& all(NodeId origin) const { return all_[origin]; }
  const FateCounts& counted(NodeId origin) const { return counted_[origin]; }
  FateCounts counted_total() const;
  // Response times (completion - arrival at the origin) of counted tasks that completed.
  const std::vector<double>& response_times_s() const { return response_s_; }

  // present_all[i] / present_counted[i]: tasks of origin i the model still holds.
  void check_conservation(SimTime now, const std::vector<uint64_t>& present_all,
                          const std::vector<uint64_t>& present_counted) const;

 private:
  template <class F>
  void bump(const Task& t, F&& f) {
    f(all_[t.origin]);
    if (t.counted) f(counted_[t.origin]);
  }
  // A miss (or a loss) of t: the hops partition and the feasible-failure count.
  void missed(const Task& t, uint64_t FateCounts::*kind);
  void failed(const Task& t);
  std::vector<FateCounts> all_;
  std::vector<FateCounts> counted_;
  std::vector<double> response_s_;
};

}  // namespace fdsim::loadsharing
