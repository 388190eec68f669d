#pragma once
// What every member of one JGroups simulation shares: the world, the resolved configuration
// and arm, the registered message types and event kinds, the signal sink, and the members.
//
// Contract: built once by JGroupsModel before start(); lives as long as the model.

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/jgroups/config.h"
#include "sim/net/world.h"

namespace fdsim::jgroups {

class Member;

// Messages, one network type each ("jgroups.<name>"). Below NAKACK/UNICAST in the stack, so
// sent once, unreliably: fd_heartbeat / fd_heartbeat_ack (FD's are-you-alive and its answer),
// fd_all_heartbeat, suspect (FD's and FD_SOCK's SUSPECT multicast), are_you_dead /
// i_am_not_dead (VERIFY_SUSPECT). Above NAKACK/UNICAST, so retransmitted until delivered:
// view (GMS's view multicast) and view_ack. MERGE2 and the merge (all unicasts or multicasts
// over TCP, reliable): discovery_req / discovery_rsp (TCPPING's GET_MBRS_REQ / RSP),
// merge_req, merge_rsp, digest_req, digest_rsp, install_merge_view, cancel_merge (GMS).
enum class Msg : uint8_t {
  fd_heartbeat, fd_heartbeat_ack, fd_all_heartbeat, suspect, are_you_dead, i_am_not_dead, view,
  view_ack, discovery_req, discovery_rsp, merge_req, merge_rsp, digest_req, digest_rsp,
  install_merge_view, cancel_merge
};
inline constexpr size_t kMsgCount = 16;
std::string_view msg_name(Msg m);
// Rough encoded sizes (JGroups 2.12 headers plus a UUID address or two), bytes.
uint32_t msg_bytes(Msg m, size_t view_size);

// What the members report (the metrics recorder implements it).
class Signals {
 public:
  virtual ~Signals() = default;
  virtual void message_sent(SimTime t, NodeId from, Msg m) = 0;
  // The detector passed SUSPECT(target) up to VERIFY_SUSPECT at `observer` (the harness's
  // "detector" probe): FD at every member receiving a SUSPECT message, FD_ALL and FD_SOCK
  // only at the member first in line (the coordinator).
  virtual void detector_suspected(SimTime t, NodeId observer, NodeId target) = 0;
  // VERIFY_SUSPECT passed SUSPECT(target) up to GMS at `observer` (no I_AM_NOT_DEAD in time).
  virtual void verified(SimTime t, NodeId observer, NodeId target) = 0;
  // `observer` installed a view with these members.
  virtual void view_installed(SimTime t, NodeId observer, uint64_t view_id,
                              const std::vector<NodeId>& members) = 0;
};

struct EventKinds {
  EventKind fd_tick, bcast_tick, fd_all_tick, sock_closed, verify_timeout, bundling,
      ack_timeout, loopback, merge_task, merge_timeout, verify_send;
  explicit EventKinds(Simulator& sim);
};

struct Shared {
  Shared(World& w, const JGroupsConfig& c, size_t arm_index, Signals& s);
  ~Shared();

  World& world;
  const JGroupsConfig& config;
  const JGroupsArm& arm;
  std::array<net::MsgType, kMsgCount> types{};
  EventKinds kinds;
  Signals& signals;
  std::vector<std::unique_ptr<Member>> members;  // one per node
  // Each member address's hashCode() (JGroups' random UUIDs): what orders VERIFY_SUSPECT's
  // Hashtable (java_hashtable_order.h). Drawn once per node, stream "jgroups.address".
  std::vector<int32_t> address_hash;
  // The addresses' order (UUID.compareTo, random for JGroups' UUIDs): MERGE2's merge leader is
  // the smallest coordinator, a merged view is sorted by it. Same stream, second draw.
  std::vector<uint64_t> address_order;
  uint64_t next_merge_id = 1;

  Member& at(NodeId n) { return *members[n]; }
  SimTime now() const { return world.sim.now(); }
  net::MsgType type(Msg m) const { return types[size_t(m)]; }
  void trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const;
};

}  // namespace fdsim::jgroups
