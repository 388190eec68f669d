#include "models/swim/context.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

#include "models/swim/member.h"
#include "sim/engine/trace.h"

namespace fdsim::swim {

std::string_view msg_name(Msg m) {
  switch (m) {
    case Msg::ping: return "ping";
    case Msg::ack: return "ack";
    case Msg::indirect_ping: return "indirect_ping";
    case Msg::nack: return "nack";
    case Msg::gossip: return "gossip";
    case Msg::tcp_ping: return "tcp_ping";
    case Msg::push_pull: return "push_pull";
  }
  return "?";
}

EventKinds::EventKinds(Simulator& sim)
    : probe_tick(sim.kind("swim.probe_tick")),
      probe_timeout(sim.kind("swim.probe_timeout")),
      probe_deadline(sim.kind("swim.probe_deadline")),
      relay_expiry(sim.kind("swim.relay_expiry")),
      suspicion(sim.kind("swim.suspicion_timeout")),
      gossip_tick(sim.kind("swim.gossip_tick")),
      push_pull_tick(sim.kind("swim.push_pull_tick")) {}

namespace {
const SwimArm& pick_arm(const SwimConfig& c, size_t arm, Simulator& sim) {
  if (arm >= c.arms.size()) {
    fdsim::internal_error("fdsim: internal error at t = %s: SwimModel arm %zu, but the config has %zu "
                 "arms\n",
                 to_string(sim.now()).c_str(), arm, c.arms.size());
  }
  return c.arms[arm];
}
}  // namespace

Shared::Shared(World& w, const SwimConfig& c, size_t arm_index, Signals& s)
    : world(w), config(c), arm(pick_arm(c, arm_index, w.sim)), kinds(w.sim), signals(s) {
  for (size_t m = 0; m < kMsgCount; ++m)
    types[m] = w.net.type("swim." + std::string(msg_name(Msg(m))));
}

Shared::~Shared() = default;

void Shared::trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const {
  if (TraceSink* t = world.sim.trace()) t->record(world.sim.now(), node, kind, fields);
}

void Shared::fail(NodeId node, const std::string& what) const {
  fdsim::internal_error("fdsim: internal error at t = %s, node %u: swim: %s\n",
               to_string(world.sim.now()).c_str(), node, what.c_str());
}

}  // namespace fdsim::swim
