// Dissemination: packets with piggybacked broadcasts (net.go sendMsg), the gossip rounds
// (state.go gossip) and push-pull state exchanges (state.go pushPull, net.go handleConn).
#include "models/swim/member.h"

namespace fdsim::swim {

int64_t Member::transmit_limit() const {
  return retransmit_limit(s_.config.retransmit_mult, num_nodes());
}

Updates Member::piggyback(uint32_t msg_bytes) {
  const int64_t avail =
      s_.config.udp_buffer_bytes - int64_t(msg_bytes) - kCompoundHeaderOverheadBytes;
  return queue_.take(kCompoundOverheadBytes, avail, transmit_limit());
}

void Member::send_packet(NodeId dst, Packet p, uint32_t msg_bytes, bool with_piggyback) {
  if (with_piggyback) {
    Updates extra = piggyback(msg_bytes);
    p.updates.insert(p.updates.end(), extra.begin(), extra.end());
  }
  uint32_t bytes = msg_bytes;
  for (const Update& u : p.updates) bytes += update_bytes(u) + kCompoundOverheadBytes;
  s_.signals.message_sent(s_.now(), self_, p.kind);
  Shared* sh = &s_;
  s_.world.net.send_unreliable(self_, dst, s_.type(p.kind), bytes,
                               [sh, dst, p = std::move(p)] { sh->at(dst).receive(p); });
}

void Member::receive(const Packet& p) {
  if (!participating_) return;
  const bool sick = s_.world.hosts.is_sick(self_);
  switch (p.kind) {
    case Msg::ping:
      // A ping for another identity on this slot is not answered (net.go handlePing 489-493);
      // the updates it carries are still handled (compound parts are separate messages).
      if (!sick && p.to_gen == gen_)
        send_packet(p.from, Packet{Msg::ack, self_, p.seq, kNoNode, false, {}}, kAckBytes, true);
      break;
    case Msg::ack: on_ack(p.seq); break;
    case Msg::nack: on_nack(p.seq); break;
    case Msg::indirect_ping: on_indirect_ping(p); break;
    case Msg::gossip:
    case Msg::tcp_ping:
    case Msg::push_pull: break;
  }
  for (const Update& u : p.updates) receive_update(u, p.from);
}

void Member::receive_update(const Update& u, NodeId from) {
  // Only callbacks served by the host's server run while it is starved, and the server serves
  // the next item after this one returns, so a handed-off update is never left unserved. A
  // member whose condition ended keeps handing off until its lists are empty (their backlog
  // drains first, as memberlist's packet handler works through its lists).
  if (handoff_ == nullptr ||
      (handoff_->empty() && !s_.world.hosts.is_starved(self_))) {
    apply_update(u);
    return;
  }
  net::ServiceItem it;
  it.fn = [this, u] {
    if (participating_) apply_update(u);
  };
  it.arrived = s_.now();
  it.incarnation = s_.world.hosts.incarnation(self_);
  it.from = from;
  const bool measured = s_.now() >= s_.world.warmup_end;
  if (handoff_->hand_off(std::move(it), u.kind == UpdateKind::alive)) {
    if (measured) ++handoff_stats_.first;
  } else {
    if (measured) ++handoff_stats_.second;
    s_.trace(self_, "swim_handoff_drop", {{"target", u.node}, {"from", from}});
  }
}

void Member::gossip_tick() {
  if (!participating_) return;
  gossip();
  s_.world.hosts.schedule_at(self_, next_grid(gossip_phase_, s_.config.gossip_interval, s_.now()),
                             s_.kinds.gossip_tick, [this] { gossip_tick(); });
}

bool Member::gossip_excluded(NodeId n, SimTime now) const {
  if (n == self_) return true;
  switch (peers_.get(n).state) {
    case PeerState::alive:
    case PeerState::suspect: return false;
    case PeerState::dead: return now - peers_.get(n).state_change > s_.config.gossip_to_the_dead;
    case PeerState::left: return true;
  }
  return true;
}

void Member::gossip() {
  const SimTime now = s_.now();
  send_gossip(random_nodes(s_.config.gossip_nodes,
                           [&](NodeId n) { return gossip_excluded(n, now); }));
}

void Member::send_gossip(const std::vector<NodeId>& targets) {
  for (NodeId t : targets) {
    Updates msgs = queue_.take(kCompoundOverheadBytes,
                               s_.config.udp_buffer_bytes - kCompoundHeaderOverheadBytes,
                               transmit_limit());
    if (msgs.empty()) return;
    send_packet(t, Packet{Msg::gossip, self_, 0, kNoNode, false, std::move(msgs)}, 0, false);
  }
}

std::vector<PushEntry> Member::local_state() {
  std::vector<PushEntry> out;
  out.reserve(order_.size());
  order_.for_each([&](NodeId n) {
    const Peer& p = peers_.get(n);
    out.push_back(PushEntry{n, p.state, p.incarnation, gen_of(n)});
  });
  return out;
}

void Member::push_pull_tick() {
  if (!participating_) return;
  const std::vector<NodeId> peer = random_nodes(
      1, [&](NodeId n) { return n == self_ || peers_.get(n).state != PeerState::alive; });
  if (!peer.empty()) send_push_pull(peer.front(), false);
  s_.world.hosts.schedule_after(self_, push_pull_scale(s_.config.push_pull_interval, num_nodes()),
                                s_.kinds.push_pull_tick, [this] { push_pull_tick(); });
}

void Member::send_push_pull(NodeId dst, bool is_reply) {
  std::vector<PushEntry> state = local_state();
  const uint32_t bytes = uint32_t(16 + 60 * state.size());
  s_.signals.message_sent(s_.now(), self_, Msg::push_pull);
  Shared* sh = &s_;
  const NodeId src = self_;
  s_.world.net.send_reliable(self_, dst, s_.type(Msg::push_pull), bytes,
                             [sh, src, dst, is_reply, state = std::move(state)] {
                               sh->at(dst).receive_push_pull(src, state, is_reply);
                             });
}

void Member::receive_push_pull(NodeId from, const std::vector<PushEntry>& remote,
                               bool is_reply) {
  if (!participating_) return;
  if (!is_reply) {
    if (s_.world.hosts.is_sick(self_)) return;
    send_push_pull(from, true);
  }
  merge_state(remote);
}

}  // namespace fdsim::swim
