#include "sim/engine/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/hash.h"

namespace fdsim {

namespace {
constexpr size_t kArity = 4;  // measured: fewer instructions than 2 or 8 on the ring benchmark
}

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
  heap_push({when.count_ns(), seq, slot});
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
  // Re-heapify bottom-up.
  if (heap_.size() < 2) return;
  for (size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) sift_down(i, heap_[i]);
}

void Simulator::heap_push(HeapEntry e) {
  size_t hole = heap_.size();
  heap_.push_back(e);
  while (hole > 0) {
    const size_t parent = (hole - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

// Places `e` at `hole` or below, moving smaller children up.
void Simulator::sift_down(size_t hole, HeapEntry e) {
  const size_t n = heap_.size();
  for (;;) {
    const size_t first = kArity * hole + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t last = std::min(first + kArity, n);
    for (size_t c = first + 1; c < last; ++c)
      if (earlier(heap_[c], heap_[best])) best = c;
    if (!earlier(heap_[best], e)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = e;
}

void Simulator::pop_top() {
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, last);
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
