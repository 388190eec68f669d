// fdsim trace TRACE.jsonl [--plantuml | --perfetto OUT.json] : reads a protocol-event trace
// written by `fdsim run --trace`; prints a summary (records by kind, time span, arms), or,
// with --plantuml, a PlantUML sequence diagram (sim/run/trace_plantuml.h), or, with
// --perfetto, writes Chrome trace-event JSON for the Perfetto UI (sim/run/trace_perfetto.h).
// --hide-messages takes the message names the trace holds, full ("geode.heartbeat") or as the
// diagram shows them ("heartbeat"); any other name is bad input (exit 2, listing the known).

#include <cmath>
#include <filesystem>
#include <fstream>
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
#include "sim/run/trace_plantuml.h"
#include "sim/scenario/json_document.h"

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

// Resolves --hide-messages against the message types of `records`: each name may be a full
// name or the short name the diagram shows (every full name with that short name is hidden).
// Unknown names are problems naming the known ones.
std::vector<std::string> resolve_hidden_messages(const std::vector<nlohmann::json>& records,
                                                 const std::vector<std::string>& names,
                                                 std::vector<std::string>& problems) {
  std::set<std::string> known;
  for (const auto& r : records)
    if (r.contains("msg") && r["msg"].is_string()) known.insert(r["msg"].get<std::string>());
  std::vector<std::string> full;
  for (const auto& name : names) {
    bool found = false;
    for (const auto& k : known) {
      if (k == name || short_name(k) == name) {
        full.push_back(k);
        found = true;
      }
    }
    if (!found) {
      std::string list;
      for (const auto& k : known)
        list += (list.empty() ? "" : ", ") + (short_name(k) == k ? k : short_name(k) + " (" + k + ")");
      problems.push_back("--hide-messages: no message \"" + name + "\" in this trace (messages: " +
                         (list.empty() ? "none" : list) + ")");
    }
  }
  return full;
}

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
  if (j.contains("node") && !j["node"].is_null() && !j["node"].is_number_unsigned())
    return "\"node\" must be an integer >= 0 or null";
  if (j.contains("arm") && !j["arm"].is_string()) return "\"arm\" must be a string";
  if (j.contains("msg") && !j["msg"].is_string()) return "\"msg\" must be a string";
  return "";
}

// Reads the JSONL file; every malformed line is a problem "<file>: line N: ...". Each line is
// parsed by the one JSON reader (sim/scenario/json_document.h) under its limits.
std::vector<nlohmann::json> read_trace(const std::string& path, std::vector<std::string>& problems) {
  std::vector<nlohmann::json> records;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    problems.push_back(path + ": is not a regular file");
    return records;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problems.push_back(path + ": cannot read the file");
    return records;
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
    if (line.empty()) continue;
    scenario::JsonDocument d = scenario::parse_json_text(line, "");
    std::string why = d.ok() ? record_problem(*d.doc) : record_problem(nlohmann::json());
    if (!why.empty()) {
      if (!bad(why)) break;
      continue;
    }
    records.push_back(std::move(*d.doc));
  }
  return records;
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
  std::vector<nlohmann::json> records;
  if (problems.empty()) records = read_trace(a.file, problems);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  // Arm filter (traces of scenarios with several arms hold one simulation per arm).
  std::map<std::string, size_t> arms;
  for (const auto& r : records)
    if (r.contains("arm") && r["arm"].is_string()) ++arms[r["arm"].get<std::string>()];
  if (*a.arm_opt) {
    if (!arms.count(a.arm)) {
      std::string known;
      for (const auto& [name, _] : arms) known += (known.empty() ? "" : ", ") + name;
      std::cerr << a.file << ": no record of arm \"" << a.arm << "\" (arms: "
                << (known.empty() ? "none" : known) << ")\n";
      return kExitBadInput;
    }
    std::vector<nlohmann::json> kept;
    for (auto& r : records)
      if (r.value("arm", std::string()) == a.arm) kept.push_back(std::move(r));
    records = std::move(kept);
  } else if ((a.plantuml || !a.perfetto.empty()) && arms.size() > 1) {
    std::cerr << a.file << ": the trace holds " << arms.size()
              << " arms (one simulation each); choose one with --arm\n";
    return kExitBadInput;
  }

  std::vector<std::string> hidden;
  if (!a.hide_messages.empty()) {
    hidden = resolve_hidden_messages(records, a.hide_messages, problems);
    if (!problems.empty()) {
      for (const auto& p : problems) std::cerr << a.file << ": " << p << "\n";
      return kExitBadInput;
    }
  }

  if (!a.perfetto.empty()) {
    run::PerfettoOptions opts;
    for (int64_t m : a.members) opts.members.push_back(NodeId(m));
    if (*a.from_opt) opts.from_s = a.from_s;
    if (*a.to_opt) opts.to_s = a.to_s;
    opts.hide_messages = hidden;
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
    run::PlantUmlOptions opts;
    for (int64_t m : a.members) opts.members.push_back(NodeId(m));
    if (*a.from_opt) opts.from_s = a.from_s;
    if (*a.to_opt) opts.to_s = a.to_s;
    opts.notes = !a.no_notes;
    opts.short_names = !a.full_names;
    opts.hide_messages = hidden;
    opts.hide_kinds = a.hide_kinds;
    opts.title = a.title;
    std::cout << run::trace_to_plantuml(records, opts);
    return kExitOk;
  }

  // Summary.
  std::map<std::string, size_t> kinds;
  std::map<std::string, size_t> messages;
  int64_t first = 0, last = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    const int64_t t = r["t_ns"].get<int64_t>();
    if (i == 0 || t < first) first = t;
    if (i == 0 || t > last) last = t;
    ++kinds[r["kind"].get<std::string>()];
    if (r.contains("msg") && r["msg"].is_string())
      ++messages[r["kind"].get<std::string>() + " " + r["msg"].get<std::string>()];
  }
  std::cout << a.file << ": " << records.size() << " records";
  if (!records.empty())
    std::cout << " from " << double(first) * 1e-9 << " s to " << double(last) * 1e-9 << " s";
  std::cout << "\n";
  if (!arms.empty()) {
    std::cout << "arms:\n";
    for (const auto& [name, count] : arms) std::cout << "  " << name << " " << count << "\n";
  }
  std::cout << "records by kind:\n";
  for (const auto& [name, count] : kinds) std::cout << "  " << name << " " << count << "\n";
  if (!messages.empty()) {
    std::cout << "messages by kind and type:\n";
    for (const auto& [name, count] : messages) std::cout << "  " << name << " " << count << "\n";
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
