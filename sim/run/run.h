#pragma once
// One run: build the world and the models of a scenario, run every arm to the horizon, and
// produce the result document.
//
// Contract:
// - Deterministic: the same scenario document, seed and replication give the same `result`
//   byte for byte (after dump()), whatever thread runs it and whatever else runs in the process.
//   Everything machine-dependent (wall time, events per wall second, peak memory) is only in
//   `run_stats`, which is kept apart from `result`.
// - Never throws on bad input: problems come back in `problems`, each one line
//   "<source_name>: $.path: message" ("$.path: message" when source_name is empty).
//   source_name is also the base for relative data files (its directory); it never enters
//   the result, so the same scenario gives the same result from any path.
// - Exceptions escaping a model (bugs) are caught into `internal_error`; programmer errors that
//   abort (failed conservation checks, time overflow) still abort the process.
// - Arms: one simulation per arm, all on the same seed and replication (common random
//   numbers); the heartbeat study is one simulation serving every arm (contracts.md).
// - `result` = {"manifest": {fdsim_version, git_revision, scenario_name, scenario_hash (hex
//   FNV-1a 64 of the canonical dump of the resolved config), seed, replication, model,
//   arm_order, arms: {arm: {simulation, fingerprint (hex), events_dispatched_count,
//   peak_queue_events_count, events_by_kind_count}}, horizon_s, warmup_s, resolved_config},
//   "metrics": {arm: {...}}}. The seed override, if any, is written into resolved_config.
// - Thread-safe: several execute() calls may run concurrently on different threads.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::run {

// Progress details for a command-line progress line (machine-dependent uses only).
struct ProgressInfo {
  double simulated_s = 0;       // simulated seconds reached, summed over the simulations
  double total_s = 0;           // horizon x number of simulations
  uint64_t events = 0;          // events dispatched so far, summed over the simulations
};

struct RunOptions {
  std::optional<uint64_t> seed;  // overrides the scenario's seed
  bool trace = false;            // collect the protocol-event trace (JSONL lines)
  // With a trace (`trace`, or the scenario's output.trace): when set, the trace streams to
  // "<trace_dir>/<result stem>.trace.jsonl" as the run goes (atomic: it appears whole at the
  // end, or not at all) and RunOutcome::trace_path names it; when empty and `trace` is set,
  // the lines are kept in RunOutcome::trace_lines (tests, small runs). A scenario's
  // output.trace alone, without trace_dir (a sweep), writes no trace.
  std::string trace_dir;
  // Called now and then with (simulated seconds reached, horizon seconds) for progress. With
  // several simulations (one per arm) both are summed over them: (done, arms x horizon).
  std::function<void(double, double)> progress;
  // The same, with the number of events dispatched so far (for events per wall second).
  std::function<void(const ProgressInfo&)> progress_info;
};

struct RunOutcome {
  bool ok = false;
  std::vector<std::string> problems;  // bad input ("<source>: $.path: message"); empty when ok
  std::string internal_error;         // set when the run itself failed (a bug, not bad input)
  nlohmann::json result;              // {"manifest": ..., "metrics": {arm: {...}}, ...}
  nlohmann::json run_stats;           // wall time, events per wall second, peak RSS, ...
  std::vector<std::string> trace_lines;  // JSONL, when RunOptions::trace without trace_dir
  std::string trace_path;                // the trace file written, with RunOptions::trace_dir
};

// Validates and runs `scenario` (an unresolved scenario document) for one replication.
RunOutcome execute(const nlohmann::json& scenario, const std::string& source_name,
                   uint64_t replication, const RunOptions& options = {});

// Validates only; returns the resolved config, or problems.
struct ResolveOutcome {
  bool ok = false;
  std::vector<std::string> problems;
  nlohmann::json resolved;
  // The cost estimate (sim/scenario/cost_estimate.h), for a sweep's totals: events of one
  // replication (every arm), peak bytes of one simulation.
  double events_per_replication = 0;
  double memory_bytes = 0;
};
ResolveOutcome resolve(const nlohmann::json& scenario, const std::string& source_name);

// Hex FNV-1a 64 of resolved.dump() (16 lowercase hex digits): the manifest's scenario_hash.
std::string scenario_hash(const nlohmann::json& resolved);

}  // namespace fdsim::run
