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
// - starved (a slow-processing host, sim/net/starvation.h): every timer callback and every
//   message delivery of the node is a work item that costs a service time (a draw of the
//   condition's latency model) and is handled from a queue by one server: an item runs its
//   callback when its service ends, so everything the callback sends or schedules is delayed
//   by the backlog. The queue discipline is a per-node ServiceQueue (FIFO, unbounded by
//   default; bounded FIFO/LIFO dropping the newest or oldest item; a model may install its own
//   through set_service_queue(), e.g. memberlist's handoff queue with priorities). When the
//   condition ends, work already queued still drains at the service time; new work runs at
//   once when the server is idle. A crash empties the queue. A pause stops the server: items
//   arriving during the pause wait in the pause queue and enter the service queue at resume;
//   an item whose service would end during the pause ends at the resume instant (the pause
//   does not stretch the service in progress). A timer in a service queue has left the engine:
//   Simulator::cancel() on it returns false and it still runs. Each service end is one engine
//   event (kind "host.service"). Dropped items never run; the drop hook (the network installs
//   one) is told about each.
// - stalled (a descheduled process: SIGSTOP, a stop-the-world pause, a VM descheduled, a CPU
//   quota exhausted; sim/net/starvation.h mode "stall"): the host is paused (the listeners see
//   on_pause / on_resume) and, in addition, (a) deliveries that arrive while it is stalled are
//   held up to a socket-buffer bound, beyond which the arriving one is dropped (the kernel drops
//   a datagram that does not fit in a full receive buffer; tail drop); (b) at the end of the
//   stall every timer that came due during it runs first, in due order, and only then do the
//   held deliveries run, in arrival order (Go's scheduler runs expired timers before it polls
//   the network: docs/models/network-stressors.md, section 3, "Modes"); (c) the held deliveries
//   (and any that arrive while they drain) are served one at a time at a per-message cost (a
//   draw of the stall's `service` model) while timers keep running when due.
// - inbound delay (mode "inbound_delay"): every delivery and every connection probe reaching
//   the host, and the answer to each of its own connection probes, is handed to it a drawn time
//   (the condition's model) after it arrived; timers and sends run on time. An answer that would
//   be handed over at or after the probe's deadline times out at the deadline.
// Models only observe faults (listeners and queries); sim/faults is the only writer.
// Cost: 16 bytes per node, no heap allocation for a node that is not paused; a timer is one
// guarded engine event (Simulator::schedule_guarded; no slot or allocation beyond the
// callback's own): the host's state is checked when it comes due.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <deque>
#include <memory>

#include "sim/engine/rng.h"
#include "sim/engine/simulator.h"
#include "sim/net/latency.h"

namespace fdsim::net {

enum class HostMode : uint8_t { up, crashed, paused };

struct HostState {
  HostMode mode = HostMode::up;
  bool sick = false;
  bool play_dead = false;
  bool queued = false;  // starved, or still serving a backlog: work goes through the server
  uint32_t incarnation = 0;
};

// One unit of work of a starved host.
struct ServiceItem {
  std::function<void()> fn;
  SimTime arrived;             // when it reached the host (came due, or was delivered)
  uint64_t msg_id = 0;         // a delivery: the network's message id
  uint32_t incarnation = 0;
  int32_t tag = -1;            // a delivery: its message type (net::MsgType); -1 = timer/probe
  NodeId from = kNoNode;       // a delivery: the sender
  EventKind kind = 0;
};

// The queue discipline of one starved host: the hook a model replaces (Hosts::set_service_queue)
// to model its real system's queue (priorities, bounded depth, LIFO...). Contract: admit() is
// called for an item that arrives while the server is busy; it keeps the item (anywhere in its
// order) or moves it into `dropped`, and may move already queued items into `dropped` too
// (drop-oldest, lower priority). next() is called only when !empty() and returns the item to
// serve next. clear() forgets every item (crash). Must be deterministic (no unordered
// iteration, no wall clock).
class ServiceQueue {
 public:
  virtual ~ServiceQueue() = default;
  virtual void admit(ServiceItem&& item, std::vector<ServiceItem>& dropped) = 0;
  virtual bool empty() const = 0;
  virtual size_t size() const = 0;
  virtual ServiceItem next() = 0;
  virtual void clear() = 0;
};

// The shipped discipline: at most `limit` waiting items (0 = unbounded; the item in service is
// not counted, so the host holds limit + 1: an M/G/1/K queue with K = limit + 1). A full queue
// drops the arriving item (drop_oldest false) or the oldest waiting one; served first-in
// first-out, or last-in first-out with lifo.
std::unique_ptr<ServiceQueue> bounded_queue(size_t limit, bool drop_oldest, bool lifo);

struct ServiceStats {
  uint64_t served = 0;           // items whose callback ran after their service
  uint64_t dropped_messages = 0; // deliveries dropped by the queue
  uint64_t dropped_timers = 0;   // timer callbacks (and probe serves) dropped by the queue
  uint64_t dropped_socket = 0;   // deliveries dropped by a full socket buffer during a stall
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
  ~Hosts();
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
  // Runs fn "on node n" now, or at the end of n's pause, or after its service if n is starved;
  // dropped if n is crashed or its incarnation is no longer `incarnation`. Used by the network
  // for deliveries (tag = message type, from, msg_id: what a ServiceQueue and the drop hook see).
  void run_on(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()> fn,
              int32_t tag = -1, NodeId from = kNoNode, uint64_t msg_id = 0);

  // --- Starved hosts (contract above). ---
  // The queue discipline of node n (default: bounded_queue(0, false, false)); replaces the
  // current one, which must be empty (n not serving a backlog).
  void set_service_queue(NodeId n, std::unique_ptr<ServiceQueue> queue);
  // Called for every item a ServiceQueue drops, before it is destroyed.
  void set_service_drop_hook(std::function<void(NodeId, const ServiceItem&)> hook) {
    drop_hook_ = std::move(hook);
  }
  bool is_starved(NodeId n) const;
  // Node n's timer callbacks run when due even while it is starved or serving a backlog (only
  // deliveries and probe serves wait); default false: they wait like every other work item.
  void set_timers_on_time(NodeId n, bool on_time);
  const ServiceStats* service_stats(NodeId n) const;  // null if n was never starved
  size_t service_backlog(NodeId n) const;              // waiting items plus the one in service
  // Writers (sim/net/starvation.cpp and tests): from now on, n's work costs draws of `service`
  // from `stream` (a starved n gets the new model for items that start service later).
  void starve(NodeId n, std::shared_ptr<const LatencyModel> service, std::shared_ptr<Rng> stream);
  void end_starve(NodeId n);
  // Descheduled stall (contract above): stall() pauses n and holds at most `buffer_packets`
  // deliveries (0 = unbounded); end_stall() resumes it, runs the timers that came due, then
  // serves the held deliveries at draws of `service` from `stream`. No-ops on a crashed host;
  // end_stall() of a host that is not stalled changes nothing.
  void stall(NodeId n, size_t buffer_packets);
  void end_stall(NodeId n, std::shared_ptr<const LatencyModel> service, std::shared_ptr<Rng> stream);
  bool is_stalled(NodeId n) const;
  // Inbound delay (contract above): from now on, what reaches n waits a draw of `delay`.
  // fifo: nothing is handed over before what reached n earlier (a processing lag: hand-over at
  // max(arrival + draw, the previous hand-over)); else independent draws (later may overtake).
  void delay_inbound(NodeId n, std::shared_ptr<const LatencyModel> delay, std::shared_ptr<Rng> stream,
                     bool fifo = false);
  void end_delay_inbound(NodeId n);
  bool delays_inbound(NodeId n) const;
  // Hands the result of n's own connection probe to n: now, or after the inbound delay; when
  // that would be at or after `deadline`, at the deadline with `on_time(false)` (the reader's
  // deadline passed first). Used by the network for probe answers.
  void hand_probe_result(NodeId n, uint32_t incarnation, EventKind kind, SimTime deadline,
                         std::function<void(bool on_time)> fn);

  void add_listener(HostListener* l) { listeners_.push_back(l); }

  // --- Writers: only sim/faults (and tests) call these. ---
  void crash(NodeId n);
  void recover(NodeId n);
  void pause(NodeId n);
  void resume(NodeId n);
  void set_sick(NodeId n, bool sick);
  void set_play_dead(NodeId n, bool play_dead);


 private:
  struct Deferred {
    uint32_t incarnation;
    EventKind kind;
    std::function<void()> fn;
    int32_t tag = -1;
    NodeId from = kNoNode;
    uint64_t msg_id = 0;
    bool timer = false;  // a timer that came due (not a delivery or a connection probe)
  };
  struct Server {
    std::shared_ptr<const LatencyModel> service;
    std::shared_ptr<Rng> stream;
    std::unique_ptr<ServiceQueue> queue;
    ServiceItem in_service;
    ServiceStats stats;
    uint32_t gen = 0;        // bumped by a crash: a pending service end of before is void
    bool starved = false;
    bool busy = false;
    bool end_at_resume = false;  // the service ended during a pause
    bool timers_on_time = false; // set_timers_on_time
    bool stalled = false;        // stall() .. end_stall()
    size_t stall_buffer = 0;     // deliveries held during a stall at most (0 = unbounded)
    size_t stall_held = 0;       // deliveries held by the current stall
    bool timers_first = false;   // end_stall(): replay runs the timers before the deliveries
    bool inbound_delay = false;  // delay_inbound() .. end_delay_inbound()
    std::shared_ptr<const LatencyModel> delay;
    std::shared_ptr<Rng> delay_stream;
    bool delay_fifo = false;
    SimTime last_release;  // fifo: the latest hand-over scheduled
  };
  Duration inbound_delay_draw(Server& s);
  void deliver_or_defer(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()>& fn,
                        int32_t tag = -1, NodeId from = kNoNode, uint64_t msg_id = 0,
                        bool timer = false);
  Server& server(NodeId n);
  void enqueue(NodeId n, ServiceItem&& item);
  void start_service(NodeId n, Server& s, ServiceItem&& item);
  void end_service(NodeId n, uint32_t gen);
  void finish_service(NodeId n, Server& s);
  void update_queued(NodeId n, const Server& s) {
    state_[n].queued = s.starved || s.busy || s.inbound_delay;
  }
  static bool timer_guard(void* ctx, NodeId n, EventKind kind, uint64_t seq,
                          std::function<void()>& fn);
  void check_node(NodeId n, const char* op) const;
  void replay_deferred(NodeId n);

  Simulator& sim_;
  std::vector<HostState> state_;
  std::map<NodeId, std::vector<Deferred>> deferred_;  // only paused nodes with queued work
  std::vector<HostListener*> listeners_;
  std::map<NodeId, Server> servers_;  // nodes ever starved or given a queue (never erased)
  std::function<void(NodeId, const ServiceItem&)> drop_hook_;
  EventKind k_service_ = 0;
  std::vector<uint64_t> recover_seq_;  // by node: first sequence number of its incarnation
  uint8_t timer_guard_ = 0;
};

}  // namespace fdsim::net
