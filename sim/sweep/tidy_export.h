#pragma once
// `fdsim export`: a sweep output directory as one tidy table, one row per
// (run, point, swept parameters, seed, replication, arm, metric, value), for pandas or R.
//
// Columns, in this order:
//   run_id, point, <one column per sweep axis>, seed, replication, arm, metric, value
// Parameter columns are named by tidy_param_names() (the rule is stated there), in the order
// of the sweep's axes; OUT/sweep.json keeps the JSON path of every axis.
//
// Contract:
// - Input is read only through the sweep layer: the plan from OUT/sweep.json
//   (plan_from_manifest) and each run's result from OUT/runs through RunStore::verify_result,
//   which checks the integrity record (run id, content hash) and, unless `any_build`, that
//   the result was written by this fdsim build. A run without a result file is skipped and
//   counted (runs_missing); a result file that is present but not trusted is a problem (one
//   line per file; results of another build: one line per distinct version), and
//   nothing is written.
// - Metrics are each arm's numeric leaves under the dotted names of aggregate.h
//   ("detection_time_s.mean", array elements "name[3]"); a null leaf is a row with an empty
//   value (CSV) / null (JSON Lines); booleans and strings are left out. Values are printed as
//   the run file holds them (integers stay integers; doubles in shortest round-trip form).
// - Row order: point index, then replication (the order of the point's run ids), then the
//   result's arm order (aggregate.h arm_order()), then metric name in byte order. A run shared
//   by two points appears under each. Output depends only on the directory's content.
// - CSV: RFC 4180 quoting (a field holding ',', '"', CR or LF is quoted), header line first,
//   "\n" line ends. JSON Lines: one object per row with the same keys in the same order;
//   parameter values keep their JSON type.
// - Files are written atomically (write_file_atomically): PREFIX.csv and/or PREFIX.jsonl.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace fdsim::sweep {

// Column names for the given axis paths (same order). An axis with a "name" in the sweep file
// (`given_names[i]` non-empty; validated by parse_sweep) is that column; the others follow
// this rule, never taking a given name:
//  1. A path's steps are its keys and indices ("$.faults[0].nodes" -> faults, 0, nodes). Its
//     level-1 name is the steps from its last key on, joined by '_' ("$.workload.
//     arrival_rate_per_s" -> "arrival_rate_per_s", "$.a.nodes[2]" -> "nodes_2"); level k
//     starts at the k-th key from the end ("$.detectors.arms[0].detector.timeout_ms" at level
//     2 -> "detector_timeout_ms", level 3 -> "arms_0_detector_timeout_ms").
//  2. Every path starts at level 1; while some names are equal to each other, to a fixed
//     column (run_id, point, seed, replication, arm, metric, value) or to a given name, or are
//     a bare unit (ms, s, us, ns, per_s, ratio, count, bytes: "$.gc.pause.ms" is "pause_ms",
//     never "ms"), each such path that can still grow goes up one level.
//  3. A name still clashing at the full path gets the prefix "param_"; if that clashes too,
//     the column is named by the JSON path itself.
std::vector<std::string> tidy_param_names(const std::vector<std::string>& axis_paths,
                                          const std::vector<std::string>& given_names = {});

struct ExportOptions {
  std::string sweep_dir;  // a sweep output directory (sweep.json + runs/)
  std::string prefix;     // output files PREFIX.csv / PREFIX.jsonl; empty = <sweep_dir>/tidy
  bool csv = true;
  bool jsonl = true;
  bool any_build = false;  // accept results written by another fdsim version or revision
  bool quiet = false;
};

struct ExportTables {
  std::vector<std::string> param_names;
  std::vector<std::string> axis_paths;
  std::string csv, jsonl;
  size_t rows = 0;
  size_t runs_found = 0;    // distinct runs with a trusted result
  size_t runs_missing = 0;  // distinct runs without a result file
  std::vector<std::string> problems;  // "<file>: <why>", one per problem; non-empty = failure
};

// Builds the tables (both formats) from a sweep output directory.
ExportTables tidy_tables(const std::string& sweep_dir, bool any_build);

// The command: exit 0 ok, 2 bad input (not a sweep directory, untrusted result, no result at
// all; one line per problem on `err`), 1 cannot write the output. The summary (rows, runs,
// files and the column -> JSON path map) goes to `out` unless quiet.
int export_command(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace fdsim::sweep
