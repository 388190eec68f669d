#pragma once
// One run: build the world and the models of a scenario, run every arm to the horizon, and
// produce the result document.
//
// Contract:
// - Deterministic: the same scenario document, seed and replication give the same `result`
//   byte for byte (after dump()), whatever thread runs it and whatever else runs in the process.
//   Everything machine-dependent (wall time, events per wall second, peak memory) is only in
//   `run_stats`, which is kept apart from `result`.
// - Never throws on bad input: problems come back in `problems` (each "$.path: message").
// - Thread-safe: several execute() calls may run concurrently on different threads.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::run {

struct RunOptions {
  std::optional<uint64_t> seed;  // overrides the scenario's seed
  bool trace = false;            // collect the protocol-event trace (JSONL lines)
  // Called now and then with (simulated seconds reached, horizon seconds) for progress.
  std::function<void(double, double)> progress;
};

struct RunOutcome {
  bool ok = false;
  std::vector<std::string> problems;  // bad input ("$.path: message"); empty when ok
  std::string internal_error;         // set when the run itself failed (a bug, not bad input)
  nlohmann::json result;              // {"manifest": ..., "metrics": {arm: {...}}, ...}
  nlohmann::json run_stats;           // wall time, events per wall second, peak RSS, ...
  std::vector<std::string> trace_lines;  // JSONL, when RunOptions::trace
};

// Validates and runs `scenario` (an unresolved scenario document) for one replication.
RunOutcome execute(const nlohmann::json& scenario, const std::string& source_name,
                   uint64_t replication, const RunOptions& options = {});

// Validates only; returns the resolved config, or problems.
struct ResolveOutcome {
  bool ok = false;
  std::vector<std::string> problems;
  nlohmann::json resolved;
};
ResolveOutcome resolve(const nlohmann::json& scenario, const std::string& source_name);

}  // namespace fdsim::run
