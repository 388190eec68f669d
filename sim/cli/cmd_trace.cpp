// fdsim trace TRACE.jsonl [--plantuml | --perfetto OUT.json] : reads a protocol-event trace
// written by `fdsim run --trace`; prints a summary (records by kind, time span, arms), or,
// with --plantuml, a PlantUML sequence diagram (sim/run/trace_plantuml.h), or, with
// --perfetto, writes Chrome trace-event JSON for the Perfetto UI (sim/run/trace_perfetto.h).
// --hide-messages takes the message names the trace holds, full ("geode.heartbeat") or as the
// diagram shows them ("heartbeat"); any other name is bad input (exit 2, listing the known).

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/commands.h"
#include "sim/engine/ids.h"
#include "sim/engine/time.h"
#include "sim/run/result_writer.h"
#include "sim/run/trace_perfetto.h"
#include "sim/engine/budget.h"
#include "sim/run/trace_plantuml.h"
#include "sim/scenario/json_document.h"
#include "sim/scenario/reader.h"

namespace fdsim::cli {

namespace {

struct TraceArgs {
  std::string file;
  bool plantuml = false;
  std::string perfetto;  // output file; empty = none
  std::vector<int64_t> members;
  double from_s = 0.0;
  double to_s = 0.0;
  std::string arm;
  bool no_notes = false;
  bool full_names = false;
  std::vector<std::string> hide_messages;
  std::vector<std::string> hide_kinds;
  std::string title;
  CLI::Option* from_opt = nullptr;
  CLI::Option* to_opt = nullptr;
  CLI::Option* arm_opt = nullptr;
};

std::string short_name(const std::string& msg) {
  const auto dot = msg.rfind('.');
  return dot == std::string::npos ? msg : msg.substr(dot + 1);
}

// Counts by name with at most kMaxNames distinct names: a hostile trace could make every
// record's kind or message type unique, and the summary's memory must not grow with the file.
// Later new names are counted together as "(other names)".
constexpr size_t kMaxNames = 10'000;
struct NameCounts {
  std::map<std::string, size_t> by_name;
  size_t other = 0;
  void add(const std::string& name) {
    auto it = by_name.find(name);
    if (it != by_name.end())
      ++it->second;
    else if (by_name.size() < kMaxNames)
      by_name.emplace(name, 1);
    else
      ++other;
  }
  bool contains(const std::string& name) const { return by_name.count(name) > 0; }
  bool empty() const { return by_name.empty() && other == 0; }
  void print(std::ostream& out) const {
    for (const auto& [name, count] : by_name) out << "  " << name << " " << count << "\n";
    if (other > 0) out << "  (other names) " << other << "\n";
  }
};

// --hide-messages names, full ("geode.heartbeat") or short ("heartbeat": every full name with
// that short name), matched against each record of the chosen arm as it streams by; a name
// that matched nothing is bad input naming the message types seen.
struct HiddenMessages {
  std::vector<std::string> names;
  std::vector<bool> matched;
  NameCounts known;  // message types of the records considered
  std::set<std::string> full;  // full names that matched (for --perfetto)
  void see(const std::string& msg) {
    known.add(msg);
    for (size_t i = 0; i < names.size(); ++i)
      if (msg == names[i] || short_name(msg) == names[i]) {
        matched[i] = true;
        if (full.size() < kMaxNames) full.insert(msg);
      }
  }
  std::vector<std::string> problems() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (matched[i]) continue;
      std::string list;
      for (const auto& [k, _] : known.by_name)
        list += (list.empty() ? "" : ", ") + (short_name(k) == k ? k : short_name(k) + " (" + k + ")");
      if (known.other > 0) list += ", ...";
      out.push_back("--hide-messages: no message \"" + names[i] + "\" in this trace (messages: " +
                    (list.empty() ? "none" : list) + ")");
    }
    return out;
  }
};

// Reads one line of at most `limit` bytes (without the '\n'); a longer line is consumed to
// its end and reported as too long, so memory stays bounded whatever the file holds.
enum class LineRead { ok, too_long, end };
LineRead read_bounded_line(std::istream& in, std::string& line, size_t limit) {
  line.clear();
  bool any = false, too_long = false;
  for (int c = in.get(); c != EOF; c = in.get()) {
    any = true;
    if (c == '\n') return too_long ? LineRead::too_long : LineRead::ok;
    if (line.size() < limit) {
      line.push_back(char(c));
    } else {
      too_long = true;
    }
  }
  if (!any) return LineRead::end;
  return too_long ? LineRead::too_long : LineRead::ok;
}

// What a trace record must look like for `fdsim trace` to use it: the leading keys with their
// types (trace_collector.h) and, when present, the fields the summary and diagram read.
std::string record_problem(const nlohmann::json& j) {
  const char* shape = "expected a trace record {\"t_ns\": ..., \"node\": ..., \"kind\": ...}";
  if (!j.is_object() || !j.contains("t_ns") || !j["t_ns"].is_number_integer() ||
      !j.contains("kind") || !j["kind"].is_string())
    return shape;
  // Node ids must fit a NodeId: the renderers would otherwise have to drop the record (a
  // diagram silently missing it) or fold it onto another node.
  for (const char* key : {"node", "from", "to"}) {
    if (!j.contains(key) || j[key].is_null()) continue;
    const auto& v = j[key];
    if (!v.is_number_unsigned() || v.get<uint64_t>() > std::numeric_limits<NodeId>::max())
      return std::string("\"") + key + "\" must be a node id (an integer from 0 to " +
             std::to_string(std::numeric_limits<NodeId>::max()) + ") or null, got " +
             scenario::describe(v);
  }
  if (j.contains("arm") && !j["arm"].is_string()) return "\"arm\" must be a string";
  if (j.contains("msg") && !j["msg"].is_string()) return "\"msg\" must be a string";
  return "";
}

// Reads the JSONL file in one pass, handing every well-formed record to `on_record` in file
// order and keeping none (issue 24 item 7: the whole file used to be held, about 8.5 times its
// size); every malformed line is a problem "<file>: line N: ..." (after the first problem no
// record is handed on: the command fails). Each line is parsed by the one JSON reader
// (sim/scenario/json_document.h) under its limits, so memory is one line at a time.
void read_trace(const std::string& path, std::vector<std::string>& problems,
                const std::function<void(nlohmann::json&&)>& on_record) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    problems.push_back(path + ": is not a regular file");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problems.push_back(path + ": cannot read the file");
    return;
  }
  std::string line;
  size_t n = 0;
  auto bad = [&](const std::string& why) {
    problems.push_back(path + ": line " + std::to_string(n) + ": " + why);
    if (problems.size() >= 20) {
      problems.push_back(path + ": (stopping after 20 bad lines)");
      return false;
    }
    return true;
  };
  for (;;) {
    const LineRead r = read_bounded_line(in, line, scenario::kMaxJsonStringBytes);
    if (r == LineRead::end) break;
    ++n;
    if (r == LineRead::too_long) {
      if (!bad("longer than the limit of " + std::to_string(scenario::kMaxJsonStringBytes) +
               " bytes for a trace record"))
        break;
      continue;
    }
    charge_work(1 + line.size() / 256);  // polls SIGINT/SIGTERM (sim/engine/budget.h)
    if (line.empty()) continue;
    scenario::JsonDocument d = scenario::parse_json_text(line, "");
    std::string why = d.ok() ? record_problem(*d.doc) : record_problem(nlohmann::json());
    if (!why.empty()) {
      if (!bad(why)) break;
      continue;
    }
    if (problems.empty()) on_record(std::move(*d.doc));
  }
}

int trace_command(const TraceArgs& a) {
  std::vector<std::string> problems;
  // Issue 24: NaN compared false with everything and selected nothing, silently.
  if (*a.from_opt && !std::isfinite(a.from_s))
    problems.push_back("--from-s: expected a finite time in s, got " + std::to_string(a.from_s));
  if (*a.to_opt && !std::isfinite(a.to_s))
    problems.push_back("--to-s: expected a finite time in s, got " + std::to_string(a.to_s));
  if (*a.from_opt && *a.to_opt && a.to_s < a.from_s)
    problems.push_back("--to-s (" + std::to_string(a.to_s) + ") is before --from-s (" +
                       std::to_string(a.from_s) + ")");
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }

  // One pass over the file (read_trace). Every record counts for the arms; the records of the
  // chosen arm (all without --arm) feed the hidden-message check and one of: the PlantUML
  // writer (bounded by its cap), the Perfetto conversion (which needs them all: it holds the
  // chosen arm's records, as its output does), or the summary's counts.
  NameCounts arms;
  HiddenMessages hidden;
  hidden.names = a.hide_messages;
  hidden.matched.assign(a.hide_messages.size(), false);
  const bool perfetto = !a.perfetto.empty();
  std::vector<nlohmann::json> records;  // --perfetto only
  run::PlantUmlOptions uml;
  for (int64_t m : a.members) uml.members.push_back(NodeId(m));
  if (*a.from_opt) uml.from_s = a.from_s;
  if (*a.to_opt) uml.to_s = a.to_s;
  uml.notes = !a.no_notes;
  uml.short_names = !a.full_names;
  uml.hide_messages = a.hide_messages;  // full or short names (trace_plantuml.h)
  uml.hide_kinds = a.hide_kinds;
  uml.title = a.title;
  run::PlantUmlWriter writer(uml);
  NameCounts kinds, messages;
  size_t count = 0;
  int64_t first = 0, last = 0;
  read_trace(a.file, problems, [&](nlohmann::json&& r) {
    const bool has_arm = r.contains("arm") && r["arm"].is_string();
    if (has_arm) arms.add(r["arm"].get<std::string>());
    if (*a.arm_opt && !(has_arm && r["arm"].get<std::string>() == a.arm)) return;
    const bool has_msg = r.contains("msg") && r["msg"].is_string();
    if (has_msg) hidden.see(r["msg"].get<std::string>());
    if (perfetto) {
      records.push_back(std::move(r));
    } else if (a.plantuml) {
      writer.add(r);
    } else {
      const int64_t t = r["t_ns"].get<int64_t>();
      if (count == 0 || t < first) first = t;
      if (count == 0 || t > last) last = t;
      ++count;
      kinds.add(r["kind"].get<std::string>());
      if (has_msg) messages.add(r["kind"].get<std::string>() + " " + r["msg"].get<std::string>());
    }
  });
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  if (*a.arm_opt) {
    if (!arms.contains(a.arm)) {
      std::string known;
      for (const auto& [name, _] : arms.by_name) known += (known.empty() ? "" : ", ") + name;
      if (arms.other > 0) known += ", ...";
      std::cerr << a.file << ": no record of arm \"" << a.arm << "\" (arms: "
                << (known.empty() ? "none" : known) << ")\n";
      return kExitBadInput;
    }
  } else if ((a.plantuml || perfetto) && arms.by_name.size() + arms.other > 1) {
    std::cerr << a.file << ": the trace holds " << arms.by_name.size() + arms.other
              << " arms (one simulation each); choose one with --arm\n";
    return kExitBadInput;
  }
  if (const auto bad = hidden.problems(); !bad.empty()) {
    for (const auto& p : bad) std::cerr << a.file << ": " << p << "\n";
    return kExitBadInput;
  }

  if (perfetto) {
    run::PerfettoOptions opts;
    for (int64_t m : a.members) opts.members.push_back(NodeId(m));
    if (*a.from_opt) opts.from_s = a.from_s;
    if (*a.to_opt) opts.to_s = a.to_s;
    opts.hide_messages.assign(hidden.full.begin(), hidden.full.end());
    opts.hide_kinds = a.hide_kinds;
    const nlohmann::ordered_json doc = run::trace_to_perfetto(records, opts);
    const std::string error = run::write_file_atomic(
        a.perfetto, doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    if (!error.empty()) {
      std::cerr << error << "\n";
      return kExitBadInput;
    }
    std::cout << a.perfetto << ": " << doc["traceEvents"].size()
              << " trace events; open it at https://ui.perfetto.dev\n";
    return kExitOk;
  }

  if (a.plantuml) {
    std::cout << writer.finish();
    if (writer.not_drawn() > 0)
      std::cerr << a.file << ": the diagram holds the first " << writer.drawn() << " lines; "
                << writer.not_drawn()
                << " more records were not drawn (narrow it with --from-s, --to-s, --members "
                   "or --hide-messages)\n";
    return kExitOk;
  }

  // Summary.
  std::cout << a.file << ": " << count << " records";
  if (count > 0)
    std::cout << " from " << double(first) * 1e-9 << " s to " << double(last) * 1e-9 << " s";
  std::cout << "\n";
  if (!arms.empty()) {
    std::cout << "arms:\n";
    arms.print(std::cout);
  }
  std::cout << "records by kind:\n";
  kinds.print(std::cout);
  if (!messages.empty()) {
    std::cout << "messages by kind and type:\n";
    messages.print(std::cout);
  }
  return kExitOk;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = app.add_subcommand(
      "trace", "Summarise a protocol-event trace, or draw it as a PlantUML sequence diagram");
  sub->add_option("trace", args->file, "Trace file (JSONL) written by fdsim run --trace")
      ->required();
  CLI::Option* puml =
      sub->add_flag("--plantuml", args->plantuml, "Print a PlantUML sequence diagram on stdout");
  sub->add_option("--perfetto", args->perfetto,
                  "Write Chrome trace-event JSON to this file (opens in ui.perfetto.dev): one "
                  "track per node, messages as flows, decisions as instants; pauses, sick, "
                  "starved and down periods, partitions and each member's time in the view as "
                  "spans on tracks of their own. Needs --arm when the trace holds several arms")
      ->excludes(puml);
  sub->add_option("--members", args->members, "Only these nodes (e.g. --members 0,1,4)")
      ->delimiter(',')
      ->check(CLI::Range(int64_t(0), int64_t(kNoNode) - 1));
  args->from_opt = sub->add_option("--from-s", args->from_s, "Start of the time window (s)")
                       ->check(CLI::Range(0.0, 1e9));
  args->to_opt = sub->add_option("--to-s", args->to_s, "End of the time window (s)")
                     ->check(CLI::Range(0.0, 1e9));
  args->arm_opt = sub->add_option("--arm", args->arm,
                                  "Only the records of this arm. Each arm of a multi-arm scenario "
                                  "is a simulation of its own, so --plantuml and --perfetto "
                                  "need it when the trace holds several arms (exit 2 otherwise); "
                                  "the summary without it counts the records of every arm");
  sub->add_flag("--no-notes", args->no_notes,
                "PlantUML: leave out decisions and timeouts (notes); draw messages only");
  sub->add_flag("--full-names", args->full_names,
                "PlantUML: full message names (\"geode.heartbeat\", not \"heartbeat\")");
  sub->add_option("--hide-messages", args->hide_messages,
                  "Message types left out, as the trace or the diagram names them "
                  "(\"geode.heartbeat\" or \"heartbeat\"; comma-separated)")
      ->delimiter(',');
  sub->add_option("--hide-kinds", args->hide_kinds,
                  "Decision kinds left out (comma-separated)")
      ->delimiter(',');
  sub->add_option("--title", args->title, "PlantUML: diagram title");
  sub->footer(
      "Examples:\n"
      "  fdsim run scenarios/examples/geode-ring.json --trace --out out/\n"
      "  fdsim trace out/geode-ring-seed1-rep0.trace.jsonl\n"
      "  fdsim trace out/geode-ring-seed1-rep0.trace.jsonl --plantuml --arm fixed "
      "--members 0,1,4 --from-s 10 --to-s 25 > crash.puml\n"
      "  fdsim trace out/geode-ring-seed1-rep0.trace.jsonl --arm fixed --perfetto ring.json "
      "--hide-messages heartbeat\n");
  sub->callback([args, &exit_code] { exit_code = trace_command(*args); });
}

}  // namespace fdsim::cli
