#include "sim/engine/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/hash.h"

namespace fdsim {

Simulator::Simulator() {
  heap_.reserve(1024);
  slots_.reserve(1024);
}

EventKind Simulator::kind(std::string_view name) {
  for (size_t i = 0; i < kinds_.size(); ++i)
    if (kinds_[i].name == name) return static_cast<EventKind>(i);
  if (kinds_.size() >= 65535) {
    std::fprintf(stderr, "fdsim: internal error: too many event kinds\n");
    std::abort();
  }
  kinds_.push_back({std::string(name), 0});
  kind_meta_.push_back({fnv1a64(name)});
  return static_cast<EventKind>(kinds_.size() - 1);
}

EventId Simulator::schedule_at(SimTime when, EventKind kind, NodeId node, Callback fn) {
  if (when < now_) {
    std::fprintf(stderr,
                 "fdsim: internal error: event '%s' for node %u scheduled at %s, before now = %s\n",
                 kinds_[kind].name.c_str(), node, to_string(when).c_str(),
                 to_string(now_).c_str());
    std::abort();
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const uint64_t seq = next_seq_++;
  Slot& s = slots_[slot];
  s.seq = seq;
  s.kind = kind;
  s.node = node;
  s.fn = std::move(fn);
  heap_.push_back({when.count_ns(), seq, slot});
  std::push_heap(heap_.begin(), heap_.end(), later);
  if (++live_ > peak_live_) peak_live_ = live_;
  return {slot, seq};
}

bool Simulator::cancel(EventId id) {
  if (!pending(id)) return false;
  Slot& s = slots_[id.slot];
  s.seq = 0;
  s.fn = nullptr;
  free_slots_.push_back(id.slot);
  --live_;
  // Keep the heap from filling up with tombstones when most events get cancelled.
  if (heap_.size() > 64 && heap_.size() > 4 * live_) drop_tombstones();
  return true;
}

void Simulator::drop_tombstones() {
  std::erase_if(heap_, [this](const HeapEntry& e) { return slots_[e.slot].seq != e.seq; });
  std::make_heap(heap_.begin(), heap_.end(), later);
}

void Simulator::pop_top() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.pop_back();
}

SimTime Simulator::next_event_time() {
  while (!heap_.empty()) {
    const HeapEntry& top = heap_.front();
    if (slots_[top.slot].seq == top.seq) return SimTime::from_ns(top.time_ns);
    pop_top();
  }
  return SimTime::max();
}

bool Simulator::dispatch_one(SimTime horizon) {
  while (!heap_.empty()) {
    const HeapEntry top = heap_.front();
    Slot& s = slots_[top.slot];
    if (s.seq != top.seq) {  // tombstone of a cancelled event
      pop_top();
      continue;
    }
    if (top.time_ns > horizon.count_ns()) return false;
    pop_top();
    now_ = SimTime::from_ns(top.time_ns);
    Callback fn = std::move(s.fn);
    const EventKind kind = s.kind;
    const NodeId node = s.node;
    s.seq = 0;
    s.fn = nullptr;
    free_slots_.push_back(top.slot);
    --live_;
    ++dispatched_;
    ++kinds_[kind].dispatched;
    fingerprint_ = hash_combine(fingerprint_, static_cast<uint64_t>(top.time_ns));
    fingerprint_ = hash_combine(fingerprint_, kind_meta_[kind].name_hash ^ (uint64_t(node) << 1));
    fn();
    if (progress_every_ != 0 && dispatched_ % progress_every_ == 0 && progress_hook_)
      progress_hook_();
    return true;
  }
  return false;
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
