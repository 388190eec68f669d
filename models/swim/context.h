#pragma once
// What every member of one SWIM simulation shares: the world, the resolved configuration and
// arm, the registered message types and event kinds, the signal sink, and the members
// (indexed by node).
//
// Contract: built once by SwimModel before start(); lives as long as the model. Nothing in here
// changes during the run except the members' own state.

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/swim/config.h"
#include "sim/net/world.h"

namespace fdsim::swim {

class Member;

// A member's view of another member (memberlist NodeStateType).
enum class PeerState : uint8_t { alive, suspect, dead, left };

// Packet kinds, one network message type each ("swim.<name>"). UDP: ping, ack, indirect_ping,
// nack, gossip; TCP: tcp_ping (the fallback ping, a connection probe), push_pull (one per
// direction of a state exchange).
enum class Msg : uint8_t { ping, ack, indirect_ping, nack, gossip, tcp_ping, push_pull };
inline constexpr size_t kMsgCount = 7;
std::string_view msg_name(Msg m);
inline bool msg_is_tcp(Msg m) { return m == Msg::tcp_ping || m == Msg::push_pull; }

// What the members report (the metrics recorder implements it).
class Signals {
 public:
  virtual ~Signals() = default;
  virtual void message_sent(SimTime t, NodeId from, Msg m) = 0;
  // A probe of `target` by `by` failed and `by` raised a suspicion (not a suspicion learnt
  // from others). target_gen: the identity on the slot it was about (Update::gen; 0 without
  // churn).
  virtual void suspicion_raised(SimTime t, NodeId by, NodeId target, uint32_t target_gen) = 0;
  // observer's state of target (identity target_gen) changed (observer == target never).
  virtual void state_changed(SimTime t, NodeId observer, NodeId target, uint32_t target_gen,
                             PeerState from, PeerState to) = 0;
  virtual void refuted(SimTime t, NodeId n) = 0;
  virtual void probe_finished(SimTime t, NodeId n, bool failed) = 0;
  // by's own suspicion timer for target ran out and by declares it dead (memberlist's "Marking
  // %s as failed, suspect timeout reached", state.go:1211); not a death learnt from others.
  virtual void dead_declared(SimTime /*t*/, NodeId /*by*/, NodeId /*target*/,
                             uint32_t /*target_gen*/) {}
};

struct EventKinds {
  EventKind probe_tick, probe_timeout, probe_deadline, relay_expiry, suspicion, gossip_tick,
      push_pull_tick;
  explicit EventKinds(Simulator& sim);
};

struct Shared {
  Shared(World& w, const SwimConfig& c, size_t arm_index, Signals& s);
  ~Shared();

  World& world;
  const SwimConfig& config;
  const SwimArm& arm;
  std::array<net::MsgType, kMsgCount> types{};
  EventKinds kinds;
  Signals& signals;
  std::vector<std::unique_ptr<Member>> members;  // one per node
  // Churn (sim/faults/churn.h): slots absent at t = 0 (in no start view); empty without churn,
  // set by SwimModel::churn_absent before start().
  std::vector<bool> absent;

  Member& at(NodeId n) { return *members[n]; }
  SimTime now() const { return world.sim.now(); }
  net::MsgType type(Msg m) const { return types[size_t(m)]; }
  void trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const;
  [[noreturn]] void fail(NodeId node, const std::string& what) const;
};

}  // namespace fdsim::swim
