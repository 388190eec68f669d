#pragma once
// The discrete-event simulator instance.
//
// Contract:
// - Events are dispatched in (time, sequence number) order; the sequence number is assigned at
//   scheduling, so events scheduled for the same instant run in the order they were scheduled.
//   Nothing else (addresses, hashes, container order) ever influences the order.
// - Time never goes backwards: scheduling in the past is a programmer error (aborts).
// - cancel() is O(1): the event is marked dead and skipped (not dispatched, not counted, not
//   fingerprinted); the pending set is EventQueue (event_queue.h), a bucketed calendar in front
//   of a heap that yields exactly the (time, seq) order of a binary heap.
// - Every dispatched event folds (time, kind name, node) into the run fingerprint, so two runs
//   with the same fingerprint dispatched the same events at the same instants.
// - There are no globals: several Simulator instances can live in one process and on different
//   threads.
// - Guarded events (schedule_guarded): the callback runs only if the event's guard, called
//   when the event comes due, returns true; the guard may take the callback (to run it later)
//   or let it drop. A guarded event is dispatched, counted and fingerprinted like any other
//   whatever its guard decides. Why: Hosts' node-bound timers check the host's state first;
//   with the check in the engine a timer needs no slot of its own (it used to live in a
//   separate pool whose cache miss at every firing was 8% of a large SWIM run).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/engine/ids.h"
#include "sim/engine/time.h"

namespace fdsim {

class TraceSink;

// Handle of a scheduled event; default-constructed handles refer to nothing.
struct EventId {
  uint32_t slot = 0;
  uint64_t seq = 0;  // 0 = none; real sequence numbers start at 1
  bool valid() const { return seq != 0; }
};

// Registered name of an event kind (e.g. "net.deliver", "geode.monitor_tick").
using EventKind = uint16_t;

struct KindCount {
  std::string name;
  uint64_t dispatched = 0;
};

class Simulator {
 public:
  using Callback = std::function<void()>;

  Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }

  // Returns the id of the kind with this name, registering it on first use.
  EventKind kind(std::string_view name);
  const std::string& kind_name(EventKind k) const { return kinds_[k].name; }

  EventId schedule_at(SimTime when, EventKind kind, NodeId node, Callback fn);
  EventId schedule_after(Duration delay, EventKind kind, NodeId node, Callback fn) {
    return schedule_at(now_ + delay, kind, node, std::move(fn));
  }
  // The guard of guarded events: called when such an event comes due, with its node, kind,
  // sequence number (events_scheduled() at its scheduling, plus one) and callback; returns true
  // to run the callback now, false otherwise (the guard may have moved it out). ctx is the
  // guard's own pointer. Returns the guard's id for schedule_guarded (ids 1 .. 255).
  using Guard = bool (*)(void* ctx, NodeId node, EventKind kind, uint64_t seq, Callback& fn);
  uint8_t add_guard(Guard guard, void* ctx);
  // Removes a guard (its owner is going away); its pending events then never run.
  void remove_guard(uint8_t id);
  EventId schedule_guarded(SimTime when, EventKind kind, NodeId node, uint8_t guard, Callback fn);
  // The sequence number the next scheduled event will get.
  uint64_t next_seq() const { return scheduled_ + 1; }

  // Cancels a pending event; returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  bool pending(EventId id) const { return queue_.pending(id.slot, id.seq); }

  // Dispatches every event with time <= horizon (or until stop()), then sets now() = horizon
  // if the queue still holds later events or ran dry before it. Returns events dispatched.
  uint64_t run_until(SimTime horizon);
  // Dispatches until the queue is empty or stop() is called.
  uint64_t run();
  // Makes the current run_until()/run() return after the event being dispatched.
  void stop() { stop_requested_ = true; }

  // Time of the earliest live event, or SimTime::max() if none.
  SimTime next_event_time();

  uint64_t events_dispatched() const { return dispatched_; }
  uint64_t events_scheduled() const { return scheduled_; }
  size_t queue_size() const { return queue_.size(); }
  // Bytes held by the pending-event set (nodes, calendar, heaps), for memory reports.
  size_t queue_bytes() const { return queue_.bytes(); }
  size_t peak_queue_size() const { return peak_live_; }
  uint64_t fingerprint() const { return fingerprint_; }
  const std::vector<KindCount>& kind_counts() const { return kinds_; }

  // Optional protocol-event trace (owned elsewhere); null when tracing is off.
  TraceSink* trace() const { return trace_; }
  void set_trace(TraceSink* sink) { trace_ = sink; }

  // Called every `every_events` dispatched events (progress reporting); not part of the model.
  void set_progress_hook(uint64_t every_events, std::function<void()> hook) {
    progress_every_ = every_events;
    progress_hook_ = std::move(hook);
  }

 private:
  struct Payload {
    Callback fn;
    NodeId node = kNoNode;
    EventKind kind = 0;
    uint8_t guard = 0;  // 0 = none; else an index into guards_
  };
  struct GuardEntry {
    Guard fn = nullptr;
    void* ctx = nullptr;
  };
  struct KindMeta {
    uint64_t name_hash;
  };

  bool dispatch_one(SimTime horizon);

  SimTime now_ = SimTime::zero();
  uint64_t scheduled_ = 0;
  EventQueue<Payload> queue_;
  std::vector<KindCount> kinds_;
  std::vector<KindMeta> kind_meta_;
  std::vector<GuardEntry> guards_{GuardEntry{}};  // entry 0: no guard
  size_t peak_live_ = 0;
  uint64_t dispatched_ = 0;
  uint64_t fingerprint_ = 0xcbf29ce484222325ull;
  bool stop_requested_ = false;
  TraceSink* trace_ = nullptr;
  uint64_t progress_every_ = 0;
  std::function<void()> progress_hook_;
};

}  // namespace fdsim
