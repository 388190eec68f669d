#pragma once
// What every member of one Geode simulation shares: the world, the resolved configuration and
// arm, the node roles, the registered message types and event kinds, the signal sink, and the
// members themselves (indexed by node, so a delivery can find its destination).
//
// Contract: built once by GeodeModel before start(); lives as long as the model; members hold
// a reference to it. Nothing in here changes during the run except the members' own state.

#include <optional>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/geode/config.h"
#include "models/geode/messages.h"
#include "models/geode/recipients.h"
#include "models/geode/signals.h"
#include "models/geode/view.h"
#include "sim/net/world.h"

namespace fdsim::geode {

class Member;

struct EventKinds {
  EventKind heartbeat, monitor, check_wait, tcp_retry, collect, ack_timeout, partition_shutdown,
      join_retry, retransmit, app_message, self_check, prepare_give_up, connection_eof,
      send_error, reconnect;
  explicit EventKinds(Simulator& sim);
};

struct Shared {
  Shared(World& w, const GeodeConfig& c, size_t arm_index, Signals& s);
  ~Shared();

  World& world;
  const GeodeConfig& config;
  const NeighbourCheckArm& arm;
  Roles roles;
  FanoutRules fanout;
  MsgTypes types;
  net::MsgType app_type;  // application messages (not membership overhead: not in Signals)
  net::MsgType xmit_type;  // UNICAST3 retransmission requests (reliable_retransmit > 0)
  // A joiner's FindCoordinatorRequest to a locator and the locator's answer (a TCP request to
  // the locator's port, not a membership datagram), registered at the first join so that runs
  // without joins list no such type. Counted as join_request in the overhead metrics.
  net::MsgType find_coordinator_type(net::Network& net) {
    if (!find_type_) find_type_ = net.type("geode.find_coordinator");
    return *find_type_;
  }
  std::optional<net::MsgType> find_type_;
  EventKinds kinds;
  Signals& signals;
  std::vector<std::unique_ptr<Member>> members;  // one per node (idle if never a member)

  Member& at(NodeId n) { return *members[n]; }
  SimTime now() const { return world.sim.now(); }
  // Records a protocol decision if tracing is on.
  void trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const;
  [[noreturn]] void fail(NodeId node, const std::string& what) const;
};

}  // namespace fdsim::geode
