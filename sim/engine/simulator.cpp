#include "sim/engine/simulator.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/hash.h"

namespace fdsim {

Simulator::Simulator() = default;

EventKind Simulator::kind(std::string_view name) {
  for (size_t i = 0; i < kinds_.size(); ++i)
    if (kinds_[i].name == name) return static_cast<EventKind>(i);
  if (kinds_.size() >= 65535) {
    fdsim::internal_error("fdsim: internal error: too many event kinds\n");
  }
  kinds_.push_back({std::string(name), 0});
  kind_meta_.push_back({fnv1a64(name)});
  return static_cast<EventKind>(kinds_.size() - 1);
}

EventId Simulator::schedule_at(SimTime when, EventKind kind, NodeId node, Callback fn) {
  if (when < now_) {
    fdsim::internal_error("fdsim: internal error: event '%s' for node %u scheduled at %s, before now = %s\n",
                 kinds_[kind].name.c_str(), node, to_string(when).c_str(),
                 to_string(now_).c_str());
  }
  uint32_t slot = 0;
  uint64_t seq = 0;
  Payload& p = queue_.push(when.count_ns(), &slot, &seq);
  p.fn.swap(fn);  // the slot's callback is empty: a swap is the cheapest move
  p.node = node;
  p.kind = kind;
  ++scheduled_;
  if (queue_.size() > peak_live_) peak_live_ = queue_.size();
  return {slot, seq};
}

uint8_t Simulator::add_guard(Guard guard, void* ctx) {
  for (size_t i = 1; i < guards_.size(); ++i)
    if (guards_[i].fn == nullptr) {
      guards_[i] = {guard, ctx};
      return uint8_t(i);
    }
  if (guards_.size() > 255) fdsim::internal_error("fdsim: internal error: too many event guards\n");
  guards_.push_back({guard, ctx});
  return uint8_t(guards_.size() - 1);
}

void Simulator::remove_guard(uint8_t id) {
  if (id != 0 && id < guards_.size()) guards_[id] = GuardEntry{};
}

EventId Simulator::schedule_guarded(SimTime when, EventKind kind, NodeId node, uint8_t guard,
                                    Callback fn) {
  const EventId id = schedule_at(when, kind, node, std::move(fn));
  queue_.payload(id.slot).guard = guard;
  return id;
}

bool Simulator::cancel(EventId id) { return queue_.cancel(id.slot, id.seq); }

SimTime Simulator::next_event_time() {
  const auto* top = queue_.top();
  return top ? SimTime::from_ns(top->time_ns) : SimTime::max();
}

bool Simulator::dispatch_one(SimTime horizon) {
  const auto* top = queue_.top();
  if (!top || top->time_ns > horizon.count_ns()) return false;
  const int64_t time_ns = top->time_ns;
  const uint64_t seq = top->seq;
  const uint32_t slot = queue_.pop_hold();
  Payload& p = queue_.payload(slot);  // nodes never move: valid while the callback runs
  const EventKind kind = p.kind;
  now_ = SimTime::from_ns(time_ns);
  ++dispatched_;
  ++kinds_[kind].dispatched;
  fingerprint_ = hash_combine(fingerprint_, static_cast<uint64_t>(time_ns));
  fingerprint_ = hash_combine(fingerprint_, kind_meta_[kind].name_hash ^ (uint64_t(p.node) << 1));
  if (p.guard == 0) {
    p.fn();
  } else {
    const GuardEntry g = guards_[p.guard];  // a copy: the callback may add guards
    if (g.fn != nullptr && g.fn(g.ctx, p.node, kind, seq, p.fn)) p.fn();
    p.guard = 0;
  }
  p.fn = nullptr;
  queue_.release_held(slot);
  if (progress_every_ != 0 && dispatched_ % progress_every_ == 0 && progress_hook_)
    progress_hook_();
  return true;
}

uint64_t Simulator::run_until(SimTime horizon) {
  stop_requested_ = false;
  const uint64_t before = dispatched_;
  while (!stop_requested_ && dispatch_one(horizon)) {
  }
  if (!stop_requested_ && now_ < horizon) now_ = horizon;
  return dispatched_ - before;
}

uint64_t Simulator::run() {
  stop_requested_ = false;
  const uint64_t before = dispatched_;
  while (!stop_requested_ && dispatch_one(SimTime::max())) {
  }
  return dispatched_ - before;
}

}  // namespace fdsim
