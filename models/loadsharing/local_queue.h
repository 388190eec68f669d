#pragma once
// One node's processor: a non-preemptive single server with a waiting line ordered by the
// local scheduling policy, and the guarantee test of docs/models/load-sharing.md, "Tasks".
//
// Contract:
// - Order: FCFS serves in insertion order. MLFS (minimum laxity first) serves the smallest
//   laxity deadline - now - execution time; as `now` is common to all waiting tasks the order
//   key is deadline - execution time, fixed at insertion. With ExecKnowledge::mean every task
//   has the same planned execution time, so MLFS orders by deadline (EDF): the order then never
//   depends on the tasks' actual service times. Ties go to the earlier insertion.
// - The task in service is never pre-empted.
// - A task inserted as `background` (one that failed the guarantee test and runs anyway) waits
//   behind every task inserted normally, whenever those arrive (FIFO among background tasks):
//   it never delays a guaranteed task once it waits, though it may delay one if it is already in
//   service when that task arrives (non-preemption), which the guarantee test then sees.
// - guarantees(t) inserts t where the policy would put it, computes every waiting task's
//   completion time from the planned execution times (exact, or the given mean; the task in
//   service finishes at its planned end), and returns true iff t meets its deadline and no
//   waiting task that met its deadline before the insertion misses it after. (A task already
//   doomed before t arrived does not block t, nor does a background task.) Meeting means
//   completion <= deadline.
// - The queue never touches the simulator; the caller schedules completions.

#include <cstdint>
#include <vector>

#include "models/loadsharing/task.h"
#include "sim/engine/budget.h"

namespace fdsim::loadsharing {

enum class SchedulingPolicy : uint8_t { mlfs, fcfs };
enum class ExecKnowledge : uint8_t { exact, mean };

// Work inside an event (sim/engine/budget.h): every operation that walks or moves the waiting
// tasks charges one work unit per kQueueEntriesPerWorkUnit entries, so a queue grown to
// millions of tasks counts against the run's work budget (and polls for SIGINT/SIGTERM)
// instead of making one event take seconds unseen. The cost estimate counts the same units
// (sim/run/scenario_loader.cpp, load-sharing terms).
inline constexpr uint64_t kQueueEntriesPerWorkUnit = 64;
inline void charge_scan(size_t entries) {
  if (entries >= kQueueEntriesPerWorkUnit) charge_work(entries / kQueueEntriesPerWorkUnit);
}

class LocalQueue {
 public:
  LocalQueue(SchedulingPolicy policy, ExecKnowledge knowledge)
      : policy_(policy), knowledge_(knowledge) {}

  // Tasks waiting or in service (the load index QL).
  size_t length() const { return waiting_.size() + (busy_ ? 1 : 0); }
  bool busy() const { return busy_; }
  bool idle_with_work() const { return !busy_ && !waiting_.empty(); }
  const Task& in_service() const { return serving_; }
  SimTime service_start() const { return service_start_; }

  // Planned execution time of t (the exact one, or `mean_exec`).
  Duration planned(const Task& t, Duration mean_exec) const {
    return knowledge_ == ExecKnowledge::exact ? t.exec : mean_exec;
  }
  // Planned remaining service time of the task in service at `now` (zero when idle).
  Duration planned_remaining(SimTime now, Duration mean_exec) const;

  bool guarantees(const Task& t, SimTime now, Duration mean_exec) const;
  void insert(const Task& t, bool background = false);
  // The first waiting task (requires idle_with_work()).
  const Task& next() const;
  // Removes the first waiting task without starting it (requires idle_with_work()).
  Task discard_next();
  // Starts the first waiting task at `now` (requires idle_with_work()); returns it.
  const Task& start_next(SimTime now);
  // Ends the service in progress (requires busy()); returns the finished task.
  Task finish_service();

  // Remaining cumulative execution time (the load index CET), in seconds.
  double remaining_work_s(SimTime now, Duration mean_exec) const;

  // Removes and returns every task (in service first, then waiting in order): a crash.
  std::vector<Task> drain();
  // Waiting tasks in service order (for tests and accounting).
  std::vector<Task> waiting_tasks() const;

 private:
  struct Entry {
    int64_t key;
    uint64_t seq;
    Task task;
    bool background;
  };
  int64_t key_of(const Task& t) const;
  size_t insert_position(int64_t key) const;

  SchedulingPolicy policy_;
  ExecKnowledge knowledge_;
  std::vector<Entry> waiting_;  // sorted by (key, seq)
  uint64_t next_seq_ = 0;
  bool busy_ = false;
  Task serving_;
  SimTime service_start_;
};

}  // namespace fdsim::loadsharing
