#include "sim/run/trace_plantuml.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

#include "sim/scenario/reader.h"

namespace fdsim::run {

using nlohmann::json;

namespace {

// A node id that fits NodeId: ids >= 2^32 used to be folded (get<NodeId> truncates) onto other
// nodes, node 0 among them; such a record is not drawn (issue 24).
bool is_node(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= std::numeric_limits<NodeId>::max();
  return v.is_number_integer() && v.get<int64_t>() >= 0 &&
         uint64_t(v.get<int64_t>()) <= std::numeric_limits<NodeId>::max();
}

std::string at(const json& r) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "@%.3fs", double(r["t_ns"].get<int64_t>()) * 1e-9);
  return buf;
}

std::string part(NodeId n) { return "n" + std::to_string(n); }

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

struct Drawn {
  std::string line;
  std::vector<NodeId> nodes;
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The line for one record, or nothing.
std::optional<Drawn> draw(const json& r, const PlantUmlOptions& o) {
  if (!r.is_object() || !r.contains("t_ns") || !r["t_ns"].is_number_integer() ||
      !r.contains("kind") || !r["kind"].is_string())
    return std::nullopt;
  const double t = double(r["t_ns"].get<int64_t>()) * 1e-9;
  if ((o.from_s && t < *o.from_s) || (o.to_s && t > *o.to_s)) return std::nullopt;
  const std::string kind = r["kind"];
  const bool message = kind == "send" || kind == "recv" || kind == "drop" || kind == "probe_result";
  if (message) {
    if (kind == "send") return std::nullopt;
    if (!r.contains("msg") || !r["msg"].is_string() || !r.contains("from") || !r.contains("to") ||
        !is_node(r["from"]) || !is_node(r["to"]))
      return std::nullopt;
    std::string msg = r["msg"];
    const std::string short_msg =
        msg.find('.') != std::string::npos ? msg.substr(msg.rfind('.') + 1) : msg;
    if (contains(o.hide_messages, msg) || contains(o.hide_messages, short_msg)) return std::nullopt;
    if (o.short_names) msg = short_msg;
    const NodeId from = r["from"], to = r["to"];
    Drawn d;
    d.nodes = {from, to};
    if (kind == "recv") {
      d.line = part(from) + " -> " + part(to) + " : " + msg + " " + at(r);
    } else if (kind == "drop") {
      const std::string reason = r.contains("reason") ? value_text(r["reason"]) : "lost";
      d.line = part(from) + " ->x " + part(to) + " : " + msg + " (" + reason + ") " + at(r);
    } else {
      const std::string outcome = r.contains("outcome") ? value_text(r["outcome"]) : "?";
      if (outcome == "answered")
        d.line = part(to) + " --> " + part(from) + " : " + msg + " answered " + at(r);
      else
        d.line = part(from) + " ->x " + part(to) + " : " + msg + " " + outcome + " " + at(r);
    }
    return d;
  }
  if (!o.notes || contains(o.hide_kinds, kind) || !r.contains("node") || !is_node(r["node"]))
    return std::nullopt;
  std::string text = kind;
  bool first = true;
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it.key() == "t_ns" || it.key() == "node" || it.key() == "kind" || it.key() == "arm")
      continue;
    text += (first ? " " : ", ") + it.key() + "=" + value_text(it.value());
    first = false;
  }
  return Drawn{"hnote over " + part(r["node"].get<NodeId>()) + " : " + text + " " + at(r),
               {r["node"].get<NodeId>()}};
}

}  // namespace

PlantUmlWriter::PlantUmlWriter(PlantUmlOptions options)
    : o_(std::move(options)), shown_(o_.members.begin(), o_.members.end()) {}

void PlantUmlWriter::add(const json& r) {
  auto d = draw(r, o_);
  if (!d) return;
  for (NodeId n : d->nodes)
    if (!shown_.empty() && !shown_.count(n)) return;
  // Control characters from the trace are escaped ("\\n", "\\x01"): a newline inside a
  // field used to start a PlantUML line of the trace's choosing (an "!include").
  std::string line = scenario::one_line(d->line);
  if (lines_.size() >= o_.max_lines || bytes_ + line.size() + 1 > o_.max_bytes) {
    ++over_cap_;
    return;
  }
  seen_.insert(d->nodes.begin(), d->nodes.end());
  bytes_ += line.size() + 1;
  lines_.push_back(std::move(line));
}

std::string PlantUmlWriter::finish() const {
  std::string out = "@startuml\n";
  if (!o_.title.empty()) out += "title " + scenario::one_line(o_.title) + "\n";
  const std::vector<NodeId> participants =
      o_.members.empty() ? std::vector<NodeId>(seen_.begin(), seen_.end()) : o_.members;
  for (NodeId n : participants) out += "participant \"m" + std::to_string(n) + "\" as " + part(n) + "\n";
  for (const std::string& l : lines_) out += l + "\n";
  if (over_cap_ > 0) {
    char cap[96];
    std::snprintf(cap, sizeof cap, "cap of %zu lines / %zu MB", o_.max_lines, o_.max_bytes >> 20);
    out += "note across : " + std::to_string(over_cap_) + " more records not drawn (" + cap +
           "; narrow the diagram with --from-s, --to-s, --members or --hide-messages)\n";
  }
  out += "@enduml\n";
  return out;
}

std::string trace_to_plantuml(const std::vector<json>& records, const PlantUmlOptions& o) {
  PlantUmlWriter w(o);
  for (const json& r : records) w.add(r);
  return w.finish();
}

}  // namespace fdsim::run
