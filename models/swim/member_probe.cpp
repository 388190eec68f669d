// The probe loop (memberlist state.go probe / probeNode / resetNodes) and the indirect-ping
// relay (net.go handleIndirectPing).
#include <algorithm>

#include "models/swim/member.h"

namespace fdsim::swim {

Member::Member(Shared& shared, NodeId self)
    : s_(shared),
      self_(self),
      order_(shared.world.rng, self),
      awareness_(shared.config.awareness_max_multiplier) {}

SimTime Member::next_grid(SimTime phase, Duration period, SimTime after) {
  if (after < phase) return phase;
  const int64_t k = (after - phase) / period + 1;
  return phase + period * k;
}

void Member::start() {
  const size_t n = s_.config.node_count;
  participating_ = true;
  peers_.clear();
  suspicions_.clear();
  gens_.clear();
  {
    // Fisher-Yates of 0 .. n-1, as Go's rand.Shuffle, drawn lazily (probe_order.h). The hints
    // only set how much of the order the first replay resolves; they never change a value.
    const SwimConfig& c = s_.config;
    const LookaheadHint hint = lookahead_hint(
        (s_.world.horizon - s_.now()).count_ns(), c.probe_interval.count_ns(),
        c.gossip_interval.count_ns(), c.gossip_nodes, c.indirect_checks);
    order_.start(n, hint.prefix, hint.select);
  }
  if (!s_.absent.empty()) {
    // Churn: the slots absent at t = 0 are in nobody's view. The order is the start shuffle
    // with them taken out (a uniform order of the present members), held explicitly; the
    // streams stand where the shuffle left them.
    std::vector<NodeId>& order = order_.nodes();
    std::erase_if(order, [&](NodeId m) { return s_.absent[m]; });
    for (NodeId m = 0; m < n; ++m)
      if (s_.absent[m]) peers_.mut(m).known = false;
  }

  Rng stagger = s_.world.rng.stream(self_, "swim.stagger");
  start_loops(s_.now(), stagger);
}

void Member::join(uint32_t gen, NodeId seed) {
  // A fresh memberlist (Create, memberlist.go 227-238): nothing of the slot's earlier identity
  // survives -- view, suspicions, relays, broadcast queue, probe state, awareness, sequence
  // numbers, incarnation (setAlive 410-449: nextIncarnation() from 0 gives 1).
  const size_t n = s_.config.node_count;
  participating_ = true;
  left_ = false;
  gen_ = gen;
  peers_.clear();
  suspicions_.clear();
  gens_.clear();
  relays_.clear();
  queue_.clear();
  probe_ = Probe{};
  probe_index_ = 0;
  seq_ = 0;
  my_incarnation_ = 1;
  awareness_ = Awareness(s_.config.awareness_max_multiplier);
  // Its m.nodes holds only itself; its streams are keyed on the identity, so two identities on
  // one slot never replay each other's draws.
  const std::string key = ".join" + std::to_string(gen);
  order_.start(n, 1, 1);
  order_.nodes().assign(1, self_);
  order_.shuffle_rng() = s_.world.rng.stream(self_, "swim.shuffle" + key);
  order_.select_rng() = s_.world.rng.stream(self_, "swim.select" + key);
  for (NodeId m = 0; m < n; ++m)
    if (m != self_) peers_.mut(m).known = false;
  Peer& me = peers_.mut(self_);
  me = Peer{};
  me.state_change = s_.now();
  // setAlive -> aliveNode(bootstrap = true) about itself: the alive (incarnation 1) is queued
  // for broadcast (state.go 1067, 1093: the local node's bootstrap alive takes the broadcast
  // branch).
  broadcast(Update{UpdateKind::alive, self_, 1, self_, gen_});
  s_.trace(self_, "swim_join",
           {{"gen", gen_}, {"seed", seed != kNoNode ? nlohmann::json(seed) : nlohmann::json(nullptr)}});
  Rng stagger = s_.world.rng.stream(self_, "swim.stagger" + key);
  start_loops(s_.now(), stagger);
  // Join (memberlist.go 249-278) -> pushPullNode(seed, join = true) (state.go 644-657).
  if (seed != kNoNode) send_push_pull(seed, false);
}

void Member::start_loops(SimTime t0, Rng& stagger) {
  // Ticker phases stand in for the members' start times; the stagger of triggerFunc is shorter
  // than one period, so the first tick taken is the first of the ticker's grid.
  probe_phase_ = t0 + Duration::ns(stagger.uniform_int(1, s_.config.probe_interval.count_ns()));
  gossip_phase_ = t0 + Duration::ns(stagger.uniform_int(1, s_.config.gossip_interval.count_ns()));
  // pushPullTrigger: a random stagger below the interval, then a wait of one (scaled) interval
  // before every exchange, the first included.
  const Duration push_pull_first = s_.config.push_pull_interval > Duration::zero()
      ? Duration::ns(stagger.uniform_int(0, s_.config.push_pull_interval.count_ns() - 1)) +
            push_pull_scale(s_.config.push_pull_interval, num_nodes())
      : Duration::zero();

  schedule_probe_tick(probe_phase_);
  if (s_.config.gossip_nodes > 0) {
    s_.world.hosts.schedule_at(self_, gossip_phase_, s_.kinds.gossip_tick,
                               [this] { gossip_tick(); });
  }
  if (s_.config.push_pull_interval > Duration::zero()) {
    s_.world.hosts.schedule_after(self_, push_pull_first, s_.kinds.push_pull_tick,
                                  [this] { push_pull_tick(); });
  }
}

void Member::on_crash() {
  participating_ = false;
  left_ = false;
  relays_.clear();
  queue_.clear();
  probe_ = Probe{};
  suspicions_.clear();
}

void Member::schedule_probe_tick(SimTime at) {
  next_probe_tick_ = at;
  s_.world.hosts.schedule_at(self_, at, s_.kinds.probe_tick, [this] { probe_tick(); });
}

void Member::probe_tick() {
  if (!participating_ || probe_.active) return;
  next_probe_tick_ = next_grid(probe_phase_, s_.config.probe_interval, s_.now());
  size_t num_check = 0;
  for (;;) {
    if (num_check >= order_.size()) break;
    if (probe_index_ >= order_.size()) {
      reset_nodes();
      probe_index_ = 0;
      ++num_check;
      continue;
    }
    const NodeId n = order_.at(probe_index_);
    const PeerState st = peers_.get(n).state;
    const bool skip = n == self_ || st == PeerState::dead || st == PeerState::left;
    ++probe_index_;
    if (skip) {
      ++num_check;
      continue;
    }
    probe_node(n);
    return;
  }
  schedule_probe_tick(next_probe_tick_);
}

void Member::reset_nodes() {
  const SimTime now = s_.now();
  std::vector<NodeId>& order = order_.nodes();
  std::vector<NodeId> kept;
  for (NodeId n : order) {
    const Peer& p = peers_.get(n);
    if (p.state == PeerState::dead && now - p.state_change > s_.config.gossip_to_the_dead) {
      peers_.mut(n).known = false;  // forgotten: an alive message adds it back as a new member
      suspicions_.erase(n);
      continue;
    }
    kept.push_back(n);
  }
  order = std::move(kept);
  Rng& shuffle = order_.shuffle_rng();
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[size_t(shuffle.uniform_int(0, int64_t(i) - 1))]);
}

std::vector<NodeId> Member::random_nodes(int64_t k, const std::function<bool(NodeId)>& exclude) {
  // util.go kRandomNodes: up to 3n random draws, skipping excluded and repeated members.
  std::vector<NodeId> out;
  const int64_t n = int64_t(order_.size());
  for (int64_t i = 0; i < 3 * n && int64_t(out.size()) < k; ++i) {
    const NodeId cand = order_.random();
    if (exclude(cand)) continue;
    if (std::find(out.begin(), out.end(), cand) != out.end()) continue;
    out.push_back(cand);
  }
  return out;
}

void Member::probe_node(NodeId target) {
  const SwimConfig& c = s_.config;
  const Duration probe_interval =
      s_.arm.awareness ? awareness_.scale_timeout(c.probe_interval) : c.probe_interval;
  const SimTime now = s_.now();
  probe_ = Probe{};
  probe_.active = true;
  probe_.seq = ++seq_;
  probe_.target = target;
  probe_.target_incarnation = peers_.get(target).incarnation;
  probe_.target_gen = gen_of(target);
  probe_.start = now;
  probe_.deadline = now + probe_interval;

  Packet ping{Msg::ping, self_, probe_.seq, kNoNode, false, {}};
  ping.to_gen = probe_.target_gen;
  if (peers_.get(target).state == PeerState::alive || !s_.arm.buddy) {
    send_packet(target, std::move(ping), kPingBytes, true);
  } else {
    // Lifeguard's buddy system: a suspect learns of the suspicion from the prober directly.
    ping.updates.push_back(
        Update{UpdateKind::suspect, target, peers_.get(target).incarnation, self_, probe_.target_gen});
    send_packet(target, std::move(ping), kPingBytes, false);
  }
  const Duration wait = std::min(c.probe_timeout, probe_interval);
  const uint32_t seq = probe_.seq;
  s_.world.hosts.schedule_after(self_, wait, s_.kinds.probe_timeout,
                                [this, seq] { on_probe_timeout(seq); });
}

void Member::on_ack(uint32_t seq) {
  if (auto it = relays_.find(seq); it != relays_.end()) {
    const Relay r = it->second;
    relays_.erase(it);
    send_packet(r.requester, Packet{Msg::ack, self_, r.origin_seq, kNoNode, false, {}},
                kAckBytes, true);
    return;
  }
  if (probe_.active && seq == probe_.seq && !probe_.deadline_passed) finish_probe(false, -1);
}

void Member::on_nack(uint32_t seq) {
  if (probe_.active && seq == probe_.seq && !probe_.deadline_passed &&
      probe_.nacks < s_.config.indirect_checks + 1)
    ++probe_.nacks;
}

void Member::on_probe_timeout(uint32_t seq) {
  if (!probe_.active || seq != probe_.seq) return;
  const NodeId target = probe_.target;
  const std::vector<NodeId> relays = random_nodes(s_.config.indirect_checks, [&](NodeId n) {
    return n == self_ || n == target || peers_.get(n).state != PeerState::alive;
  });
  for (NodeId r : relays) {
    if (s_.arm.nack) ++probe_.expected_nacks;
    send_packet(r, Packet{Msg::indirect_ping, self_, seq, target, s_.arm.nack, {}, probe_.target_gen},
                kIndirectPingBytes, true);
  }
  const Duration left = probe_.deadline - s_.now();
  if (s_.config.tcp_fallback && left > Duration::zero()) {
    probe_.fallback_pending = true;
    s_.signals.message_sent(s_.now(), self_, Msg::tcp_ping);
    Shared* sh = &s_;
    const uint32_t to_gen = probe_.target_gen;
    s_.world.net.probe(
        self_, target, left, s_.type(Msg::tcp_ping), net::ProbeBytes{kPingBytes, kAckBytes},
        [sh, target, to_gen] { return sh->at(target).serve_tcp_ping(to_gen); },
        [this, seq](net::ProbeResult r) {
          on_fallback_done(seq, r.outcome == net::ProbeOutcome::answered && r.answer == 1);
        });
  }
  // A paused member replays this timeout at its resume, possibly after the deadline: the
  // deadline then fires at once (Go: the deadline timer fired during the pause too).
  s_.world.hosts.schedule_at(self_, std::max(probe_.deadline, s_.now()), s_.kinds.probe_deadline,
                             [this, seq] { on_probe_deadline(seq); });
}

int64_t Member::serve_tcp_ping(uint32_t to_gen) {
  // A TCP ping for another identity is not answered (net.go handleConn 288-291: "Got ping for
  // unexpected node").
  return participating_ && !s_.world.hosts.is_sick(self_) && to_gen == gen_ ? 1 : 0;
}

void Member::on_fallback_done(uint32_t seq, bool contact) {
  if (!probe_.active || seq != probe_.seq) return;
  probe_.fallback_pending = false;
  probe_.fallback_contact = contact;
  if (probe_.deadline_passed) conclude_probe();
}

void Member::on_probe_deadline(uint32_t seq) {
  if (!probe_.active || seq != probe_.seq) return;
  probe_.deadline_passed = true;
  if (!probe_.fallback_pending) conclude_probe();
}

void Member::conclude_probe() {
  if (probe_.fallback_contact) {
    s_.trace(self_, "swim_fallback_contact", {{"target", probe_.target}});
    finish_probe(false, -1);
    return;
  }
  int64_t delta = 0;
  if (probe_.expected_nacks > 0) {
    if (probe_.nacks < probe_.expected_nacks) delta += probe_.expected_nacks - probe_.nacks;
  } else {
    delta += 1;
  }
  const NodeId target = probe_.target;
  s_.trace(self_, "swim_probe_failed",
           {{"target", target}, {"nacks", probe_.nacks}, {"expected_nacks", probe_.expected_nacks}});
  s_.signals.suspicion_raised(s_.now(), self_, target, probe_.target_gen);
  suspect_node(Update{UpdateKind::suspect, target, probe_.target_incarnation, self_, probe_.target_gen});
  finish_probe(true, delta);
}

void Member::finish_probe(bool failed, int64_t awareness_delta) {
  if (s_.arm.awareness) awareness_.apply_delta(awareness_delta);
  probe_.active = false;
  s_.signals.probe_finished(s_.now(), self_, failed);
  // Go's ticker keeps one tick while the probe runs: a probe that outlived the next tick is
  // followed at once by the next one; further ticks were dropped.
  schedule_probe_tick(std::max(next_probe_tick_, s_.now()));
}

void Member::on_indirect_ping(const Packet& p) {
  if (s_.world.hosts.is_sick(self_)) return;
  const uint32_t local = ++seq_;
  relays_[local] = Relay{p.from, p.seq, p.nack};
  send_packet(p.target, Packet{Msg::ping, self_, local, kNoNode, false, {}, p.to_gen}, kPingBytes,
              true);
  s_.world.hosts.schedule_after(self_, s_.config.probe_timeout, s_.kinds.relay_expiry,
                                [this, local] { on_relay_expiry(local); });
}

void Member::on_relay_expiry(uint32_t local_seq) {
  const auto it = relays_.find(local_seq);
  if (it == relays_.end()) return;
  const Relay r = it->second;
  relays_.erase(it);
  if (r.nack)
    send_packet(r.requester, Packet{Msg::nack, self_, r.origin_seq, kNoNode, false, {}},
                kNackBytes, true);
}

}  // namespace fdsim::swim
