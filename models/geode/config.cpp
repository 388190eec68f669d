#include "models/geode/config.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::geode {

std::string_view profile_name(Profile p) { return p == Profile::wiki ? "wiki" : "current"; }

Duration default_view_ack_timeout(Duration member_timeout, Profile profile) {
  if (profile == Profile::current) {
    const int64_t m_ms = member_timeout.count_ns() / 1'000'000;
    return Duration::ms(std::clamp<int64_t>(m_ms * 2 * 12437 / 10000, 1500, 12437));
  }
  const double ms = std::clamp(2.4874 * member_timeout.millis(), 1500.0, 12437.0);
  return Duration::ms(std::llround(ms));
}

std::vector<std::string> GeodeConfig::arm_names() const {
  std::vector<std::string> out;
  for (const NeighbourCheckArm& a : arms) out.push_back(a.name);
  return out;
}

GeodeConfig GeodeConfig::defaults(Profile profile, Duration m, size_t node_count) {
  GeodeConfig c;
  const bool wiki = profile == Profile::wiki;
  c.profile = profile;
  c.member_timeout = m;
  c.heartbeat_period = m / 2;
  c.monitor_period = m / 2;
  c.check_threshold = wiki ? m : m - m / 2;
  c.heartbeat_request_wait = m;
  c.heartbeat_predecessors = 2;
  c.small_view_size = wiki ? 4 : 9;
  c.max_suspect_recipients = wiki ? 7 : 10;
  c.preferred_in_fanout = wiki ? 5 : 10;
  c.random_recipient = wiki;
  c.final_check_timeout = m;
  c.final_check_retry = Duration::ms(100);
  c.request_collection = Duration::ms(300);
  c.view_ack_timeout = default_view_ack_timeout(m, profile);
  c.reliable_retransmit = wiki ? Duration::zero() : Duration::ms(500);
  c.app_messages_per_s = 0.0;
  c.partition_detection = true;
  c.partition_shutdown = Duration::ms(1000);
  c.join_retry = m;
  c.auto_reconnect = true;
  c.max_wait_time_reconnect = Duration::ms(60000);
  c.join_timeout = Duration::ms(24000);  // MembershipConfig.DEFAULT_JOIN_TIMEOUT (~70)
  c.peer_connections = !wiki;
  c.crash_is_host = false;
  c.unreachable_send_errors = false;
  c.node_count = node_count;
  c.members.clear();
  for (size_t i = 0; i < node_count; ++i) c.members.push_back(NodeId(i));
  return c;
}

namespace {

constexpr double kMaxMs = 1e9;  // about 11.6 days: far beyond any sensible protocol timer

Duration ms_param(scenario::ObjectReader& r, std::string_view key, Duration def,
                  bool strictly_positive) {
  const double v = strictly_positive ? r.positive(key, def.millis(), 0.0, kMaxMs)
                                     : r.number(key, def.millis(), 0.0, kMaxMs);
  return Duration::from_ms(v);
}

size_t count_param(scenario::ObjectReader& r, std::string_view key, size_t def, int64_t min) {
  return size_t(r.integer(key, int64_t(def), min, 1'000'000));
}

// Members one suspicion can be sent to (recipients.h, suspect_recipients): the whole view
// when it is at most small_view_size, else max_suspect_recipients (or the preferred members
// plus the sender, if more); at most the node count.
double suspicion_fanout(const GeodeConfig& c, size_t node_count) {
  const double n = double(node_count);
  if (double(c.small_view_size) >= n) return n;
  const double r = std::max(double(c.max_suspect_recipients), double(c.preferred_in_fanout) + 1.0);
  return std::min(n, r);
}

// The event-rate budget (sim/scenario/event_rate.h). Estimates, per simulated second, with N =
// nodes.count (every node may be a member):
//   heartbeats       N x heartbeat_predecessors / heartbeat_period
//   monitor checks   N / monitor_period
//   neighbour checks N x 3 / monitor_period  (a request, its reply and the wait's timer)
//   join attempts    N / join_retry
//   retransmissions  N / reliable_retransmit    (at least one pending message per member; 0 = off)
//   app messages     N x app_messages_per_s
// What suspicions cost (their fan-out, final checks, view changes and the work inside them)
// follows the faults and the network, which this section does not see: the loader adds it
// (models/geode/cost_bound.h).
// A period the file does not give defaults from member_timeout_ms; the problem then names
// member_timeout_ms, the key the user wrote.
void check_event_rates(scenario::ObjectReader& r, const GeodeConfig& c, size_t node_count) {
  const double n = double(node_count);
  const std::string nodes_text = "nodes.count " + std::to_string(node_count);
  bool derived_reported = false;  // one problem on member_timeout_ms is enough
  const auto period = [&](std::string_view key, Duration p, double per, std::string_view what) {
    if (r.has(key) || !r.has("member_timeout_ms")) {
      scenario::check_period(r, key, p, n, nodes_text, per, what);
      return;
    }
    if (derived_reported) return;
    const std::string formula = nodes_text + (what.empty() ? "" : " x " + std::string(what)) +
                                " / " + std::string(key) + " (" + scenario::rate_text(p.millis()) +
                                " ms, derived from member_timeout_ms)";
    if (p > Duration::zero())
      derived_reported =
          !scenario::check_event_rate(r, "member_timeout_ms", n * per / p.seconds(), formula);
  };
  const double preds = double(c.heartbeat_predecessors);
  period("heartbeat_period_ms", c.heartbeat_period, preds,
         "heartbeat_predecessors " + std::to_string(c.heartbeat_predecessors));
  period("monitor_period_ms", c.monitor_period, 4.0, "a tick and a neighbour check (4 events)");
  period("join_retry_ms", c.join_retry, 1.0, "");
  period("reliable_retransmit_ms", c.reliable_retransmit, 1.0, "");
  scenario::check_event_rate(r, "app_messages_per_s", n * c.app_messages_per_s,
                             nodes_text + " x app_messages_per_s " +
                                 scenario::rate_text(c.app_messages_per_s));
}

}  // namespace

GeodeConfig parse_geode_config(scenario::ObjectReader& r, const scenario::NodesConfig& nodes) {
  const std::string profile = r.enumeration("profile", "wiki", {"wiki", "current"});
  const Profile p = profile == "current" ? Profile::current : Profile::wiki;
  const Duration m = Duration::from_ms(r.positive("member_timeout_ms", 5000, 0.0, kMaxMs));
  GeodeConfig c = GeodeConfig::defaults(p, m, nodes.count);

  c.heartbeat_period = ms_param(r, "heartbeat_period_ms", c.heartbeat_period, true);
  c.monitor_period = ms_param(r, "monitor_period_ms", c.monitor_period, true);
  c.check_threshold = ms_param(r, "check_threshold_ms", c.check_threshold, false);
  c.heartbeat_request_wait =
      ms_param(r, "heartbeat_request_wait_ms", c.heartbeat_request_wait, true);
  c.heartbeat_predecessors = count_param(r, "heartbeat_predecessors", c.heartbeat_predecessors, 1);
  c.small_view_size = count_param(r, "small_view_size", c.small_view_size, 0);
  c.max_suspect_recipients = count_param(r, "max_suspect_recipients", c.max_suspect_recipients, 1);
  c.preferred_in_fanout = count_param(r, "preferred_in_fanout", c.preferred_in_fanout, 0);
  c.random_recipient = r.boolean("random_recipient", c.random_recipient);
  c.final_check_timeout = ms_param(r, "final_check_timeout_ms", c.final_check_timeout, true);
  c.final_check_retry = ms_param(r, "final_check_retry_ms", c.final_check_retry, true);
  c.request_collection = ms_param(r, "request_collection_ms", c.request_collection, false);
  c.view_ack_timeout = ms_param(r, "view_ack_timeout_ms", c.view_ack_timeout, true);
  c.partition_detection = r.boolean("partition_detection", c.partition_detection);
  c.partition_shutdown = ms_param(r, "partition_shutdown_ms", c.partition_shutdown, false);
  c.send_jitter_max = ms_param(r, "send_jitter_ms", Duration::zero(), false);
  c.start_offset_max = ms_param(r, "start_offset_max_ms", Duration::zero(), false);
  c.join_retry = ms_param(r, "join_retry_ms", c.join_retry, true);
  c.reliable_retransmit = ms_param(r, "reliable_retransmit_ms", c.reliable_retransmit, false);
  // At most 1e4 per member and second. The messages matter to the model only as the contacts
  // and connections they make (one every few milliseconds already gives every member contact
  // and a connection to every other), and each costs several events: at 1e6 per member a
  // 2-second run of the 14-arm paper scenario took minutes (edge fuzzer, issue 24).
  c.app_messages_per_s = r.number("app_messages_per_s", 0.0, 0.0, 1e4);
  c.member_weights = r.integers("member_weights", {}, 0, 255);
  if (!c.member_weights.empty() && c.member_weights.size() != nodes.count)
    r.error("member_weights", "expected one weight per node (" + std::to_string(nodes.count) +
                                  "), got " + std::to_string(c.member_weights.size()));

  c.auto_reconnect = r.boolean("auto_reconnect", c.auto_reconnect);
  c.max_wait_time_reconnect =
      ms_param(r, "max_wait_time_reconnect_ms", c.max_wait_time_reconnect, false);
  c.join_timeout = ms_param(r, "join_timeout_ms", c.join_timeout, true);
  c.peer_connections = r.boolean("peer_connections", c.peer_connections);
  c.crash_is_host = r.enumeration("crash_kind", "process", {"process", "host"}) == "host";
  c.unreachable_send_errors = r.boolean("unreachable_send_errors", c.unreachable_send_errors);

  check_event_rates(r, c, nodes.count);
  // Memory (sim/scenario/cost_estimate.h). Views are shared (one object per view id, held by
  // pointer), so a member costs about 3 kB (models/geode/README.md, "Start-up cost": 2.7 kB
  // per member from 10^4 to 10^6 members) plus its contact, suspect and connection tables, one
  // 64 B entry per member it has heard from. Without application messages those are its ring
  // neighbours, the coordinator and the senders of suspicions: 64 entries per member is
  // generous. Application messages go to random members, so over a run every member may hear
  // from every other: n entries each. The estimate counts 8 kB per member for the rest.
  // A suspicion fanned out to R members is R messages sent in one event; every member may
  // raise one at the same instant (a partition silences half the ring for all of them at
  // once), so up to n x R messages are in flight together: 160 B each
  // (kBytesPerPendingEvent), a burst the messages-in-flight term (a rate x the mean delay)
  // does not see. Each recipient records the suspect: with R >= 64 every member's tables may
  // hold every other member.
  {
    const double n = double(nodes.count);
    const bool app = c.app_messages_per_s > 0.0;
    const double fanout = suspicion_fanout(c, nodes.count);
    const bool wide = app || fanout >= 64.0;
    const double contacts = wide ? n : std::min(n, 64.0);
    const double burst = n * fanout * scenario::kBytesPerPendingEvent;
    const std::string n_text = ", n = " + std::to_string(nodes.count);
    scenario::add_memory(
        r, "", n * 8e3 + n * contacts * 64.0 + burst,
        (app ? "Geode members' tables with application messages: 8 kB x n + 64 B x n^2"
             : wide ? "Geode members' tables with a suspicion fan-out of " +
                          scenario::rate_text(fanout) + ": 8 kB x n + 64 B x n^2"
                    : std::string("Geode members: 8 kB x n + 64 B x n x min(n, 64) contacts")) +
            " + suspicions in flight: n x " + scenario::rate_text(fanout) + " recipients x " +
            scenario::rate_text(scenario::kBytesPerPendingEvent) + " B" + n_text);
  }

  c.members = scenario::parse_node_set(r, "members", nodes, /*def_all=*/true);
  if (r.has("members") && c.members.empty()) r.error("members", "the initial view needs at least one member");
  c.locators = nodes.locators;

  c.arms.clear();
  std::set<std::string> names;
  r.objects("neighbour_check", [&](scenario::ObjectReader& a, size_t) {
    NeighbourCheckArm arm;
    arm.name = a.required_string("name");
    if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty arm name");
    if (!names.insert(arm.name).second)
      a.error("name", "duplicate arm name \"" + arm.name + "\"");
    if (a.has("detector")) {
      a.object("detector", [&](scenario::ObjectReader& d) {
        arm.detector = detectors::parse_detector_config(d);
      });
    } else if (arm.name != "fixed") {
      a.error("detector",
              "required for an arm other than \"fixed\" (the member-timeout rule); e.g. "
              "{\"kind\": \"phi_accrual\"}");
    }
    c.arms.push_back(std::move(arm));
  });
  if (r.has("neighbour_check") && c.arms.empty() && r.raw("neighbour_check")->is_array())
    r.error("neighbour_check", "expected at least one arm");
  if (c.arms.empty()) {
    c.arms.push_back(NeighbourCheckArm{});
    if (!r.has("neighbour_check"))
      r.set_resolved("neighbour_check", nlohmann::json::array({{{"name", "fixed"}}}));
  }
  return c;
}

}  // namespace fdsim::geode
