#pragma once
// Writing result files.
//
// Contract:
// - write_file_atomic(): the file at `path` either keeps its old content (or stays absent) or
//   has exactly the new content, even if the process is killed at any instant: the bytes go to
//   a temporary file in the same directory (".<name>.tmp.<host>.<pid>.<n>", temp_files.h), which is fsync'ed and
//   renamed over `path`; the directory is fsync'ed after the rename. Leftover temporaries (a
//   kill between create and rename) are named with a leading '.' and a ".tmp." infix so
//   readers can ignore them.
// - Result files: "<out_dir>/<scenario name>-seed<seed>-rep<replication>.json" holding the
//   result document plus a top-level "run_stats" object, and, with tracing,
//   "<same stem>.trace.jsonl". "run_stats" (wall time, events per wall second, peak RSS) is
//   the ONLY machine-dependent part of a result file: two runs of the same scenario, seed and
//   replication give files that are byte-identical once "run_stats" is removed. The JSON is
//   pretty-printed with 2-space indentation and sorted keys, ending with a newline.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::run {

// Returns "" on success, else a readable error ("cannot write out/x.json: No space left").
std::string write_file_atomic(const std::string& path, const std::string& content);

// A fresh temporary name next to `path` (".<name>.tmp.<host>.<pid>.<n>", temp_files.h), unique
// within the process.
std::string temporary_path_for(const std::string& path);

// "<name>-seed<seed>-rep<replication>"
std::string result_stem(const std::string& scenario_name, uint64_t seed, uint64_t replication);

// The text of a result file: result + {"run_stats": run_stats}.
std::string result_file_text(const nlohmann::json& result, const nlohmann::json& run_stats);

struct WrittenRun {
  std::string error;        // "" on success
  std::string result_path;  // set on success
  std::string trace_path;   // set when a trace was written
};

// Creates out_dir if needed and writes the result (and the trace if `trace_lines` is non-null).
WrittenRun write_run_files(const std::string& out_dir, const nlohmann::json& result,
                           const nlohmann::json& run_stats,
                           const std::vector<std::string>* trace_lines);

}  // namespace fdsim::run
