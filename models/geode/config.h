#pragma once
// The `membership` section: the Geode-style heartbeat ring (docs/models/geode-membership.md).
//
// Contract: parse_geode_config() reads every key below, writes every resolved value (given or
// defaulted) into the resolved config, and reports problems through the reader's Diagnostics
// (it never throws). `profile` is read first and selects a set of defaults; every other key
// overrides one default. Defaults that depend on M (member_timeout_ms) are derived from the
// resolved M unless given explicitly.
//
// Keys (units in names; defaults wiki / current):
//   profile                    "wiki" (default) or "current"
//   member_timeout_ms          M, > 0                                        5000 / 5000
//   heartbeat_period_ms        heartbeat sender loop sleep, > 0              M/2 / M/2
//   monitor_period_ms          fixed-rate monitor tick (first tick one
//                              period after start), > 0                     M/2 / M/2
//   check_threshold_ms         a tick starts a neighbour check when the
//                              neighbour's last-contact age >= this (arm
//                              "fixed")                                      M / M - M/2
//   heartbeat_request_wait_ms  how long a neighbour check waits, > 0         M / M
//   heartbeat_predecessors     ring predecessors getting my heartbeats       2 / 2
//   small_view_size            views of at most this size send suspicions
//                              to every member                               4 / 9
//   max_suspect_recipients     cap on suspicion recipients (larger views)    7 / 10
//   preferred_in_fanout        preferred coordinators taken first            5 / 10
//   random_recipient           add one random member (true) or fill in view
//                              order (false)                                 true / false
//   final_check_timeout_ms     TCP timeout and final-check budget, > 0       M / M
//   final_check_retry_ms       pause between TCP attempts, > 0               100 / 100
//   request_collection_ms      coordinator's wait after the first queued
//                              request                                       300 / 300
//   view_ack_timeout_ms        wait for view-prepare acks        clamp(2.4874 M, 1500, 12437)
//                              (current: Geode's integer arithmetic, M * 2 * 12437 / 10000
//                              in whole ms, then clamped: GMSJoinLeave.init)
//   reliable_retransmit_ms     retransmission interval of the reliable
//                              channel (JGroups UNICAST3 xmit_interval);
//                              0 = the network's own reliable channel        0 / 500
//   app_messages_per_s         application messages each member sends on
//                              the direct channel (Poisson, to a uniform
//                              other member; they count as contact in
//                              `current`); 0 = none                          0 / 0
//   member_weights             extra quorum weight per node (Geode's
//                              member weight, 0..255), one per node or []    []
//   partition_detection        quorum check on view changes                  true / true
//   partition_shutdown_ms      wait between announcing a partition and
//                              shutting down                                 1000 / 1000
//   members                    node set of the initial view (view order =
//                              node order; the coordinator is the first
//                              preferred member, see view.h)                 "all"
//   send_jitter_ms             each heartbeat-loop sleep is lengthened by
//                              U(0, this) (stream "geode.jitter")            0
//   start_offset_max_ms        each member starts its heartbeat loop and
//                              monitor U(0, this) after t = 0
//                              (stream "geode.start"; 0 = all in phase)      0
//   join_retry_ms              a joiner asks the locators for the coordinator again
//                              this often until it is in a view, > 0         M
//   auto_reconnect             after a forced disconnect, wait
//                              max(max_wait_time_reconnect, 4 M) and re-join
//                              with a new identity (Geode's auto-reconnect;
//                              false = disable-auto-reconnect)               true / true
//   max_wait_time_reconnect_ms that wait's lower bound (Geode's
//                              max-wait-time-reconnect), >= 0               60000
//   join_timeout_ms            how long one auto-reconnect attempt tries to
//                              join before it gives up and waits again
//                              (Geode's join-timeout), > 0                  24000
//   peer_connections           application messages run over kept TCP
//                              connections; a process crash closes them and
//                              each receiver of the crashed member's
//                              connections verifies it at once
//                              (Connection -> GMSMembership.verifyMember)   false / true
//   crash_kind                 what a `crash` fault is: "process" (the OS
//                              closes its connections: EOF to peers) or
//                              "host" (the machine stops: no EOF)           "process"
//   unreachable_send_errors    a membership datagram to a crashed host fails
//                              at the sender (host unreachable), which starts
//                              a final check (JGroupsMessenger
//                              .handleJGroupsIOException)                   false
//   neighbour_check            the arms: [{"name": "fixed"}] (default) or
//                              arms with a failure detector deciding when a
//                              tick checks the neighbour:
//                              {"name": "phi", "detector": {"kind":
//                              "phi_accrual", ...}} (models/detectors/config.h)
// Locators (quorum weight 3, preferred coordinators) come from nodes.locators.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "models/detectors/config.h"
#include "sim/engine/time.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::geode {

enum class Profile { wiki, current };

struct NeighbourCheckArm {
  std::string name = "fixed";
  // Absent: the fixed member-timeout rule (check_threshold). Present: the detector decides.
  std::optional<detectors::DetectorConfig> detector;
};

struct GeodeConfig {
  Profile profile = Profile::wiki;
  Duration member_timeout = Duration::ms(5000);
  Duration heartbeat_period = Duration::ms(2500);
  Duration monitor_period = Duration::ms(2500);
  Duration check_threshold = Duration::ms(5000);
  Duration heartbeat_request_wait = Duration::ms(5000);
  size_t heartbeat_predecessors = 2;
  size_t small_view_size = 4;
  size_t max_suspect_recipients = 7;
  size_t preferred_in_fanout = 5;
  bool random_recipient = true;
  Duration final_check_timeout = Duration::ms(5000);
  Duration final_check_retry = Duration::ms(100);
  Duration request_collection = Duration::ms(300);
  Duration view_ack_timeout = Duration::ms(12437);
  bool partition_detection = true;
  Duration partition_shutdown = Duration::ms(1000);
  Duration send_jitter_max = Duration::zero();
  Duration start_offset_max = Duration::zero();
  Duration join_retry = Duration::ms(5000);
  Duration reliable_retransmit = Duration::zero();  // zero: the network's reliable channel
  double app_messages_per_s = 0.0;
  std::vector<int64_t> member_weights;  // by node; empty = all 0
  // Issue 26: detection paths outside the ring, and auto-reconnect.
  bool auto_reconnect = true;
  Duration max_wait_time_reconnect = Duration::ms(60000);
  Duration join_timeout = Duration::ms(24000);  // Geode's join-timeout (auto-reconnect attempts)
  bool peer_connections = false;
  bool crash_is_host = false;  // crash_kind "host"
  bool unreachable_send_errors = false;
  // The auto-reconnect wait: max(max-wait-time-reconnect, 4 member timeouts)
  // (InternalDistributedSystem.java:2471-2478).
  Duration reconnect_wait() const { return std::max(max_wait_time_reconnect, member_timeout * 4); }

  size_t node_count = 0;
  std::vector<NodeId> members;   // initial view, node order
  std::vector<NodeId> locators;  // from the nodes section
  std::vector<NeighbourCheckArm> arms{NeighbourCheckArm{}};

  std::vector<std::string> arm_names() const;
  // The rules of Geode's source (profile `current`): the behaviours of issue 15 (prepare
  // phase, TCP retries, reliable replies, contact, sick members, views, fixed-rate catch-up).
  // `wiki` keeps the documented design.
  bool source_rules() const { return profile == Profile::current; }

  // The defaults of a profile for member timeout M (every derived value recomputed), with
  // every one of `node_count` nodes a member and no locators. Tests start from this.
  static GeodeConfig defaults(Profile profile, Duration member_timeout, size_t node_count);
};

std::string_view profile_name(Profile p);
// wiki: clamp(2.4874 M, 1500 ms, 12437 ms), rounded to the millisecond. current: Geode's
// GMSJoinLeave.init, in integer milliseconds: clamp(M_ms * 2 * 12437 / 10000, 1500, 12437)
// with M_ms = M truncated to whole ms and the division truncating.
Duration default_view_ack_timeout(Duration member_timeout, Profile profile = Profile::wiki);

GeodeConfig parse_geode_config(scenario::ObjectReader& membership,
                               const scenario::NodesConfig& nodes);

}  // namespace fdsim::geode
