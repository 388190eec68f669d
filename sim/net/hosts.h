#pragma once
// Hosts: the liveness state of every simulated node, and node-bound timers.
//
// Contract (this is the whole fault semantics models see):
// - crashed: every pending node-bound event of the old incarnation is dropped when it comes due;
//   messages to it are dropped; connection probes to it are refused after one round trip.
//   recover() starts a new incarnation with, from the host's point of view, nothing pending:
//   models get on_recover() and must start from empty state.
// - paused (a GC stall): node-bound events and deliveries that come due during the pause are
//   queued and run, in their original order, at the instant the pause ends; probes hang.
//   The replay runs inside resume(), right after the on_resume() listeners, so nothing else
//   can slip in between; replayed callbacks are not separate engine events (the fingerprint
//   sees the resume, not each replayed callback). A timer that came due during the pause has
//   left the engine queue: Simulator::cancel() on it returns false and it still runs at resume.
// - sick: the host runs normally; models must consult is_sick() and stop answering requests
//   (Geode: heartbeat requests and suspicions) while still sending heartbeats.
// - play_dead: the network drops everything it sends and everything sent to it; probes hang.
// - sick and play_dead are flags orthogonal to the mode: a crash does not clear them (the fault
//   injector ends them on its own schedule).
// Writers are idempotent: crash() of a crashed host, recover() of a host that is not crashed,
// pause() of a host that is not up, resume() of a host that is not paused, and setting a flag
// to its current value change nothing and notify nobody.
// Models only observe faults (listeners and queries); sim/faults is the only writer.
// Cost: 8 bytes per node, no heap allocation for a node that is not paused; one pooled slot
// per pending timer (no allocation beyond the callback's own).

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "sim/engine/simulator.h"

namespace fdsim::net {

enum class HostMode : uint8_t { up, crashed, paused };

struct HostState {
  HostMode mode = HostMode::up;
  bool sick = false;
  bool play_dead = false;
  uint32_t incarnation = 0;
};

// Ground-truth notifications (metrics and models subscribe; fired after the state changed).
class HostListener {
 public:
  virtual ~HostListener() = default;
  virtual void on_crash(NodeId) {}
  virtual void on_recover(NodeId, uint32_t /*new_incarnation*/) {}
  virtual void on_pause(NodeId) {}
  virtual void on_resume(NodeId) {}
  virtual void on_sick(NodeId, bool /*sick*/) {}
  virtual void on_play_dead(NodeId, bool /*play_dead*/) {}
};

class Hosts {
 public:
  Hosts(Simulator& sim, size_t node_count);
  Hosts(const Hosts&) = delete;
  Hosts& operator=(const Hosts&) = delete;

  Simulator& sim() { return sim_; }
  size_t size() const { return state_.size(); }
  const HostState& state(NodeId n) const { return state_[n]; }
  bool is_up(NodeId n) const { return state_[n].mode != HostMode::crashed; }  // up or paused
  bool is_running(NodeId n) const { return state_[n].mode == HostMode::up; }
  bool is_crashed(NodeId n) const { return state_[n].mode == HostMode::crashed; }
  bool is_paused(NodeId n) const { return state_[n].mode == HostMode::paused; }
  bool is_sick(NodeId n) const { return state_[n].sick; }
  bool is_play_dead(NodeId n) const { return state_[n].play_dead; }
  uint32_t incarnation(NodeId n) const { return state_[n].incarnation; }

  // A timer of node n's current incarnation: dropped if n crashes first, deferred to the end
  // of a pause. Returns an id that Simulator::cancel() accepts (valid until it first comes due).
  EventId schedule_after(NodeId n, Duration d, EventKind kind, std::function<void()> fn);
  EventId schedule_at(NodeId n, SimTime t, EventKind kind, std::function<void()> fn);
  // Runs fn "on node n" now, or at the end of n's pause; dropped if n is crashed or its
  // incarnation is no longer `incarnation`. Used by the network for deliveries.
  void run_on(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()> fn);

  void add_listener(HostListener* l) { listeners_.push_back(l); }

  // --- Writers: only sim/faults (and tests) call these. ---
  void crash(NodeId n);
  void recover(NodeId n);
  void pause(NodeId n);
  void resume(NodeId n);
  void set_sick(NodeId n, bool sick);
  void set_play_dead(NodeId n, bool play_dead);

  // Slots in the timer pool (live timers plus cancelled ones not yet reclaimed); for tests.
  size_t timer_pool_size() const { return timers_.size(); }

 private:
  struct Deferred {
    uint32_t incarnation;
    EventKind kind;
    std::function<void()> fn;
  };
  struct Timer {
    std::function<void()> fn;
    EventId id;
    NodeId node = kNoNode;
    uint32_t incarnation = 0;
    EventKind kind = 0;
    bool live = false;
  };
  void deliver_or_defer(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()>& fn);
  void fire_timer(uint32_t slot);
  uint32_t alloc_timer();
  void reclaim_cancelled_timers();
  void check_node(NodeId n, const char* op) const;
  void replay_deferred(NodeId n);

  Simulator& sim_;
  std::vector<HostState> state_;
  std::map<NodeId, std::vector<Deferred>> deferred_;  // only paused nodes with queued work
  std::vector<HostListener*> listeners_;
  std::vector<Timer> timers_;
  std::vector<uint32_t> free_timers_;
  size_t reclaim_at_ = 1024;  // pool size at which cancelled slots are looked for
};

}  // namespace fdsim::net
