#include "models/jgroups/context.h"

#include <cstdio>
#include <cstdlib>

#include "models/jgroups/member.h"
#include "sim/engine/trace.h"

namespace fdsim::jgroups {

std::string_view msg_name(Msg m) {
  switch (m) {
    case Msg::fd_heartbeat: return "fd_heartbeat";
    case Msg::fd_heartbeat_ack: return "fd_heartbeat_ack";
    case Msg::fd_all_heartbeat: return "fd_all_heartbeat";
    case Msg::suspect: return "suspect";
    case Msg::are_you_dead: return "are_you_dead";
    case Msg::i_am_not_dead: return "i_am_not_dead";
    case Msg::view: return "view";
    case Msg::view_ack: return "view_ack";
    case Msg::discovery_req: return "discovery_req";
    case Msg::discovery_rsp: return "discovery_rsp";
    case Msg::merge_req: return "merge_req";
    case Msg::merge_rsp: return "merge_rsp";
    case Msg::digest_req: return "digest_req";
    case Msg::digest_rsp: return "digest_rsp";
    case Msg::install_merge_view: return "install_merge_view";
    case Msg::cancel_merge: return "cancel_merge";
  }
  return "?";
}

uint32_t msg_bytes(Msg m, size_t view_size) {
  constexpr uint32_t kBase = 60;  // message flags, source, protocol header ids
  switch (m) {
    case Msg::suspect: return kBase + 20;
    case Msg::view:
    case Msg::discovery_rsp:
    case Msg::merge_req:
    case Msg::merge_rsp:
    case Msg::install_merge_view: return kBase + 20 + 20 * uint32_t(view_size);
    default: return kBase + 20;
  }
}

EventKinds::EventKinds(Simulator& sim)
    : fd_tick(sim.kind("jgroups.fd_monitor")),
      bcast_tick(sim.kind("jgroups.suspect_broadcast")),
      fd_all_tick(sim.kind("jgroups.fd_all_tick")),
      sock_closed(sim.kind("jgroups.fd_sock_closed")),
      verify_timeout(sim.kind("jgroups.verify_timeout")),
      bundling(sim.kind("jgroups.view_bundling")),
      ack_timeout(sim.kind("jgroups.view_ack_timeout")),
      loopback(sim.kind("jgroups.loopback")),
      merge_task(sim.kind("jgroups.merge2_task")),
      merge_timeout(sim.kind("jgroups.merge_timeout")),
      verify_send(sim.kind("jgroups.verify_send")) {}

namespace {
const JGroupsArm& pick_arm(const JGroupsConfig& c, size_t arm) {
  if (arm >= c.arms.size()) {
    std::fprintf(stderr, "fdsim: internal error: JGroupsModel arm %zu, but the config has %zu arms\n",
                 arm, c.arms.size());
    std::abort();
  }
  return c.arms[arm];
}
}  // namespace

Shared::Shared(World& w, const JGroupsConfig& c, size_t arm_index, Signals& s)
    : world(w), config(c), arm(pick_arm(c, arm_index)), kinds(w.sim), signals(s) {
  for (size_t m = 0; m < kMsgCount; ++m)
    types[m] = w.net.type("jgroups." + std::string(msg_name(Msg(m))));
}

Shared::~Shared() = default;

void Shared::trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const {
  if (TraceSink* t = world.sim.trace()) t->record(world.sim.now(), node, kind, fields);
}

}  // namespace fdsim::jgroups
