#include "sim/net/hosts.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <algorithm>
#include <cstdlib>

namespace fdsim::net {

static_assert(sizeof(HostState) == 8, "HostState is per node: keep it small");

Hosts::Hosts(Simulator& sim, size_t node_count) : sim_(sim), state_(node_count) {}

[[gnu::cold, gnu::noinline]] void Hosts::check_node(NodeId n, const char* op) const {
  if (n >= state_.size()) [[unlikely]] {
    fdsim::internal_error("fdsim: internal error at t = %s: Hosts::%s on node %u, but there are %zu nodes\n",
                 to_string(sim_.now()).c_str(), op, n, state_.size());
  }
}

uint32_t Hosts::alloc_timer() {
  if (free_timers_.empty() && timers_.size() >= reclaim_at_) reclaim_cancelled_timers();
  if (!free_timers_.empty()) {
    const uint32_t slot = free_timers_.back();
    free_timers_.pop_back();
    return slot;
  }
  timers_.emplace_back();
  return uint32_t(timers_.size() - 1);
}

// Timers cancelled through Simulator::cancel() never fire, so their slots are found here: a
// live slot whose engine event is no longer pending. Run only when the pool would grow past a
// threshold that doubles with the live count, so the scan is amortised O(1) per timer.
void Hosts::reclaim_cancelled_timers() {
  size_t live = 0;
  for (uint32_t i = 0; i < timers_.size(); ++i) {
    Timer& t = timers_[i];
    if (!t.live) continue;
    if (!sim_.pending(t.id)) {
      t.live = false;
      t.fn = nullptr;
      free_timers_.push_back(i);
    } else {
      ++live;
    }
  }
  reclaim_at_ = std::max<size_t>(1024, 2 * live);
}

EventId Hosts::schedule_after(NodeId n, Duration d, EventKind kind, std::function<void()> fn) {
  return schedule_at(n, sim_.now() + d, kind, std::move(fn));
}

EventId Hosts::schedule_at(NodeId n, SimTime t, EventKind kind, std::function<void()> fn) {
  if (n >= state_.size()) [[unlikely]]
    check_node(n, "schedule_at");
  const uint32_t slot = alloc_timer();
  Timer& tm = timers_[slot];
  tm.fn = std::move(fn);
  tm.node = n;
  tm.incarnation = state_[n].incarnation;
  tm.kind = kind;
  tm.live = true;
  const EventId id = sim_.schedule_at(t, kind, n, [this, slot] { fire_timer(slot); });
  timers_[slot].id = id;
  return id;
}

void Hosts::fire_timer(uint32_t slot) {
  Timer& tm = timers_[slot];
  // Move everything out first: the callback may schedule timers and grow the pool.
  std::function<void()> fn = std::move(tm.fn);
  const NodeId n = tm.node;
  const uint32_t inc = tm.incarnation;
  const EventKind kind = tm.kind;
  tm.fn = nullptr;
  tm.live = false;
  free_timers_.push_back(slot);
  deliver_or_defer(n, inc, kind, fn);
}

void Hosts::run_on(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()> fn) {
  if (n >= state_.size()) [[unlikely]]
    check_node(n, "run_on");
  deliver_or_defer(n, incarnation, kind, fn);
}

void Hosts::deliver_or_defer(NodeId n, uint32_t incarnation, EventKind kind,
                             std::function<void()>& fn) {
  const HostState& s = state_[n];
  if (s.mode == HostMode::crashed || s.incarnation != incarnation) return;  // dropped
  if (s.mode == HostMode::paused) {
    deferred_[n].push_back({incarnation, kind, std::move(fn)});
    return;
  }
  fn();
}

void Hosts::crash(NodeId n) {
  check_node(n, "crash");
  HostState& s = state_[n];
  if (s.mode == HostMode::crashed) return;
  s.mode = HostMode::crashed;
  deferred_.erase(n);  // queued work of a paused host dies with it
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_crash(n);
}

void Hosts::recover(NodeId n) {
  check_node(n, "recover");
  HostState& s = state_[n];
  if (s.mode != HostMode::crashed) return;
  s.mode = HostMode::up;
  ++s.incarnation;
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_recover(n, s.incarnation);
}

void Hosts::pause(NodeId n) {
  check_node(n, "pause");
  HostState& s = state_[n];
  if (s.mode != HostMode::up) return;
  s.mode = HostMode::paused;
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_pause(n);
}

void Hosts::resume(NodeId n) {
  check_node(n, "resume");
  HostState& s = state_[n];
  if (s.mode != HostMode::paused) return;
  s.mode = HostMode::up;
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_resume(n);
  replay_deferred(n);
}

// Runs the queued work of n in its original order. A callback may change n's state (a model
// that shuts its node down, a listener that pauses it again): each item is re-checked, and
// whatever is left goes back to the front of the queue if n is paused again.
void Hosts::replay_deferred(NodeId n) {
  auto it = deferred_.find(n);
  if (it == deferred_.end()) return;
  std::vector<Deferred> items = std::move(it->second);
  deferred_.erase(it);
  for (size_t i = 0; i < items.size(); ++i) {
    const HostState& s = state_[n];
    if (s.mode == HostMode::crashed) return;
    if (s.mode == HostMode::paused) {
      std::vector<Deferred>& q = deferred_[n];
      std::vector<Deferred> rest;
      rest.reserve(items.size() - i + q.size());
      for (size_t j = i; j < items.size(); ++j) rest.push_back(std::move(items[j]));
      for (auto& d : q) rest.push_back(std::move(d));
      q = std::move(rest);
      return;
    }
    deliver_or_defer(n, items[i].incarnation, items[i].kind, items[i].fn);
  }
}

void Hosts::set_sick(NodeId n, bool sick) {
  check_node(n, "set_sick");
  if (state_[n].sick == sick) return;
  state_[n].sick = sick;
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_sick(n, sick);
}

void Hosts::set_play_dead(NodeId n, bool play_dead) {
  check_node(n, "set_play_dead");
  if (state_[n].play_dead == play_dead) return;
  state_[n].play_dead = play_dead;
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_play_dead(n, play_dead);
}

}  // namespace fdsim::net
