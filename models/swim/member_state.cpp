// The member-list state machine (memberlist state.go aliveNode / suspectNode / deadNode /
// refute / mergeState, suspicion.go Confirm, and memberlist.go Leave).
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
  const auto it = suspicions_.find(n);
  if (it == suspicions_.end()) return std::nullopt;
  return std::make_pair(it->second.n, it->second.k);
}

void Member::set_state(NodeId n, PeerState to) {
  Peer& p = peers_.mut(n);
  const PeerState from = p.state;
  p.state = to;
  p.state_change = s_.now();
  if (n == self_) return;
  s_.trace(self_, "swim_state",
           {{"target", n}, {"from", state_name(from)}, {"to", state_name(to)},
            {"incarnation", p.incarnation}});
  s_.signals.state_changed(s_.now(), self_, n, gen_of(n), from, to);
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
  const bool is_local = a.node == self_;
  // Churn: an alive about an older identity of the slot than the one held is about a name this
  // member no longer tracks (never about itself: a fresh identity ignores its predecessor's).
  if (a.gen < gen_of(a.node) || (is_local && a.gen != gen_)) return;
  // state.go 926-928: a member that has left does not take an alive about itself.
  if (is_local && left_) return;
  const bool newer_identity = a.gen > gen_of(a.node);
  if (!peers_.get(a.node).known || newer_identity) {
    // A member never seen (a churn joiner) or forgotten: memberlist adds a new node state
    // (dead, incarnation 0) at a random offset of the probe order (state.go 1006-1012: "Add at
    // the end and swap with the node at the offset"). A newer identity on a slot replaces
    // the old identity's entry (models/swim/README.md "Churn": memberlist keeps the old name's
    // entry beside it).
    if (newer_identity && peers_.get(a.node).known) {
      std::vector<NodeId>& order = order_.nodes();
      const auto it = std::find(order.begin(), order.end(), a.node);
      if (it != order.end()) {
        if (size_t(it - order.begin()) < probe_index_) --probe_index_;
        order.erase(it);
      }
    }
    if (a.gen != 0) gens_[a.node] = a.gen;
    else gens_.erase(a.node);
    Peer& st = peers_.mut(a.node);
    st = Peer{};
    st.state = PeerState::dead;
    st.incarnation = 0;
    st.state_change = s_.now();
    st.known = true;
    std::vector<NodeId>& order = order_.nodes();
    const size_t n = order.size();
    const size_t offset =
        n == 0 ? 0 : size_t(order_.select_rng().uniform_int(0, int64_t(n) - 1));
    order.push_back(a.node);
    std::swap(order[offset], order[n]);
  }
  const Peer& st = peers_.get(a.node);
  if (a.incarnation <= st.incarnation && !is_local) return;
  if (a.incarnation < st.incarnation && is_local) return;
  suspicions_.erase(a.node);
  if (is_local) {
    if (a.incarnation == st.incarnation) return;
    refute(a.incarnation);
    return;
  }
  broadcast(a);
  peers_.mut(a.node).incarnation = a.incarnation;
  if (peers_.get(a.node).state != PeerState::alive) set_state(a.node, PeerState::alive);
}

void Member::suspect_node(const Update& s) {
  const Peer& st = peers_.get(s.node);
  if (!st.known) return;
  if (s.gen != gen_of(s.node)) return;  // about another name (churn): unknown here
  if (s.incarnation < st.incarnation) return;
  if (const auto it = suspicions_.find(s.node); it != suspicions_.end()) {
    if (confirm(it->second, s.node, s.from)) broadcast(s);
    return;
  }
  if (st.state != PeerState::alive) return;
  if (s.node == self_) {
    refute(s.incarnation);
    return;
  }
  broadcast(s);
  peers_.mut(s.node).incarnation = s.incarnation;
  set_state(s.node, PeerState::suspect);

  const SwimConfig& c = s_.config;
  const int64_t n = num_nodes();
  const int64_t k = c.suspicion_k(s_.arm, n);
  Suspicion sp;
  sp.k = k;
  sp.min = suspicion_timeout(c.suspicion_mult, n, c.probe_interval);
  sp.max = sp.min * c.suspicion_max_timeout_mult;
  sp.start = s_.now();
  sp.confirmations.push_back(s.from);
  const Duration timeout = suspicion_deadline(0, k, sp.min, sp.max);
  const NodeId target = s.node;
  const SimTime change = sp.start;
  sp.timer = s_.world.hosts.schedule_after(self_, timeout, s_.kinds.suspicion,
                                           [this, target, change] {
                                             on_suspicion_timeout(target, change);
                                           });
  suspicions_.insert_or_assign(target, std::move(sp));
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
  const Peer& st = peers_.get(target);
  if (!st.known || st.state != PeerState::suspect || st.state_change != change_time) return;
  const auto sp = suspicions_.find(target);
  s_.trace(self_, "swim_suspicion_timeout",
           {{"target", target},
            {"confirmations", sp != suspicions_.end() ? sp->second.n : 0}});
  s_.signals.dead_declared(s_.now(), self_, target, gen_of(target));
  dead_node(Update{UpdateKind::dead, target, st.incarnation, self_, gen_of(target)});
}

void Member::dead_node(const Update& d) {
  const Peer& st = peers_.get(d.node);
  if (!st.known) return;
  if (d.gen != gen_of(d.node)) return;  // about another name (churn): unknown here
  if (d.incarnation < st.incarnation) return;
  suspicions_.erase(d.node);
  if (st.state == PeerState::dead || st.state == PeerState::left) return;
  if (d.node == self_) {
    // state.go 1245-1256: refute unless leaving; a leaver broadcasts its own dead message.
    if (!left_) {
      refute(d.incarnation);
      return;
    }
  }
  broadcast(d);
  peers_.mut(d.node).incarnation = d.incarnation;
  set_state(d.node, d.node == d.from ? PeerState::left : PeerState::dead);
}

void Member::refute(uint32_t accused_incarnation) {
  uint32_t inc = ++my_incarnation_;
  if (accused_incarnation >= inc) {
    my_incarnation_ = accused_incarnation + 1;
    inc = my_incarnation_;
  }
  peers_.mut(self_).incarnation = inc;
  if (s_.arm.awareness) awareness_.apply_delta(1);
  broadcast(Update{UpdateKind::alive, self_, inc, self_, gen_});
  s_.trace(self_, "swim_refute", {{"accused_incarnation", accused_incarnation}, {"incarnation", inc}});
  s_.signals.refuted(s_.now(), self_);
}

void Member::merge_state(const std::vector<PushEntry>& remote) {
  for (const PushEntry& e : remote) {
    switch (e.state) {
      case PeerState::alive:
        apply_update(Update{UpdateKind::alive, e.node, e.incarnation, e.node, e.gen});
        break;
      case PeerState::left:
        apply_update(Update{UpdateKind::dead, e.node, e.incarnation, e.node, e.gen});
        break;
      case PeerState::dead:
      case PeerState::suspect:
        apply_update(Update{UpdateKind::suspect, e.node, e.incarnation, self_, e.gen});
        break;
    }
  }
}

void Member::leave() {
  // memberlist.go Leave (627-672): a dead message about itself with Node == From at its own
  // incarnation, through deadNode, which (leaving) broadcasts it and marks itself left
  // (state.go 1245-1272). Leave then blocks until that broadcast is finished -- sent
  // retransmitLimit times (queue.go 354-356: Finished at the transmit limit) -- or the timeout;
  // the host goes down right after this returns (sim/faults/churn.h), so the model sends those
  // transmissions now: one gossip packet (state.go gossip 595-618: as many queued broadcasts as
  // fit, fewest transmits first) to each of up to transmit_limit() distinct members picked as
  // the gossip round picks them (kRandomNodes over alive, suspect and recently dead members).
  // With no other live member (anyAlive, memberlist.go 675-684) nothing waits.
  if (!participating_ || left_) return;
  left_ = true;
  const uint32_t inc = peers_.get(self_).incarnation;
  dead_node(Update{UpdateKind::dead, self_, inc, self_, gen_});
  s_.trace(self_, "swim_leave", {{"incarnation", inc}});
  const SimTime now = s_.now();
  send_gossip(random_nodes(transmit_limit(), [&](NodeId n) { return gossip_excluded(n, now); }));
}

}  // namespace fdsim::swim
