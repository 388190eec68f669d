#include "models/jgroups/config.h"

#include <set>

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

JGroupsConfig parse_jgroups_config(scenario::ObjectReader& r, const scenario::NodesConfig& nodes) {
  JGroupsConfig c = JGroupsConfig::defaults(nodes.count);
  c.arms.clear();
  std::set<std::string> names;
  r.objects("arms", [&](scenario::ObjectReader& a, size_t) {
    JGroupsArm arm;
    arm.name = a.required_string("name");
    if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty arm name");
    if (a.has("name") && !names.insert(arm.name).second)
      a.error("name", "duplicate arm name \"" + arm.name + "\"");
    arm.detector = parse_detector(a.enumeration("detector", "FD", {"FD", "FD_ALL", "FD_SOCK"}));
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
    fd = fd || a.detector == Detector::fd;
    fd_all = fd_all || a.detector == Detector::fd_all;
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
  });
  r.object("VERIFY_SUSPECT", [&](scenario::ObjectReader& p) {
    c.verify_timeout = ms_param(p, "timeout_ms", c.verify_timeout, false);
    c.verify_num_msgs = p.integer("num_msgs", c.verify_num_msgs, 1, 100);
  });
  r.object("GMS", [&](scenario::ObjectReader& p) {
    c.view_bundling = p.boolean("view_bundling", c.view_bundling);
    c.max_bundling_time = ms_param(p, "max_bundling_time_ms", c.max_bundling_time, false);
    c.view_ack_collection_timeout =
        ms_param(p, "view_ack_collection_timeout_ms", c.view_ack_collection_timeout, false);
  });
  c.phases_from_view = r.enumeration("start_phases", "random", {"random", "view"}) == "view";
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
