#include "models/swim/config.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "models/swim/memory_bound.h"
#include "models/swim/probe_order.h"
#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::swim {

std::vector<std::string> SwimConfig::arm_names() const {
  std::vector<std::string> out;
  for (const SwimArm& a : arms) out.push_back(a.name);
  return out;
}

int64_t SwimConfig::suspicion_k(const SwimArm& arm, int64_t members) const {
  if (!arm.dynamic_suspicion) return 0;
  const int64_t k = suspicion_confirmations;
  return members - 2 < k ? 0 : k;
}

SwimConfig SwimConfig::lan_defaults(size_t node_count) {
  SwimConfig c;
  c.node_count = node_count;
  return c;
}

namespace {

constexpr double kMaxMs = 1e9;  // about 11.6 days

Duration ms_param(scenario::ObjectReader& r, std::string_view key, Duration def,
                  bool strictly_positive) {
  const double v = strictly_positive ? r.positive(key, def.millis(), 0.0, kMaxMs)
                                     : r.number(key, def.millis(), 0.0, kMaxMs);
  return Duration::from_ms(v);
}

// The event-rate budget (sim/scenario/event_rate.h). Estimates, per simulated second, with N =
// nodes.count:
//   probes     N x (1 + indirect_checks) / probe_interval   (a ping, or the indirect pings)
//   gossip     N x gossip_nodes / gossip_interval
//   push-pull  N / push_pull_interval                       (0 = off)
void check_event_rates(scenario::ObjectReader& r, const SwimConfig& c) {
  const double n = double(c.node_count);
  const std::string nodes_text = "nodes.count " + std::to_string(c.node_count);
  // Upper bounds of the events of one firing (the cost estimate is an upper bound,
  // docs/scenario-format.md): a probe is its timer, the ping's and the ack's deliveries and
  // the probe timeout; each indirect check a request, a ping, an ack and the forwarded ack; the
  // TCP fallback a connect, its answer and its deadline. A gossip round is its timer and one
  // delivery per gossip node; a push-pull its timer, the request and the reply.
  const double per_probe = 4.0 + 4.0 * double(c.indirect_checks) + (c.tcp_fallback ? 3.0 : 0.0);
  scenario::check_period(r, "probe_interval_ms", c.probe_interval, n, nodes_text, per_probe,
                         "(4 + 4 x indirect_checks " + std::to_string(c.indirect_checks) +
                             (c.tcp_fallback ? " + 3 for the TCP fallback)" : ")"));
  scenario::check_period(r, "gossip_interval_ms", c.gossip_interval, n, nodes_text,
                         1.0 + double(c.gossip_nodes),
                         "(1 + gossip_nodes " + std::to_string(c.gossip_nodes) + ")");
  scenario::check_period(r, "push_pull_interval_ms", c.push_pull_interval, n, nodes_text, 3.0,
                         "3");
}

}  // namespace

SwimConfig parse_swim_config(scenario::ObjectReader& r, const scenario::NodesConfig& nodes,
                             double horizon_s) {
  SwimConfig c = SwimConfig::lan_defaults(nodes.count);
  c.probe_interval = ms_param(r, "probe_interval_ms", c.probe_interval, true);
  c.probe_timeout = ms_param(r, "probe_timeout_ms", c.probe_timeout, true);
  c.indirect_checks = r.integer("indirect_checks", c.indirect_checks, 0, 1000);
  c.tcp_fallback = r.boolean("tcp_fallback", c.tcp_fallback);
  c.suspicion_mult = r.integer("suspicion_mult", c.suspicion_mult, 1, 1000);
  c.suspicion_max_timeout_mult =
      r.integer("suspicion_max_timeout_mult", c.suspicion_max_timeout_mult, 1, 1000);
  // memberlist: k := m.config.SuspicionMult - 2 (state.go suspectNode); negative k behaves as 0.
  c.suspicion_confirmations = r.integer(
      "suspicion_confirmations", std::max<int64_t>(0, c.suspicion_mult - 2), 0, 1000);
  c.awareness_max_multiplier =
      r.integer("awareness_max_multiplier", c.awareness_max_multiplier, 1, 1000);
  c.gossip_interval = ms_param(r, "gossip_interval_ms", c.gossip_interval, true);
  c.gossip_nodes = r.integer("gossip_nodes", c.gossip_nodes, 0, 1000);
  c.gossip_to_the_dead = ms_param(r, "gossip_to_the_dead_ms", c.gossip_to_the_dead, false);
  c.retransmit_mult = r.integer("retransmit_mult", c.retransmit_mult, 1, 1000);
  c.push_pull_interval = ms_param(r, "push_pull_interval_ms", c.push_pull_interval, false);
  c.udp_buffer_bytes = r.integer("udp_buffer_bytes", c.udp_buffer_bytes, 1, 65507);
  c.memberlist_starved_queue =
      r.enumeration("starved_queue", "memberlist", {"memberlist", "host"}) == "memberlist";
  c.handoff_queue_depth =
      r.integer("handoff_queue_depth", c.handoff_queue_depth, 1, 1000000);
  check_event_rates(r, c);
  if (nodes.count < 2) r.error("swim needs at least 2 nodes, got " + std::to_string(nodes.count));
  // The memory estimate over the horizon (memory_bound.h, models/swim/README.md "Memory").
  const double n = double(nodes.count);
  const int64_t horizon_ns = int64_t(std::min(horizon_s, 1e9) * 1e9);
  const double ticks = double(horizon_ns / c.probe_interval.count_ns());
  const LookaheadHint hint =
      lookahead_hint(horizon_ns, c.probe_interval.count_ns(), c.gossip_interval.count_ns(),
                     c.gossip_nodes, c.indirect_checks);
  const double lookahead = double(hint.prefix + hint.select);
  const double state_bytes = swim_state_bytes(n, ticks, lookahead);
  char lookahead_text[32];
  std::snprintf(lookahead_text, sizeof lookahead_text, "%.0f", lookahead);
  const std::string formula =
      "10 kB x n + 4 B x " + std::string(lookahead_text) + " look-ahead entries x n" +
      (swim_orders_materialize(n, ticks)
           ? " + (4 B x n + 5.2 kB) x n (probe orders materialize: horizon_s covers n/2 probe "
             "intervals)"
           : "") +
      ", n = " + std::to_string(nodes.count);
  if (!(state_bytes <= swim_memory_bound_bytes()))
    r.error("nodes.count " + std::to_string(nodes.count) +
            ": the SWIM members' state would need about " + bytes_text(state_bytes) + " (" +
            formula + "), over the bound of " + bytes_text(swim_memory_bound_bytes()) +
            " (raise with --max-memory-gb; models/swim/README.md, Memory)");
  scenario::add_memory(r, "", state_bytes, "SWIM members' state: " + formula);

  c.arms.clear();
  std::set<std::string> names;
  r.objects("arms", [&](scenario::ObjectReader& a, size_t) {
    SwimArm arm;
    arm.name = a.required_string("name");
    if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty arm name");
    if (a.has("name") && !names.insert(arm.name).second)
      a.error("name", "duplicate arm name \"" + arm.name + "\"");
    const bool lifeguard = a.boolean("lifeguard", true);
    arm.awareness = a.boolean("awareness", lifeguard);
    arm.dynamic_suspicion = a.boolean("dynamic_suspicion", lifeguard);
    arm.nack = a.boolean("nack", lifeguard);
    arm.buddy = a.boolean("buddy", lifeguard);
    c.arms.push_back(std::move(arm));
  });
  if (r.has("arms") && c.arms.empty() && r.raw("arms")->is_array())
    r.error("arms", "expected at least one arm");
  if (c.arms.empty()) {
    c.arms.push_back(SwimArm{});
    if (!r.has("arms")) {
      r.set_resolved("arms", nlohmann::json::array({{{"name", "lifeguard"},
                                                     {"lifeguard", true},
                                                     {"awareness", true},
                                                     {"dynamic_suspicion", true},
                                                     {"nack", true},
                                                     {"buddy", true}}}));
    }
  }
  return c;
}

}  // namespace fdsim::swim
