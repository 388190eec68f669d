#include "sim/net/hosts.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <algorithm>
#include <cstdlib>

namespace fdsim::net {

static_assert(sizeof(HostState) == 8, "HostState is per node: keep it small");

Hosts::Hosts(Simulator& sim, size_t node_count)
    : sim_(sim), state_(node_count), recover_seq_(node_count, 0) {
  timer_guard_ = sim_.add_guard(&Hosts::timer_guard, this);
}

Hosts::~Hosts() { sim_.remove_guard(timer_guard_); }

namespace {

class BoundedQueue final : public ServiceQueue {
 public:
  BoundedQueue(size_t limit, bool drop_oldest, bool lifo)
      : limit_(limit), drop_oldest_(drop_oldest), lifo_(lifo) {}
  void admit(ServiceItem&& item, std::vector<ServiceItem>& dropped) override {
    if (limit_ > 0 && q_.size() >= limit_) {
      if (!drop_oldest_) {
        dropped.push_back(std::move(item));
        return;
      }
      dropped.push_back(std::move(q_.front()));
      q_.pop_front();
    }
    q_.push_back(std::move(item));
  }
  bool empty() const override { return q_.empty(); }
  size_t size() const override { return q_.size(); }
  ServiceItem next() override {
    ServiceItem it;
    if (lifo_) {
      it = std::move(q_.back());
      q_.pop_back();
    } else {
      it = std::move(q_.front());
      q_.pop_front();
    }
    return it;
  }
  void clear() override { q_.clear(); }

 private:
  std::deque<ServiceItem> q_;
  size_t limit_;
  bool drop_oldest_, lifo_;
};

}  // namespace

std::unique_ptr<ServiceQueue> bounded_queue(size_t limit, bool drop_oldest, bool lifo) {
  return std::make_unique<BoundedQueue>(limit, drop_oldest, lifo);
}

Hosts::Server& Hosts::server(NodeId n) {
  auto it = servers_.find(n);
  if (it != servers_.end()) return it->second;
  if (k_service_ == 0) k_service_ = sim_.kind("host.service");
  Server& s = servers_[n];
  s.queue = bounded_queue(0, false, false);
  return s;
}

void Hosts::set_service_queue(NodeId n, std::unique_ptr<ServiceQueue> queue) {
  check_node(n, "set_service_queue");
  Server& s = server(n);
  if (!s.queue->empty() || !queue) {
    std::fprintf(stderr, "fdsim: internal error: Hosts::set_service_queue on node %u with a "
                 "backlog or a null queue\n", n);
    std::abort();
  }
  s.queue = std::move(queue);
}

bool Hosts::is_starved(NodeId n) const {
  auto it = servers_.find(n);
  return it != servers_.end() && it->second.starved;
}

const ServiceStats* Hosts::service_stats(NodeId n) const {
  auto it = servers_.find(n);
  return it == servers_.end() ? nullptr : &it->second.stats;
}

size_t Hosts::service_backlog(NodeId n) const {
  auto it = servers_.find(n);
  if (it == servers_.end()) return 0;
  return it->second.queue->size() + (it->second.busy ? 1 : 0);
}

void Hosts::starve(NodeId n, std::shared_ptr<const LatencyModel> service,
                   std::shared_ptr<Rng> stream) {
  check_node(n, "starve");
  if (!service || !stream) {
    std::fprintf(stderr, "fdsim: internal error: Hosts::starve on node %u without a model\n", n);
    std::abort();
  }
  Server& s = server(n);
  s.service = std::move(service);
  s.stream = std::move(stream);
  s.starved = true;
  update_queued(n, s);
}

void Hosts::set_timers_on_time(NodeId n, bool on_time) {
  check_node(n, "set_timers_on_time");
  server(n).timers_on_time = on_time;
}

void Hosts::end_starve(NodeId n) {
  check_node(n, "end_starve");
  auto it = servers_.find(n);
  if (it == servers_.end()) return;
  it->second.starved = false;
  update_queued(n, it->second);
}

void Hosts::enqueue(NodeId n, ServiceItem&& item) {
  Server& s = server(n);
  if (!s.busy) return start_service(n, s, std::move(item));
  std::vector<ServiceItem> dropped;
  s.queue->admit(std::move(item), dropped);
  for (ServiceItem& d : dropped) {
    if (d.tag >= 0)
      ++s.stats.dropped_messages;
    else
      ++s.stats.dropped_timers;
    if (drop_hook_) drop_hook_(n, d);
  }
}

void Hosts::start_service(NodeId n, Server& s, ServiceItem&& item) {
  s.busy = true;
  s.in_service = std::move(item);
  // A backlog left when the condition ended drains with the last model the host had.
  const Duration d = s.service->draw(*s.stream);
  const uint32_t gen = s.gen;
  sim_.schedule_after(d, k_service_, n, [this, n, gen] { end_service(n, gen); });
  update_queued(n, s);
}

void Hosts::end_service(NodeId n, uint32_t gen) {
  Server& s = servers_.find(n)->second;
  if (s.gen != gen || !s.busy) return;  // the host crashed during the service
  if (state_[n].mode == HostMode::paused) {
    s.end_at_resume = true;
    return;
  }
  finish_service(n, s);
}

// Runs the item whose service ended, then starts the next one. `s` stays valid: servers_ is a
// std::map whose entries are never erased.
void Hosts::finish_service(NodeId n, Server& s) {
  ServiceItem it = std::move(s.in_service);
  s.in_service = ServiceItem{};
  s.busy = false;
  s.end_at_resume = false;
  update_queued(n, s);
  const HostState& st = state_[n];
  if (st.mode != HostMode::crashed && st.incarnation == it.incarnation) {
    ++s.stats.served;
    it.fn();  // may crash or pause n, or hand it more work (which may start a service)
  }
  if (!s.busy && !s.queue->empty() && state_[n].mode == HostMode::up)
    start_service(n, s, s.queue->next());
  update_queued(n, s);
}

[[gnu::cold, gnu::noinline]] void Hosts::check_node(NodeId n, const char* op) const {
  if (n >= state_.size()) [[unlikely]] {
    fdsim::internal_error("fdsim: internal error at t = %s: Hosts::%s on node %u, but there are %zu nodes\n",
                 to_string(sim_.now()).c_str(), op, n, state_.size());
  }
}

EventId Hosts::schedule_after(NodeId n, Duration d, EventKind kind, std::function<void()> fn) {
  return schedule_at(n, sim_.now() + d, kind, std::move(fn));
}

EventId Hosts::schedule_at(NodeId n, SimTime t, EventKind kind, std::function<void()> fn) {
  if (n >= state_.size()) [[unlikely]]
    check_node(n, "schedule_at");
  return sim_.schedule_guarded(t, kind, n, timer_guard_, std::move(fn));
}

// A timer came due. It belongs to the incarnation that was current when it was scheduled,
// i.e. it is stale exactly when the host recovered after that (recover() records the first
// sequence number of its new incarnation); a stale timer, or any timer of a crashed host, is
// dropped, as deliver_or_defer() drops work of another incarnation.
bool Hosts::timer_guard(void* ctx, NodeId n, EventKind kind, uint64_t seq,
                        std::function<void()>& fn) {
  Hosts& h = *static_cast<Hosts*>(ctx);
  const HostState& s = h.state_[n];
  if (s.mode == HostMode::crashed || seq < h.recover_seq_[n]) return false;
  if (s.mode == HostMode::up && !s.queued) [[likely]]
    return true;
  if (s.mode == HostMode::up && h.server(n).timers_on_time) return true;
  // paused or starved: deferred or queued
  h.deliver_or_defer(n, s.incarnation, kind, fn, -1, kNoNode, 0, /*timer=*/true);
  return false;
}

void Hosts::run_on(NodeId n, uint32_t incarnation, EventKind kind, std::function<void()> fn,
                   int32_t tag, NodeId from, uint64_t msg_id) {
  if (n >= state_.size()) [[unlikely]]
    check_node(n, "run_on");
  if (state_[n].queued) [[unlikely]] {
    if (auto it = servers_.find(n); it != servers_.end() && it->second.inbound_delay) {
      // Inbound delay: handed over a draw later (then served, deferred or dropped as the host's
      // state is at that time).
      const Duration d = inbound_delay_draw(it->second);
      sim_.schedule_after(d, kind, n,
                          [this, n, incarnation, kind, fn = std::move(fn), tag, from, msg_id]() mutable {
                            deliver_or_defer(n, incarnation, kind, fn, tag, from, msg_id);
                          });
      return;
    }
  }
  deliver_or_defer(n, incarnation, kind, fn, tag, from, msg_id);
}

void Hosts::hand_probe_result(NodeId n, uint32_t incarnation, EventKind kind, SimTime deadline,
                              std::function<void(bool)> fn) {
  check_node(n, "hand_probe_result");
  Duration d = Duration::zero();
  if (auto it = servers_.find(n); it != servers_.end() && it->second.inbound_delay)
    d = inbound_delay_draw(it->second);
  const bool on_time = sim_.now() + d < deadline;
  // A reader whose deadline passes first gives up at the deadline (a socket read deadline).
  if (!on_time) d = std::max(Duration::zero(), deadline - sim_.now());
  std::function<void()> f = [fn = std::move(fn), on_time] { fn(on_time); };
  if (d == Duration::zero()) return deliver_or_defer(n, incarnation, kind, f);
  sim_.schedule_after(d, kind, n, [this, n, incarnation, kind, f = std::move(f)]() mutable {
    deliver_or_defer(n, incarnation, kind, f);
  });
}

Duration Hosts::inbound_delay_draw(Server& s) {
  Duration d = s.delay->draw(*s.delay_stream);
  if (s.delay_fifo) {
    const SimTime release = std::max(sim_.now() + d, s.last_release);
    s.last_release = release;
    d = release - sim_.now();
  }
  return d;
}

void Hosts::stall(NodeId n, size_t buffer_packets) {
  check_node(n, "stall");
  if (state_[n].mode == HostMode::crashed) return;
  Server& s = server(n);
  s.stalled = true;
  s.stall_buffer = buffer_packets;
  s.stall_held = 0;
  pause(n);
}

void Hosts::end_stall(NodeId n, std::shared_ptr<const LatencyModel> service,
                      std::shared_ptr<Rng> stream) {
  check_node(n, "end_stall");
  auto it = servers_.find(n);
  if (it == servers_.end() || !it->second.stalled) return;
  Server& s = it->second;
  s.stalled = false;
  s.stall_held = 0;
  if (state_[n].mode != HostMode::paused) return;  // crashed during the stall
  // The held work drains through the server at the per-message cost; the condition itself
  // ends at once, so the server stops queueing new work when the backlog is gone.
  s.service = std::move(service);
  s.stream = std::move(stream);
  const bool was_starved = s.starved;
  s.starved = true;
  s.timers_first = true;
  update_queued(n, s);
  resume(n);
  s.timers_first = false;
  s.starved = was_starved;
  update_queued(n, s);
}

bool Hosts::is_stalled(NodeId n) const {
  auto it = servers_.find(n);
  return it != servers_.end() && it->second.stalled;
}

void Hosts::delay_inbound(NodeId n, std::shared_ptr<const LatencyModel> delay,
                          std::shared_ptr<Rng> stream, bool fifo) {
  check_node(n, "delay_inbound");
  if (!delay || !stream) {
    std::fprintf(stderr, "fdsim: internal error: Hosts::delay_inbound on node %u without a model\n", n);
    std::abort();
  }
  Server& s = server(n);
  s.delay = std::move(delay);
  s.delay_stream = std::move(stream);
  s.delay_fifo = fifo;
  s.inbound_delay = true;
  update_queued(n, s);
}

void Hosts::end_delay_inbound(NodeId n) {
  check_node(n, "end_delay_inbound");
  auto it = servers_.find(n);
  if (it == servers_.end()) return;
  it->second.inbound_delay = false;
  update_queued(n, it->second);
}

bool Hosts::delays_inbound(NodeId n) const {
  auto it = servers_.find(n);
  return it != servers_.end() && it->second.inbound_delay;
}

void Hosts::deliver_or_defer(NodeId n, uint32_t incarnation, EventKind kind,
                             std::function<void()>& fn, int32_t tag, NodeId from,
                             uint64_t msg_id, bool timer) {
  const HostState& s = state_[n];
  if (s.mode == HostMode::crashed || s.incarnation != incarnation) return;  // dropped
  if (s.mode == HostMode::paused) {
    if (tag >= 0) {
      if (auto it = servers_.find(n); it != servers_.end() && it->second.stalled) {
        Server& sv = it->second;
        if (sv.stall_buffer > 0 && sv.stall_held >= sv.stall_buffer) {  // socket buffer full
          ++sv.stats.dropped_socket;
          ++sv.stats.dropped_messages;
          if (drop_hook_) {
            ServiceItem item;
            item.arrived = sim_.now();
            item.msg_id = msg_id;
            item.incarnation = incarnation;
            item.tag = tag;
            item.from = from;
            item.kind = kind;
            drop_hook_(n, item);
          }
          return;
        }
        ++sv.stall_held;
      }
    }
    deferred_[n].push_back({incarnation, kind, std::move(fn), tag, from, msg_id, timer});
    return;
  }
  if (s.queued) [[unlikely]] {
    if (Server& sv = server(n); !sv.starved && !sv.busy) return fn();  // inbound delay only
    ServiceItem item;
    item.fn = std::move(fn);
    item.arrived = sim_.now();
    item.msg_id = msg_id;
    item.incarnation = incarnation;
    item.tag = tag;
    item.from = from;
    item.kind = kind;
    return enqueue(n, std::move(item));
  }
  fn();
}

void Hosts::crash(NodeId n) {
  check_node(n, "crash");
  HostState& s = state_[n];
  if (s.mode == HostMode::crashed) return;
  s.mode = HostMode::crashed;
  deferred_.erase(n);  // queued work of a paused host dies with it
  if (auto it = servers_.find(n); it != servers_.end()) {  // and so does a starved host's
    Server& sv = it->second;
    sv.queue->clear();
    sv.in_service = ServiceItem{};
    sv.busy = false;
    sv.end_at_resume = false;
    ++sv.gen;
    update_queued(n, sv);
  }
  for (size_t i = 0; i < listeners_.size(); ++i) listeners_[i]->on_crash(n);
}

void Hosts::recover(NodeId n) {
  check_node(n, "recover");
  HostState& s = state_[n];
  if (s.mode != HostMode::crashed) return;
  s.mode = HostMode::up;
  ++s.incarnation;
  recover_seq_[n] = sim_.next_seq();
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
  if (auto it = servers_.find(n); it != servers_.end() && state_[n].mode == HostMode::up) {
    Server& sv = it->second;
    if (sv.end_at_resume) {
      finish_service(n, sv);
    } else if (!sv.busy && !sv.queue->empty()) {
      start_service(n, sv, sv.queue->next());
    }
  }
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
  // A starved host (or one still serving a backlog) runs none of this work now: it all enters
  // the service queue, as one batch, so that the queue's discipline orders it (the first item
  // does not start service ahead of the others; memberlist's handoff queue puts the timers that
  // came due during the pause before the packets, models/swim/handoff_queue.h). For a FIFO
  // queue this is the order of before.
  if (auto sv = servers_.find(n);
      sv != servers_.end() && state_[n].queued && state_[n].mode == HostMode::up) {
    Server& s = sv->second;
    if (s.timers_first) {
      // The end of a stall: the timers that came due run now, in due order, before any held
      // delivery is read (Go runs expired timers before it polls the network).
      for (Deferred& d : items) {
        if (!d.timer || d.incarnation != state_[n].incarnation) continue;
        if (state_[n].mode != HostMode::up) break;
        std::function<void()> f = std::move(d.fn);
        d.fn = nullptr;
        f();
      }
      if (state_[n].mode == HostMode::crashed) return;
    }
    std::vector<ServiceItem> dropped;
    for (Deferred& d : items) {
      if (d.incarnation != state_[n].incarnation || !d.fn) continue;
      ServiceItem item;
      item.fn = std::move(d.fn);
      item.arrived = sim_.now();
      item.msg_id = d.msg_id;
      item.incarnation = d.incarnation;
      item.tag = d.tag;
      item.from = d.from;
      item.kind = d.kind;
      s.queue->admit(std::move(item), dropped);
    }
    for (ServiceItem& d : dropped) {
      if (d.tag >= 0)
        ++s.stats.dropped_messages;
      else
        ++s.stats.dropped_timers;
      if (drop_hook_) drop_hook_(n, d);
    }
    if (!s.busy && !s.queue->empty()) start_service(n, s, s.queue->next());
    return;
  }
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
    deliver_or_defer(n, items[i].incarnation, items[i].kind, items[i].fn, items[i].tag,
                     items[i].from, items[i].msg_id);
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
