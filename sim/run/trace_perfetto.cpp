#include "sim/run/trace_perfetto.h"

#include <limits>
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace fdsim::run {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Ids >= 2^32 do not fit NodeId (get<NodeId> truncated them onto other nodes): not a node.
bool is_node(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= std::numeric_limits<NodeId>::max();
  return v.is_number_integer() && v.get<int64_t>() >= 0 &&
         uint64_t(v.get<int64_t>()) <= std::numeric_limits<NodeId>::max();
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_message_kind(const std::string& kind) {
  return kind == "send" || kind == "recv" || kind == "drop" || kind == "probe_result";
}

// The record's own fields (not t_ns, node, kind, arm), in key order.
ordered_json args_of(const json& r) {
  ordered_json args = ordered_json::object();
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it.key() == "t_ns" || it.key() == "node" || it.key() == "kind" || it.key() == "arm")
      continue;
    args[it.key()] = ordered_json::parse(it.value().dump());
  }
  return args;
}

// Microseconds, exact to the nanosecond (a double holds every integer below 2^53 ns exactly,
// and t_ns / 1000 is printed in shortest round-trip form).
double micros(int64_t t_ns) { return double(t_ns) / 1000.0; }

}  // namespace

ordered_json trace_to_perfetto(const std::vector<json>& records, const PerfettoOptions& o) {
  const std::set<NodeId> shown(o.members.begin(), o.members.end());
  auto shown_node = [&](const json& v) { return shown.empty() || shown.count(v.get<NodeId>()); };

  // Pass 1: the records kept, and the messages that arrive (flows need both ends).
  std::vector<const json*> kept;
  std::set<uint64_t> received;
  NodeId max_node = 0;
  for (const json& r : records) {
    if (!r.is_object() || !r.contains("t_ns") || !r["t_ns"].is_number_integer() ||
        !r.contains("kind") || !r["kind"].is_string())
      continue;
    const double t = double(r["t_ns"].get<int64_t>()) * 1e-9;
    if ((o.from_s && t < *o.from_s) || (o.to_s && t > *o.to_s)) continue;
    const std::string& kind = r["kind"].get_ref<const std::string&>();
    const bool has_node = r.contains("node") && is_node(r["node"]);
    if (has_node && !shown_node(r["node"])) continue;
    if (!has_node && !shown.empty()) continue;
    if (is_message_kind(kind)) {
      if (r.contains("msg") && r["msg"].is_string() &&
          contains(o.hide_messages, r["msg"].get<std::string>()))
        continue;
      bool ends_ok = true;
      for (const char* end : {"from", "to"})
        if (r.contains(end) && is_node(r[end]) && !shown_node(r[end])) ends_ok = false;
      if (!ends_ok) continue;
      if (kind == "recv" && r.contains("msg_id") && r["msg_id"].is_number_unsigned())
        received.insert(r["msg_id"].get<uint64_t>());
    } else if (contains(o.hide_kinds, kind)) {
      continue;
    }
    if (has_node) max_node = std::max(max_node, r["node"].get<NodeId>());
    kept.push_back(&r);
  }
  const int64_t global_pid = int64_t(max_node) + 2;

  ordered_json events = ordered_json::array();
  // Metadata: one named, sorted track per node that has a record, and "global" if needed.
  std::set<int64_t> pids;
  for (const json* r : kept)
    pids.insert(r->contains("node") && is_node((*r)["node"]) ? int64_t((*r)["node"].get<NodeId>()) + 1
                                                             : global_pid);
  for (int64_t pid : pids) {
    const std::string name = pid == global_pid ? "global" : "node " + std::to_string(pid - 1);
    for (const char* what : {"process_name", "thread_name"})
      events.push_back(ordered_json{{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", pid},
                                    {"args", {{"name", name}}}});
    events.push_back(ordered_json{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid},
                                  {"tid", pid}, {"args", {{"sort_index", pid}}}});
  }

  std::set<uint64_t> flow_started, flow_finished;
  for (const json* rp : kept) {
    const json& r = *rp;
    const std::string& kind = r["kind"].get_ref<const std::string&>();
    const int64_t pid =
        r.contains("node") && is_node(r["node"]) ? int64_t(r["node"].get<NodeId>()) + 1 : global_pid;
    const double ts = micros(r["t_ns"].get<int64_t>());
    const std::string msg = r.contains("msg") && r["msg"].is_string() ? r["msg"].get<std::string>() : kind;
    if (kind == "send" || kind == "recv") {
      events.push_back(ordered_json{{"ph", "X"}, {"name", msg}, {"cat", "message"},
                                    {"pid", pid}, {"tid", pid}, {"ts", ts}, {"dur", 0.001},
                                    {"args", args_of(r)}});
      if (!r.contains("msg_id") || !r["msg_id"].is_number_unsigned()) continue;
      const uint64_t id = r["msg_id"].get<uint64_t>();
      if (kind == "send" && received.count(id) && !flow_started.count(id)) {
        flow_started.insert(id);
        events.push_back(ordered_json{{"ph", "s"}, {"name", msg}, {"cat", "message"},
                                      {"id", id}, {"pid", pid}, {"tid", pid}, {"ts", ts}});
      } else if (kind == "recv" && flow_started.count(id) && !flow_finished.count(id)) {
        flow_finished.insert(id);
        events.push_back(ordered_json{{"ph", "f"}, {"bp", "e"}, {"name", msg},
                                      {"cat", "message"}, {"id", id}, {"pid", pid},
                                      {"tid", pid}, {"ts", ts}});
      }
      continue;
    }
    events.push_back(ordered_json{{"ph", "i"}, {"s", "t"},
                                  {"name", is_message_kind(kind) ? kind + " " + msg : kind},
                                  {"cat", is_message_kind(kind) ? "message" : "decision"},
                                  {"pid", pid}, {"tid", pid}, {"ts", ts}, {"args", args_of(r)}});
  }
  ordered_json doc;
  doc["displayTimeUnit"] = "ns";
  doc["traceEvents"] = std::move(events);
  return doc;
}

}  // namespace fdsim::run
