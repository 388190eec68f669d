#pragma once
// The `fdsim sweep`, `fdsim merge` and sweep-file `fdsim validate` commands, free of the
// command-line parser so that tests can drive them with a fake RunApi.
//
// Exit codes: 0 ok; 2 bad input (sweep file, a point's scenario, options, an output directory
// in use or not a sweep output); 3 some runs failed or are missing from a merge; 1 internal
// error (cannot write OUT). Problems are printed one per line on `err`, prefixed by the file
// they are about; the one-line summary goes to `out`.
//
// Output directory layout (all writes atomic):
//   OUT/sweep.json      the plan: sweep file, points and their parameters, run ids, version
//   OUT/runs/<id>.json  one result per run (see run_store.h)
//   OUT/aggregate.csv, OUT/aggregate.jsonl   see aggregate.h
// sweep.json and the aggregates depend only on the sweep file, the code and the set of
// results present: not on -j, on sharding or on merging.

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/progress.h"
#include "sim/sweep/run_api.h"

namespace fdsim::sweep {

struct SweepCommandOptions {
  std::string sweep_file;  // the path read, or only the name of sweep_doc in messages
  // When set, the sweep document itself (the Python binding, a sweep on standard input):
  // sweep_file then only names it, and a relative "base" is taken from the working directory
  // unless sweep_file has a directory part.
  std::optional<nlohmann::json> sweep_doc;
  std::string out_dir;
  size_t jobs = 1;
  std::string shard;  // "K/N", or empty for every run
  std::optional<std::string> reference_arm;
  bool aggregate_only = false;
  bool quiet = false;
  ProgressStyle progress = ProgressStyle::kLines;
  std::chrono::milliseconds progress_interval = std::chrono::seconds(5);
};

int sweep_command(const SweepCommandOptions& options, const RunApi& api, std::ostream& out,
                  std::ostream& err);

struct MergeCommandOptions {
  std::vector<std::string> inputs;  // sweep output directories (shards)
  std::string out_dir;
  std::optional<std::string> reference_arm;  // default: the one the shards recorded
  bool quiet = false;
};

int merge_command(const MergeCommandOptions& options, std::ostream& out, std::ostream& err);

// Every problem of a sweep file and of the scenario of each of its points
// ("sweeps/x.json: $.axes[1].path: ..."); empty if valid. When valid and `summary` is given,
// it receives the sweep's cost estimate (plan_cost_summary() in plan.h).
std::vector<std::string> validate_sweep_file(const std::string& path, const RunApi& api,
                                             std::string* summary = nullptr);
// The same for a sweep document already read; `source` names it (see sweep_doc).
std::vector<std::string> validate_sweep_document(const nlohmann::json& doc,
                                                 const std::string& source, const RunApi& api,
                                                 std::string* summary = nullptr);

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitRunsFailed = 3;

}  // namespace fdsim::sweep
