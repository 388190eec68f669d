#include "sim/run/trace_perfetto.h"

#include <limits>
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

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

// Span kinds: start records, end records, the span's name and its track's name suffix.
struct SpanKind {
  const char* name;    // slice name, e.g. "paused"
  const char* track;   // track name suffix, e.g. "faults"
  std::vector<std::string> starts, ends;
  bool global = false;  // on the "global" track, matched by the record's fields (a, b, ...)
};

const std::vector<SpanKind>& span_kinds() {
  // One track per span kind, so that spans on a track never overlap (a start while its span
  // is open is ignored: a second view_installed does not restart "in view").
  static const std::vector<SpanKind> kinds = {
      {"down", "down", {"crash"}, {"recover"}},
      {"paused", "paused", {"pause"}, {"resume"}},
      {"sick", "sick", {"sick"}, {"sick_end"}},
      {"playing dead", "playing dead", {"play_dead"}, {"play_dead_end"}},
      {"starved", "starved", {"starve"}, {"starve_end"}},
      {"in view", "in view", {"view_installed"},
       {"removed_from_view", "forced_disconnect", "crash"}},
      {"partition", "partitions", {"partition"}, {"heal"}, true},
      {"loss burst", "loss bursts", {"loss_burst"}, {"loss_burst_end"}, true},
      {"delay spike", "delay spikes", {"delay_spike"}, {"delay_spike_end"}, true},
  };
  return kinds;
}

// What pairs a global start with its end: the node lists ("a", "b" of a partition; "from",
// "to" of a burst or spike).
std::string span_match_key(const json& r) {
  std::string key;
  for (const char* f : {"a", "b", "from", "to"})
    if (r.contains(f)) key += std::string(f) + "=" + r[f].dump() + ";";
  return key;
}

}  // namespace

namespace {

// The spans (module contract) of the kept records, appended to `events`: complete events
// (ph "X") on their own tracks, one per (node, track suffix), named "node N: state" etc.
void append_spans(const std::vector<const json*>& kept, int64_t global_pid, bool windowed,
                  ordered_json& events) {
  if (kept.empty()) return;
  const int64_t window_start = (*kept.front())["t_ns"].get<int64_t>();
  int64_t window_end = window_start;
  for (const json* r : kept) window_end = std::max(window_end, (*r)["t_ns"].get<int64_t>());
  // Track suffixes in first-use order of span_kinds(): tid = pid + (index + 1) * stride, unique
  // across processes (stride > every pid).
  std::vector<std::string> suffixes;
  for (const auto& k : span_kinds())
    if (std::find(suffixes.begin(), suffixes.end(), k.track) == suffixes.end())
      suffixes.push_back(k.track);
  const int64_t stride = global_pid + 1;
  auto tid_of = [&](int64_t pid, const std::string& suffix) {
    const auto at = std::find(suffixes.begin(), suffixes.end(), suffix) - suffixes.begin();
    return pid + (int64_t(at) + 1) * stride;
  };
  struct Open {
    int64_t start_ns;
    ordered_json args;
  };
  // (pid, span kind index, match key) -> the open span.
  std::map<std::tuple<int64_t, size_t, std::string>, Open> open;
  std::set<std::pair<int64_t, std::string>> tracks;
  ordered_json spans = ordered_json::array();
  auto emit = [&](int64_t pid, size_t k, int64_t from_ns, int64_t to_ns, ordered_json args) {
    const SpanKind& kind = span_kinds()[k];
    tracks.insert({pid, kind.track});
    spans.push_back(ordered_json{{"ph", "X"}, {"name", kind.name}, {"cat", "span"},
                                 {"pid", pid}, {"tid", tid_of(pid, kind.track)},
                                 {"ts", micros(from_ns)}, {"dur", micros(to_ns - from_ns)},
                                 {"args", std::move(args)}});
  };
  for (const json* rp : kept) {
    const json& r = *rp;
    const std::string& kind = r["kind"].get_ref<const std::string&>();
    const bool has_node = r.contains("node") && is_node(r["node"]);
    const int64_t pid = has_node ? int64_t(r["node"].get<NodeId>()) + 1 : global_pid;
    const int64_t t = r["t_ns"].get<int64_t>();
    for (size_t k = 0; k < span_kinds().size(); ++k) {
      const SpanKind& sk = span_kinds()[k];
      if (sk.global == has_node) continue;
      const std::string key = sk.global ? span_match_key(r) : "";
      const auto id = std::make_tuple(pid, k, key);
      if (contains(sk.ends, kind)) {
        auto it = open.find(id);
        if (it != open.end()) {
          emit(pid, k, it->second.start_ns, t, std::move(it->second.args));
          open.erase(it);
        } else if (windowed && kind == sk.ends.front() && !contains(sk.starts, kind)) {
          // Begun before the time window (--from-s): from the window's start. Only the main
          // end record (a crash ends "in view" only when the member is in the view).
          emit(pid, k, window_start, t, ordered_json{{"begun_before_window", true}});
        }
      }
      if (contains(sk.starts, kind) && !open.count(id)) open[id] = Open{t, args_of(r)};
    }
  }
  for (auto& [id, o] : open) {  // still going at the end: to the last record's time
    o.args["open_at_end"] = true;
    emit(std::get<0>(id), std::get<1>(id), o.start_ns, window_end, std::move(o.args));
  }
  for (const auto& [pid, suffix] : tracks) {
    const std::string node = pid == global_pid ? "global" : "node " + std::to_string(pid - 1);
    events.push_back(ordered_json{{"ph", "M"}, {"name", "thread_name"}, {"pid", pid},
                                  {"tid", tid_of(pid, suffix)},
                                  {"args", {{"name", node + ": " + suffix}}}});
  }
  for (auto& e : spans) events.push_back(std::move(e));
}

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
  append_spans(kept, global_pid, o.from_s.has_value(), events);
  ordered_json doc;
  doc["displayTimeUnit"] = "ns";
  doc["traceEvents"] = std::move(events);
  return doc;
}

}  // namespace fdsim::run
