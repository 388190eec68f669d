// The member-list state machine (memberlist state.go aliveNode / suspectNode / deadNode /
// refute / mergeState, and suspicion.go Confirm).
#include <algorithm>

#include "models/swim/member.h"

namespace fdsim::swim {

namespace {
const char* state_name(PeerState s) {
  switch (s) {
    case PeerState::alive: return "alive";
    case PeerState::suspect: return "suspect";
    case PeerState::dead: return "dead";
    case PeerState::left: return "left";
  }
  return "?";
}
}  // namespace

std::optional<std::pair<int64_t, int64_t>> Member::suspicion_of(NodeId n) const {
  if (!peers_[n].suspicion) return std::nullopt;
  return std::make_pair(peers_[n].suspicion->n, peers_[n].suspicion->k);
}

void Member::set_state(NodeId n, PeerState to) {
  Peer& p = peers_[n];
  const PeerState from = p.state;
  p.state = to;
  p.state_change = s_.now();
  if (n == self_) return;
  s_.trace(self_, "swim_state",
           {{"target", n}, {"from", state_name(from)}, {"to", state_name(to)},
            {"incarnation", p.incarnation}});
  s_.signals.state_changed(s_.now(), self_, n, from, to);
}

void Member::apply_update(const Update& u) {
  // A sick member answers nothing, refutations included.
  if (u.node == self_ && s_.world.hosts.is_sick(self_)) return;
  switch (u.kind) {
    case UpdateKind::alive: alive_node(u); break;
    case UpdateKind::suspect: suspect_node(u); break;
    case UpdateKind::dead: dead_node(u); break;
  }
}

void Member::alive_node(const Update& a) {
  Peer& st = peers_[a.node];
  const bool is_local = a.node == self_;
  if (!st.known) {
    // A forgotten member: memberlist adds a new node state (dead, incarnation 0) at a random
    // offset of the probe order.
    st = Peer{};
    st.state = PeerState::dead;
    st.incarnation = 0;
    st.state_change = s_.now();
    st.known = true;
    const size_t n = order_.size();
    const size_t offset = n == 0 ? 0 : size_t(select_rng_.uniform_int(0, int64_t(n) - 1));
    order_.push_back(a.node);
    std::swap(order_[offset], order_[n]);
  }
  if (a.incarnation <= st.incarnation && !is_local) return;
  if (a.incarnation < st.incarnation && is_local) return;
  st.suspicion.reset();
  if (is_local) {
    if (a.incarnation == st.incarnation) return;
    refute(a.incarnation);
    return;
  }
  broadcast(a);
  st.incarnation = a.incarnation;
  if (st.state != PeerState::alive) set_state(a.node, PeerState::alive);
}

void Member::suspect_node(const Update& s) {
  Peer& st = peers_[s.node];
  if (!st.known) return;
  if (s.incarnation < st.incarnation) return;
  if (st.suspicion) {
    if (confirm(*st.suspicion, s.node, s.from)) broadcast(s);
    return;
  }
  if (st.state != PeerState::alive) return;
  if (s.node == self_) {
    refute(s.incarnation);
    return;
  }
  broadcast(s);
  st.incarnation = s.incarnation;
  set_state(s.node, PeerState::suspect);

  const SwimConfig& c = s_.config;
  int64_t k = s_.arm.dynamic_suspicion ? c.suspicion_mult - 2 : 0;
  const int64_t n = num_nodes();
  if (n - 2 < k) k = 0;
  Suspicion sp;
  sp.k = k;
  sp.min = suspicion_timeout(c.suspicion_mult, n, c.probe_interval);
  sp.max = sp.min * c.suspicion_max_timeout_mult;
  sp.start = s_.now();
  sp.confirmations.push_back(s.from);
  const Duration timeout = k < 1 ? sp.min : sp.max;
  const NodeId target = s.node;
  const SimTime change = sp.start;
  sp.timer = s_.world.hosts.schedule_after(self_, timeout, s_.kinds.suspicion,
                                           [this, target, change] {
                                             on_suspicion_timeout(target, change);
                                           });
  st.suspicion = std::move(sp);
}

bool Member::confirm(Suspicion& sp, NodeId target, NodeId from) {
  if (sp.n >= sp.k) return false;
  if (std::find(sp.confirmations.begin(), sp.confirmations.end(), from) !=
      sp.confirmations.end())
    return false;
  sp.confirmations.push_back(from);
  ++sp.n;
  const Duration remaining =
      remaining_suspicion_time(sp.n, sp.k, s_.now() - sp.start, sp.min, sp.max);
  // Go: if s.timer.Stop() { Reset(remaining) or fire now }; a timer that already fired (here:
  // one that left the queue, e.g. during a pause) is left alone.
  if (s_.world.sim.cancel(sp.timer)) {
    const SimTime change = sp.start;
    sp.timer = s_.world.hosts.schedule_after(
        self_, std::max(remaining, Duration::zero()), s_.kinds.suspicion,
        [this, target, change] { on_suspicion_timeout(target, change); });
  }
  return true;
}

void Member::on_suspicion_timeout(NodeId target, SimTime change_time) {
  if (!participating_) return;
  const Peer& st = peers_[target];
  if (!st.known || st.state != PeerState::suspect || st.state_change != change_time) return;
  s_.trace(self_, "swim_suspicion_timeout",
           {{"target", target},
            {"confirmations", st.suspicion ? st.suspicion->n : 0}});
  dead_node(Update{UpdateKind::dead, target, st.incarnation, self_});
}

void Member::dead_node(const Update& d) {
  Peer& st = peers_[d.node];
  if (!st.known) return;
  if (d.incarnation < st.incarnation) return;
  st.suspicion.reset();
  if (st.state == PeerState::dead || st.state == PeerState::left) return;
  if (d.node == self_) {
    refute(d.incarnation);
    return;
  }
  broadcast(d);
  st.incarnation = d.incarnation;
  set_state(d.node, d.node == d.from ? PeerState::left : PeerState::dead);
}

void Member::refute(uint32_t accused_incarnation) {
  uint32_t inc = ++my_incarnation_;
  if (accused_incarnation >= inc) {
    my_incarnation_ = accused_incarnation + 1;
    inc = my_incarnation_;
  }
  peers_[self_].incarnation = inc;
  if (s_.arm.awareness) awareness_.apply_delta(1);
  broadcast(Update{UpdateKind::alive, self_, inc, self_});
  s_.trace(self_, "swim_refute", {{"accused_incarnation", accused_incarnation}, {"incarnation", inc}});
  s_.signals.refuted(s_.now(), self_);
}

void Member::merge_state(const std::vector<PushEntry>& remote) {
  for (const PushEntry& e : remote) {
    switch (e.state) {
      case PeerState::alive:
        apply_update(Update{UpdateKind::alive, e.node, e.incarnation, e.node});
        break;
      case PeerState::left:
        apply_update(Update{UpdateKind::dead, e.node, e.incarnation, e.node});
        break;
      case PeerState::dead:
      case PeerState::suspect:
        apply_update(Update{UpdateKind::suspect, e.node, e.incarnation, self_});
        break;
    }
  }
}

}  // namespace fdsim::swim
