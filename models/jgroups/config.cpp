#include "models/jgroups/config.h"

#include <algorithm>
#include <set>

#include "sim/net/config.h"
#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::jgroups {

const char* detector_name(Detector d) {
  switch (d) {
    case Detector::fd: return "FD";
    case Detector::fd_all: return "FD_ALL";
    case Detector::fd_sock: return "FD_SOCK";
  }
  return "?";
}

bool JGroupsArm::has(Detector d) const {
  return std::find(detectors.begin(), detectors.end(), d) != detectors.end();
}

bool JGroupsArm::below(Detector lower, Detector upper) const {
  const auto l = std::find(detectors.begin(), detectors.end(), lower);
  const auto u = std::find(detectors.begin(), detectors.end(), upper);
  return l != detectors.end() && u != detectors.end() && l < u;
}

std::string JGroupsArm::stack_name() const {
  std::string s;
  for (Detector d : detectors) s += (s.empty() ? "" : "+") + std::string(detector_name(d));
  return s;
}

std::vector<std::string> JGroupsConfig::arm_names() const {
  std::vector<std::string> out;
  for (const JGroupsArm& a : arms) out.push_back(a.name);
  return out;
}

JGroupsConfig JGroupsConfig::defaults(size_t node_count) {
  JGroupsConfig c;
  c.node_count = node_count;
  return c;
}

namespace {

constexpr double kMaxMs = 1e9;  // about 11.6 days

Duration ms_param(scenario::ObjectReader& r, std::string_view key, Duration def, bool positive) {
  const double v = positive ? r.positive(key, def.millis(), 0.0, kMaxMs)
                            : r.number(key, def.millis(), 0.0, kMaxMs);
  return Duration::from_ms(v);
}

Detector parse_detector(const std::string& s) {
  if (s == "FD_ALL") return Detector::fd_all;
  if (s == "FD_SOCK") return Detector::fd_sock;
  return Detector::fd;
}

}  // namespace

JGroupsConfig parse_jgroups_config(scenario::ObjectReader& r, const scenario::NodesConfig& nodes,
                                   const std::string& base_dir) {
  JGroupsConfig c = JGroupsConfig::defaults(nodes.count);
  c.arms.clear();
  std::set<std::string> names;
  r.objects("arms", [&](scenario::ObjectReader& a, size_t) {
    JGroupsArm arm;
    arm.name = a.required_string("name");
    if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty arm name");
    if (a.has("name") && !names.insert(arm.name).second)
      a.error("name", "duplicate arm name \"" + arm.name + "\"");
    if (a.has("detector") && a.has("detectors"))
      a.error("detectors", "give either \"detector\" or \"detectors\", not both");
    if (a.has("detectors")) {
      arm.detectors.clear();
      const std::vector<std::string> list = a.strings("detectors", {});
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string at = "detectors[" + std::to_string(i) + "]";
        if (list[i] != "FD" && list[i] != "FD_ALL" && list[i] != "FD_SOCK") {
          a.error(at, "expected \"FD\", \"FD_ALL\" or \"FD_SOCK\", got \"" + list[i] + "\"");
          continue;
        }
        if (arm.has(parse_detector(list[i]))) {
          a.error(at, "\"" + list[i] + "\" is listed twice (a stack holds each protocol once)");
          continue;
        }
        arm.detectors.push_back(parse_detector(list[i]));
      }
      if (arm.detectors.empty()) {
        if (list.empty()) a.error("detectors", "expected at least one detector");
        arm.detectors = {Detector::fd};
      }
    } else {
      arm.detectors = {parse_detector(a.enumeration("detector", "FD", {"FD", "FD_ALL", "FD_SOCK"}))};
    }
    arm.merge2 = a.boolean("merge2", false);
    c.arms.push_back(std::move(arm));
  });
  if (r.has("arms") && c.arms.empty() && r.raw("arms")->is_array())
    r.error("arms", "expected at least one arm");
  if (c.arms.empty()) {
    c.arms.push_back(JGroupsArm{});
    if (!r.has("arms"))
      r.set_resolved("arms", nlohmann::json::array({{{"name", "fd"}, {"detector", "FD"}}}));
  }
  bool fd = false, fd_all = false;
  for (const JGroupsArm& a : c.arms) {
    fd = fd || a.has(Detector::fd);
    fd_all = fd_all || a.has(Detector::fd_all);
  }
  // The event-rate budget (sim/scenario/event_rate.h), per simulated second with N members,
  // checked for the detectors the arms use: FD sends N heartbeats and N acks per FD.timeout;
  // FD_ALL N x (N - 1) heartbeats and N checks per FD_ALL.interval. FD_SOCK has no timer.
  const double n = double(nodes.count);
  const std::string nodes_text = "nodes.count " + std::to_string(nodes.count);
  r.object("FD", [&](scenario::ObjectReader& p) {
    c.fd_timeout = ms_param(p, "timeout_ms", c.fd_timeout, true);
    c.fd_max_tries = p.integer("max_tries", c.fd_max_tries, 0, 1000);
    if (fd)
      scenario::check_period(p, "timeout_ms", c.fd_timeout, n, nodes_text, 2.0,
                             "(a heartbeat and its ack)");
  });
  r.object("FD_ALL", [&](scenario::ObjectReader& p) {
    c.fd_all_interval = ms_param(p, "interval_ms", c.fd_all_interval, true);
    c.fd_all_timeout = ms_param(p, "timeout_ms", c.fd_all_timeout, true);
    if (fd_all)
      scenario::check_period(p, "interval_ms", c.fd_all_interval, n, nodes_text, n,
                             "(a heartbeat to each other member, and a check)");
  });
  r.object("FD_SOCK", [&](scenario::ObjectReader& p) {
    c.fd_sock_suspect_msg_interval =
        ms_param(p, "suspect_msg_interval_ms", c.fd_sock_suspect_msg_interval, true);
    c.fd_sock_conn_timeout = ms_param(p, "sock_conn_timeout_ms", c.fd_sock_conn_timeout, false);
  });
  r.object("VERIFY_SUSPECT", [&](scenario::ObjectReader& p) {
    c.verify_timeout = ms_param(p, "timeout_ms", c.verify_timeout, false);
    c.verify_num_msgs = p.integer("num_msgs", c.verify_num_msgs, 1, 100);
  });
  r.object("MERGE2", [&](scenario::ObjectReader& p) {
    c.merge_min_interval = ms_param(p, "min_interval_ms", c.merge_min_interval, true);
    c.merge_max_interval = ms_param(p, "max_interval_ms", c.merge_max_interval, true);
    // MERGE2.init(): "max_interval has to be greater than min_interval" (MERGE2.java:107-109).
    if (c.merge_max_interval <= c.merge_min_interval)
      p.error("max_interval_ms", "expected more than min_interval_ms (MERGE2 refuses to start otherwise)");
  });
  // Discovery (TCPPING in tcp.xml, PING in udp.xml: the same Discovery.java attributes).
  r.at_most_one_of({"TCPPING", "PING"});
  r.object(r.has("PING") ? "PING" : "TCPPING", [&](scenario::ObjectReader& p) {
    c.discovery_timeout = ms_param(p, "timeout_ms", c.discovery_timeout, false);
    c.discovery_num_initial_members =
        p.integer("num_initial_members", c.discovery_num_initial_members, 1, 1000000);
  });
  r.object("GMS", [&](scenario::ObjectReader& p) {
    c.merge_timeout = ms_param(p, "merge_timeout_ms", c.merge_timeout, true);
    c.view_bundling = p.boolean("view_bundling", c.view_bundling);
    c.max_bundling_time = ms_param(p, "max_bundling_time_ms", c.max_bundling_time, false);
    c.view_ack_collection_timeout =
        ms_param(p, "view_ack_collection_timeout_ms", c.view_ack_collection_timeout, false);
  });
  c.phases_from_view = r.enumeration("start_phases", "random", {"random", "view"}) == "view";
  c.crash_is_host = r.enumeration("crash_kind", "process", {"process", "host"}) == "host";
  // Absent: nothing is written to the resolved config, so scenarios without it resolve (and
  // hash) as before.
  if (r.has("are_you_dead_send_time"))
    r.object("are_you_dead_send_time", [&](scenario::ObjectReader& p) {
      c.are_you_dead_send_time = net::parse_latency_model(p, base_dir, 0.0);
    });
  if (nodes.count < 2) r.error("jgroups needs at least 2 nodes, got " + std::to_string(nodes.count));
  // Memory (sim/scenario/cost_estimate.h): every member holds the view and the FD tables over
  // all members: about 8 kB per member plus 48 B per member and node.
  {
    const double n = double(nodes.count);
    scenario::add_memory(r, "", n * 8e3 + n * n * 48.0,
                         "JGroups members' views: 8 kB x n + 48 B x n^2, n = " +
                             std::to_string(nodes.count));
  }
  return c;
}

}  // namespace fdsim::jgroups
