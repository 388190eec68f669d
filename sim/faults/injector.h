#pragma once
// FaultInjector: turns a FaultsConfig into engine events that drive Hosts and Network (the only
// writer of fault state in a run).
//
// Contract:
// - start() (call once, at t = 0, before the models start so that a fault and a model event at
//   the same instant see the fault first) schedules every scheduled fault and the first event
//   of every process. Fault events are plain engine events (kinds "fault.*"), not node timers:
//   they run whatever the state of the nodes they touch.
// - Faults compose: crash of a crashed node and recover of a node that is not crashed are
//   no-ops; a pause of a crashed node is ignored; overlapping pauses (or sick / play-dead
//   intervals) of one node merge into one interval that ends at the latest end; a crash during
//   a pause ends it for good (recovery starts a fresh, running incarnation).
// - Processes draw from their own keyed streams, one per (process, node), in a fixed order
//   that does not depend on node state (crash: up, down, up, ...; pause: interval, then
//   duration at each start), so adding a node or a fault never changes another node's draws.
//   A group crash process has one stream (up, down, up, ...); a crash storm one stream (at each
//   storm: the victims, then per victim its offset and its down time, then the next interval).
// - Crash processes, group processes and storms hold a node down: each of their crashes adds a
//   hold on the node, each of their recoveries removes one, and the node recovers only when the
//   last hold goes (a rack that comes back does not revive a node whose own disk is still
//   down). Scheduled crash / recover act directly and leave the holds alone.
// - When Simulator::trace() is set, every state change that happens records "crash",
//   "recover", "pause", "resume", "sick", "sick_end", "play_dead", "play_dead_end" on the node,
//   and "partition", "heal", "loss_burst", "loss_burst_end", "delay_spike",
//   "delay_spike_end" with the node sets.
// The injector must outlive the run (events refer to it).

#include <map>
#include <memory>
#include <vector>

#include "sim/faults/config.h"
#include "sim/net/world.h"

namespace fdsim::faults {

class ChurnDriver;
class ChurnParticipant;

class FaultInjector {
 public:
  FaultInjector(World& world, const FaultsConfig& config);
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;
  ~FaultInjector();

  void start();
  // The model that runs a churn entry's leaves and joins (sim/faults/churn.h); required before
  // start() when the config has churn.
  void set_churn_participant(ChurnParticipant* p) { churn_participant_ = p; }

  // Direct writers with the same merge rules (used by start()'s events; tests may call them).
  void crash(NodeId n);
  void recover(NodeId n);
  void pause(NodeId n, Duration duration);
  void set_sick(NodeId n, std::optional<SimTime> until);
  void set_play_dead(NodeId n, std::optional<SimTime> until);

 private:
  struct ProcessNode;
  enum class Flag : uint8_t { sick, play_dead };
  void apply(size_t fault_index);
  void set_flag(Flag f, NodeId n, std::optional<SimTime> until);
  void crash_step(size_t proc_node);
  void recover_step(size_t proc_node);
  void pause_step(size_t proc_node);
  void hold(NodeId n);     // a process crashes n
  void release(NodeId n);  // a process recovers n: recovers once no hold is left
  void group_crash_step(size_t group);
  void group_recover_step(size_t group);
  void storm_step(size_t storm);
  void trace(NodeId n, const char* kind, nlohmann::json fields = nlohmann::json::object());

  World& world_;
  FaultsConfig config_;
  std::vector<std::unique_ptr<ProcessNode>> process_nodes_;
  std::vector<Rng> group_rngs_, storm_rngs_;
  std::map<NodeId, uint32_t> holds_;
  std::map<NodeId, SimTime> pause_end_;
  std::map<NodeId, SimTime> sick_end_;
  std::map<NodeId, SimTime> dead_end_;
  ChurnParticipant* churn_participant_ = nullptr;
  std::unique_ptr<ChurnDriver> churn_;
  bool started_ = false;
  EventKind k_crash_, k_recover_, k_pause_, k_resume_, k_sick_, k_sick_end_, k_dead_, k_dead_end_,
      k_partition_, k_heal_, k_burst_, k_burst_end_, k_spike_, k_spike_end_, k_storm_;
};

}  // namespace fdsim::faults
