#include "models/loadsharing/task_ledger.h"
#include "sim/engine/internal_error.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace fdsim::loadsharing {

void FateCounts::add(const FateCounts& o) {
  arrived += o.arrived;
  on_time += o.on_time;
  missed_local += o.missed_local;
  missed_after_transfer += o.missed_after_transfer;
  dropped += o.dropped;
  late_unfinished += o.late_unfinished;
  infeasible += o.infeasible;
  expired += o.expired;
  aborted += o.aborted;
  completed_late += o.completed_late;
  arrived_feasible += o.arrived_feasible;
  failed_feasible += o.failed_feasible;
  lost_in_crash += o.lost_in_crash;
  lost_transfer_to_dead += o.lost_transfer_to_dead;
  lost_transfer_unreachable += o.lost_transfer_unreachable;
  arrived_while_down += o.arrived_while_down;
}

TaskLedger::TaskLedger(size_t node_count) : all_(node_count), counted_(node_count) {}

void TaskLedger::arrived(const Task& t) {
  bump(t, [&](FateCounts& c) {
    ++c.arrived;
    if (t.feasible) ++c.arrived_feasible;
  });
}

void TaskLedger::failed(const Task& t) {
  if (t.feasible) bump(t, [](FateCounts& c) { ++c.failed_feasible; });
}

void TaskLedger::missed(const Task& t, uint64_t FateCounts::*kind) {
  bump(t, [&](FateCounts& c) {
    if (kind) ++(c.*kind);
    if (t.hops == 0)
      ++c.missed_local;
    else
      ++c.missed_after_transfer;
  });
  failed(t);
}

void TaskLedger::arrived_while_down(NodeId origin, bool counted) {
  ++all_[origin].arrived_while_down;
  if (counted) ++counted_[origin].arrived_while_down;
}

bool TaskLedger::completed(const Task& t, SimTime now) {
  const bool on_time = now <= t.deadline;
  if (on_time)
    bump(t, [](FateCounts& c) { ++c.on_time; });
  else
    missed(t, &FateCounts::completed_late);
  if (t.counted) response_s_.push_back((now - t.arrival).seconds());
  return on_time;
}

void TaskLedger::dropped(const Task& t) { missed(t, &FateCounts::dropped); }
void TaskLedger::infeasible(const Task& t) { missed(t, &FateCounts::infeasible); }
void TaskLedger::expired(const Task& t) { missed(t, &FateCounts::expired); }
void TaskLedger::aborted(const Task& t) { missed(t, &FateCounts::aborted); }
void TaskLedger::late_unfinished(const Task& t) { missed(t, &FateCounts::late_unfinished); }

void TaskLedger::lost_in_crash(const Task& t) {
  bump(t, [](FateCounts& c) { ++c.lost_in_crash; });
  failed(t);
}

void TaskLedger::lost_in_transfer(const Task& t, bool to_dead) {
  bump(t, [&](FateCounts& c) {
    if (to_dead)
      ++c.lost_transfer_to_dead;
    else
      ++c.lost_transfer_unreachable;
  });
  failed(t);
}

FateCounts TaskLedger::counted_total() const {
  FateCounts total;
  for (const FateCounts& c : counted_) total.add(c);
  return total;
}

void TaskLedger::check_conservation(SimTime now, const std::vector<uint64_t>& present_all,
                                    const std::vector<uint64_t>& present_counted) const {
  for (size_t i = 0; i < all_.size(); ++i) {
    for (int set = 0; set < 2; ++set) {
      const FateCounts& c = set == 0 ? all_[i] : counted_[i];
      const uint64_t present = set == 0 ? present_all[i] : present_counted[i];
      if (c.resolved() > c.arrived || c.arrived - c.resolved() != present) {
        fdsim::internal_error("fdsim: internal error: load-sharing task conservation violated at t = %s, "
                     "origin node %zu (%s tasks): arrived %" PRIu64 " != on time %" PRIu64
                     " + missed %" PRIu64 " + lost %" PRIu64 " + still present %" PRIu64 "\n",
                     to_string(now).c_str(), i, set == 0 ? "all" : "counted", c.arrived, c.on_time,
                     c.missed(), c.lost(), present);
      }
    }
  }
}

}  // namespace fdsim::loadsharing
