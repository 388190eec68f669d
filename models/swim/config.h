#pragma once
// The `swim` section: SWIM with the Lifeguard extensions as hashicorp/memberlist 0.2.2
// implements it (models/swim/README.md). Defaults are memberlist's DefaultLANConfig.
//
// Contract: parse_swim_config() reads every key below, writes every resolved value (given or
// defaulted) into the resolved config and reports problems through the reader's Diagnostics
// (it never throws). Every node of the scenario is a member from t = 0 (as after every node
// has joined: all alive, incarnation 1, each member's probe order a random permutation).
//
// Keys (units in names; memberlist Config field in brackets; default):
//   probe_interval_ms            [ProbeInterval] probe period, > 0                     1000
//   probe_timeout_ms             [ProbeTimeout] wait for a direct ack, > 0              500
//   indirect_checks              [IndirectChecks] members asked for an indirect ping      3
//   tcp_fallback                 [!DisableTcpPings] TCP ping beside the indirect ones  true
//   suspicion_mult               [SuspicionMult] >= 1                                     4
//   suspicion_max_timeout_mult   [SuspicionMaxTimeoutMult] >= 1                           6
//   suspicion_confirmations      Lifeguard's K, the independent confirmations a suspicion
//                                expects, 0 .. 1000 (memberlist ties it to SuspicionMult:
//                                k = SuspicionMult - 2; the paper varies it apart from
//                                alpha = SuspicionMult)             max(0, suspicion_mult - 2)
//   awareness_max_multiplier     [AwarenessMaxMultiplier] >= 1                            8
//   gossip_interval_ms           [GossipInterval] > 0                                   200
//   gossip_nodes                 [GossipNodes] >= 0 (0 = no gossip rounds)                3
//   gossip_to_the_dead_ms        [GossipToTheDeadTime] also how long a dead member
//                                stays in the member list before it is forgotten      30000
//   retransmit_mult              [RetransmitMult] >= 1                                    4
//   push_pull_interval_ms        [PushPullInterval] >= 0 (0 = no push-pull)           30000
//   udp_buffer_bytes             [UDPBufferSize] packet budget for piggybacking, > 0  1400
//   starved_queue                what a starved member's host queue is (network.starved):
//                                "memberlist" = memberlist's receive path plus handoff
//                                queues (handoff_queue.h), "host" = the network.starved
//                                entry's own discipline, updates handled with their
//                                packet                                        "memberlist"
//   handoff_queue_depth          [HandoffQueueDepth] bound of each handoff list, 1 .. 1e6
//                                (only with starved_queue "memberlist")               1024
//   arms                         [{"name": "lifeguard"}]; each arm: name (required),
//                                lifeguard (default true) = the default of the four
//                                parts: awareness, dynamic_suspicion, nack, buddy.
// Arm parts (all on = memberlist; all off = SWIM without Lifeguard):
//   awareness          local health score scales the probe deadline (off: score stays 0)
//   dynamic_suspicion  suspicion timeout starts at max and shrinks with confirmations
//                      (off: k = 0, the timeout is min, memberlist's pre-Lifeguard rule)
//   nack               indirect-ping requests ask for nacks; missed nacks raise the score
//                      (off: a failed probe raises it by 1)
//   buddy              a ping to a suspect carries the suspicion (so it can refute at once)

#include <string>
#include <vector>

#include "sim/engine/time.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::swim {

struct SwimArm {
  std::string name = "lifeguard";
  bool awareness = true;
  bool dynamic_suspicion = true;
  bool nack = true;
  bool buddy = true;
};

struct SwimConfig {
  Duration probe_interval = Duration::ms(1000);
  Duration probe_timeout = Duration::ms(500);
  int64_t indirect_checks = 3;
  bool tcp_fallback = true;
  int64_t suspicion_mult = 4;
  int64_t suspicion_max_timeout_mult = 6;
  // Lifeguard's K (see suspicion_k()); memberlist's rule max(0, suspicion_mult - 2) unless set.
  int64_t suspicion_confirmations = 2;
  int64_t awareness_max_multiplier = 8;
  Duration gossip_interval = Duration::ms(200);
  int64_t gossip_nodes = 3;
  Duration gossip_to_the_dead = Duration::ms(30000);
  int64_t retransmit_mult = 4;
  Duration push_pull_interval = Duration::ms(30000);
  int64_t udp_buffer_bytes = 1400;
  // A starved member (network.starved): memberlist's handoff queues (true) or the host's own
  // queue discipline (false); each handoff list holds at most handoff_queue_depth messages.
  bool memberlist_starved_queue = true;
  int64_t handoff_queue_depth = 1024;

  size_t node_count = 0;
  std::vector<SwimArm> arms{SwimArm{}};

  std::vector<std::string> arm_names() const;
  // The confirmations a new suspicion expects among `members` known members (state.go
  // suspectNode): suspicion_confirmations, or 0 when dynamic suspicion is off or when
  // members - 2 < K (memberlist: fewer other members than confirmations expected).
  int64_t suspicion_k(const SwimArm& arm, int64_t members) const;
  // memberlist's LAN defaults for `node_count` members and one arm "lifeguard".
  static SwimConfig lan_defaults(size_t node_count);
};

// horizon_s sizes the memory estimate (memory_bound.h); 0 counts no probe ticks.
SwimConfig parse_swim_config(scenario::ObjectReader& swim, const scenario::NodesConfig& nodes,
                             double horizon_s = 0);

}  // namespace fdsim::swim
