#pragma once
// One memberlist node: the probe loop (state.go probe/probeNode), the indirect-ping relay
// (net.go handleIndirectPing), gossip and push-pull (state.go gossip/pushPull), and the state
// machine of its member list (aliveNode / suspectNode / deadNode / refute / mergeState).
//
// Contract (models/swim/README.md gives the memberlist references; deviations are listed
// there):
// - start(offsets) at t = 0: every member alive at incarnation 1 in a random probe order
//   (stream "swim.shuffle"); the probe and gossip tickers run on grids with random phases and
//   the push-pull loop waits a random stagger in [0, period) plus one period before its first
//   exchange (stream "swim.stagger"), as memberlist's triggerFunc and pushPullTrigger.
// - Probing: one probe at a time; the next starts at the next probe tick, or at once when the
//   probe outlived a tick (Go's ticker keeps one pending tick). The probe deadline (ack handler
//   lifetime, indirect and TCP wait) is awareness.scale_timeout(probe_interval); the direct
//   wait is probe_timeout. A probe fails when neither a direct, an indirect ack nor the TCP
//   fallback answered by the deadline; the member then suspects the target.
// - Everything runs on the member's host (timers through Hosts, packets through Network), so
//   crash, pause, sick and play-dead come from sim/net. A sick member answers no ping, indirect
//   ping, TCP ping or push-pull, and still probes and gossips. A crashed member stops for good
//   (a recovered host does not rejoin, except a churn joiner).
// - Churn (sim/faults/churn.h; models/swim/README.md "Churn"): slots absent at t = 0 are unknown
//   to every member's view and probe order (Shared::absent); leave() is memberlist's Leave, and
//   join() starts a fresh identity (generation gen() = the host incarnation it starts on) that
//   knows only itself and joins through a push-pull with a seed. Every update, push-pull entry
//   and ping names the identity it is about (Update::gen), so a fresh identity on a reused slot
//   inherits nothing of the old one.
// - Random choices (kRandomNodes, shuffles) draw from the member's stream "swim.select" and
//   "swim.shuffle" (held by the probe order, probe_order.h); nothing else draws.

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "models/swim/broadcast_queue.h"
#include "models/swim/handoff_queue.h"
#include "models/swim/context.h"
#include "models/swim/lifeguard_math.h"
#include "models/swim/messages.h"
#include "models/swim/peer_table.h"
#include "models/swim/probe_order.h"

namespace fdsim::swim {

// One UDP packet (a compound message in memberlist): the main message, then updates handled
// in order (the buddy suspicion, or piggybacked broadcasts).
struct Packet {
  Msg kind = Msg::ping;
  NodeId from = kNoNode;
  uint32_t seq = 0;
  NodeId target = kNoNode;  // indirect_ping: whom to ping
  bool nack = false;        // indirect_ping: send a nack if the target does not answer
  Updates updates;
  // ping / indirect_ping: the identity (Update::gen) the ping is for; memberlist's ping carries
  // the target's name and a node ignores a ping for another name (net.go handlePing).
  uint32_t to_gen = 0;
};

// One entry of a push-pull state exchange.
struct PushEntry {
  NodeId node;
  PeerState state;
  uint32_t incarnation;
  uint32_t gen = 0;  // the identity on the slot (Update::gen)
};

class Member {
 public:
  Member(Shared& shared, NodeId self);

  void start();
  void on_crash();
  // Churn. leave(): memberlist.go Leave (627-672), see member_state.cpp. join(gen, seed): a fresh
  // identity on this slot (host incarnation gen) starts knowing only itself and pushes/pulls
  // state with `seed` (memberlist.go Join 249-278; Create + setAlive 410-449).
  void leave();
  void join(uint32_t gen, NodeId seed);
  bool has_left() const { return left_; }
  // The identity this member is (its generation) and the one it holds for slot n.
  uint32_t gen() const { return gen_; }
  uint32_t gen_of(NodeId n) const {
    if (n == self_) return gen_;
    if (gens_.empty()) return 0;
    const auto it = gens_.find(n);
    return it == gens_.end() ? 0 : it->second;
  }

  bool participating() const { return participating_; }
  NodeId id() const { return self_; }
  // This member's view of n (n must be known; see knows()).
  PeerState state_of(NodeId n) const { return peers_.get(n).state; }
  bool knows(NodeId n) const { return peers_.get(n).known; }
  uint32_t incarnation_of(NodeId n) const { return peers_.get(n).incarnation; }
  uint32_t incarnation() const { return peers_.get(self_).incarnation; }
  // Entries of this member's view apart from the start view (peer_table.h).
  size_t own_peer_entries() const { return peers_.own_entries(); }
  int64_t health_score() const { return awareness_.score(); }
  int64_t num_nodes() const { return int64_t(order_.size()); }
  // The probe order (tests, memory figures).
  const ProbeOrder& probe_order() const { return order_; }
  // Suspicion bookkeeping of a suspect peer (tests): confirmations counted, expected k.
  std::optional<std::pair<int64_t, int64_t>> suspicion_of(NodeId n) const;
  size_t queued_broadcasts() const { return queue_.size(); }
  // A starved member (handoff_queue.h): its host's queue, installed by SwimModel::start before
  // start(); null for every other member. Owned by the host (Hosts::set_service_queue).
  void set_handoff(HandoffQueue* q) { handoff_ = q; }
  const HandoffQueue* handoff() const { return handoff_; }
  // Updates handed off and dropped at a full list, from warmup_end on.
  std::pair<uint64_t, uint64_t> handoff_stats() const { return handoff_stats_; }

  // Incoming traffic (called on this member's host by the network).
  void receive(const Packet& p);
  int64_t serve_tcp_ping(uint32_t to_gen);
  void receive_push_pull(NodeId from, const std::vector<PushEntry>& remote, bool is_reply);

 private:
  struct Suspicion {
    int64_t n = 0;  // confirmations beyond the first
    int64_t k = 0;  // confirmations expected
    Duration min, max;
    SimTime start;  // also the peer's state_change of this suspicion
    std::vector<NodeId> confirmations;
    EventId timer;
  };
  using Peer = PeerEntry;
  struct Probe {
    bool active = false;
    uint32_t seq = 0;
    NodeId target = kNoNode;
    uint32_t target_incarnation = 0;
    uint32_t target_gen = 0;  // the identity probed (Update::gen)
    SimTime start, deadline;
    int64_t expected_nacks = 0;
    int64_t nacks = 0;
    bool fallback_pending = false;
    bool fallback_contact = false;
    bool deadline_passed = false;
  };
  struct Relay {
    NodeId requester;
    uint32_t origin_seq;
    bool nack;
  };

  // Probe loop (member_probe.cpp).
  void probe_tick();
  void probe_node(NodeId target);
  void on_probe_timeout(uint32_t seq);
  void on_probe_deadline(uint32_t seq);
  void on_fallback_done(uint32_t seq, bool contact);
  void conclude_probe();
  void finish_probe(bool failed, int64_t awareness_delta);
  void reset_nodes();
  void on_ack(uint32_t seq);
  void on_nack(uint32_t seq);
  void on_indirect_ping(const Packet& p);
  void on_relay_expiry(uint32_t local_seq);
  std::vector<NodeId> random_nodes(int64_t k, const std::function<bool(NodeId)>& exclude);

  // Member-list state machine (member_state.cpp).
  void alive_node(const Update& a);
  void suspect_node(const Update& s);
  void dead_node(const Update& d);
  void refute(uint32_t accused_incarnation);
  void set_state(NodeId n, PeerState to);
  bool confirm(Suspicion& s, NodeId target, NodeId from);
  void on_suspicion_timeout(NodeId target, SimTime change_time);
  void apply_update(const Update& u);
  // An update read from a packet: handed off (net.go handleCommand) while the member is starved
  // or its handoff lists still hold work, applied at once otherwise.
  void receive_update(const Update& u, NodeId from);
  void merge_state(const std::vector<PushEntry>& remote);
  // Start bookkeeping shared by start() and join().
  void reset_identity(uint32_t gen);
  void start_loops(SimTime t0, Rng& stagger);
  // One direction of a push-pull exchange (state.go pushPullNode / net.go handleConn): this
  // member's whole state to dst; is_reply: the answer to dst's push (no answer back).
  void send_push_pull(NodeId dst, bool is_reply);

  // Dissemination (member_gossip.cpp).
  void broadcast(const Update& u) { queue_.push(u); }
  Updates piggyback(uint32_t msg_bytes);
  void send_packet(NodeId dst, Packet p, uint32_t msg_bytes, bool with_piggyback);
  void gossip_tick();
  void gossip();
  // state.go gossip's target filter: not self, alive or suspect, or dead within
  // gossip_to_the_dead.
  bool gossip_excluded(NodeId n, SimTime now) const;
  // One gossip packet of queued broadcasts to each target in turn, until the queue is empty.
  void send_gossip(const std::vector<NodeId>& targets);
  void push_pull_tick();
  std::vector<PushEntry> local_state();
  int64_t transmit_limit() const;

  // The first tick of the grid phase + k period strictly after `after`.
  static SimTime next_grid(SimTime phase, Duration period, SimTime after);
  void schedule_probe_tick(SimTime at);

  Shared& s_;
  const NodeId self_;
  bool participating_ = false;
  PeerTable peers_;            // this member's view of every node
  std::map<NodeId, Suspicion> suspicions_;  // the running suspicion timers, by suspect
  ProbeOrder order_;           // memberlist's m.nodes: the probe order (known members)
  size_t probe_index_ = 0;
  SimTime probe_phase_, gossip_phase_;
  SimTime next_probe_tick_;
  Probe probe_;
  uint32_t seq_ = 0;
  uint32_t my_incarnation_ = 1;
  uint32_t gen_ = 0;                       // this identity (Update::gen)
  bool left_ = false;                      // memberlist m.leave: Leave() was called
  std::map<NodeId, uint32_t> gens_;        // slot -> identity held, where not 0 (churn only)
  std::map<uint32_t, Relay> relays_;
  Awareness awareness_;
  BroadcastQueue queue_;
  HandoffQueue* handoff_ = nullptr;
  std::pair<uint64_t, uint64_t> handoff_stats_{0, 0};
};

}  // namespace fdsim::swim
