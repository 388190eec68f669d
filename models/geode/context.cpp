#include "models/geode/context.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

#include "models/geode/member.h"
#include "sim/engine/trace.h"

namespace fdsim::geode {

EventKinds::EventKinds(Simulator& sim)
    : heartbeat(sim.kind("geode.heartbeat_loop")),
      monitor(sim.kind("geode.monitor_tick")),
      check_wait(sim.kind("geode.check_wait")),
      tcp_retry(sim.kind("geode.tcp_retry")),
      collect(sim.kind("geode.collect")),
      ack_timeout(sim.kind("geode.ack_timeout")),
      partition_shutdown(sim.kind("geode.partition_shutdown")),
      join_retry(sim.kind("geode.join_retry")),
      retransmit(sim.kind("geode.retransmit")),
      app_message(sim.kind("geode.app_message")),
      self_check(sim.kind("geode.self_check")),
      prepare_give_up(sim.kind("geode.prepare_give_up")),
      connection_eof(sim.kind("geode.connection_eof")),
      send_error(sim.kind("geode.send_error")),
      reconnect(sim.kind("geode.reconnect")) {}

namespace {
const NeighbourCheckArm& pick_arm(const GeodeConfig& c, size_t arm, Simulator& sim) {
  if (arm >= c.arms.size()) {
    fdsim::internal_error("fdsim: internal error at t = %s: GeodeModel arm %zu, but the config has %zu "
                 "arms\n",
                 to_string(sim.now()).c_str(), arm, c.arms.size());
  }
  return c.arms[arm];
}
}  // namespace

Shared::Shared(World& w, const GeodeConfig& c, size_t arm_index, Signals& s)
    : world(w),
      config(c),
      arm(pick_arm(c, arm_index, w.sim)),
      types(w.net),
      // Registered only when used, so that runs without application traffic list no such
      // message type.
      app_type(c.app_messages_per_s > 0.0 ? w.net.type("geode.app_message") : net::MsgType{0}),
      xmit_type(c.reliable_retransmit > Duration::zero() ? w.net.type("geode.xmit_request")
                                                         : net::MsgType{0}),
      kinds(w.sim),
      signals(s) {
  roles.locator.assign(c.node_count, false);
  for (NodeId l : c.locators)
    if (l < roles.locator.size()) roles.locator[l] = true;
  roles.partition_detection = c.partition_detection;
  roles.extra_weight = c.member_weights;
  fanout.small_view_size = c.small_view_size;
  fanout.max_recipients = c.max_suspect_recipients;
  fanout.preferred_in_fanout = c.preferred_in_fanout;
  fanout.random_recipient = c.random_recipient;
}

Shared::~Shared() = default;

void Shared::trace(NodeId node, std::string_view kind, const nlohmann::json& fields) const {
  if (TraceSink* t = world.sim.trace()) t->record(world.sim.now(), node, kind, fields);
}

void Shared::fail(NodeId node, const std::string& what) const {
  fdsim::internal_error("fdsim: internal error at t = %s, node %u: geode: %s\n",
               to_string(world.sim.now()).c_str(), node, what.c_str());
}

}  // namespace fdsim::geode
