#pragma once
// Aggregation of a sweep's run results into OUT/aggregate.csv and OUT/aggregate.jsonl.
//
// One row per (point, arm, metric) over the point's replications: n, mean, sd, 95% half-width
// (stats.h), and the paired difference arm - reference arm over the replications where both
// have the metric (the arms of one run share its random numbers, so the pairs are matched):
// diff_n, diff_mean, diff_sd, diff_ci95_half_width (null on the reference arm's own rows, or
// when the point has no reference arm).
//
// Contract:
// - Metrics are each arm's numeric leaves under dotted names ("detection_time_s.mean"; array
//   elements as "name[3]"), except per-run sample lists (an array under a key starting with
//   "samples", e.g. the Geode "detection_removal_s.samples_s"), which are left out; booleans and strings are
//   ignored; a null leaf is a missing value
//   (the row exists, n counts only present values). Missing runs (failed, other shard) are
//   simply absent from n.
// - Arms are ordered by the result's manifest "arm_order" list if it has one, else by the order of
//   the result's "metrics" object; across replications, first appearance wins. The reference
//   arm is the given one, else the first arm of each point.
// - Rows are ordered by (point index, arm order, metric name in byte order), values summed in
//   replication order and printed with the shortest round-trip representation: the output is
//   byte-identical for the same set of results, whatever -j, sharding or merge produced them.
// - Memory (issue 16): aggregation streams point by point. Only one point's run results are
//   held at a time (a run shared by several points is loaded again for each), rows go to the
//   sink as each point is done, and write_aggregate() streams them into the output files, so
//   10 000 points need the memory of one point, not of the whole sweep.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/plan.h"
#include "sim/sweep/stats.h"

namespace fdsim::sweep {

struct AggregateRow {
  size_t point = 0;
  std::string arm;
  std::string metric;
  Summary stats;
  std::string reference_arm;  // empty if the point has none
  std::optional<Summary> diff;
};

// Numeric leaves of one arm's metrics: name -> value (nullopt for null leaves).
using FlatMetrics = std::map<std::string, std::optional<double>>;
FlatMetrics flatten_metrics(const nlohmann::json& arm_metrics);

// The arms of one result document, in order (see the contract).
std::vector<std::string> arm_order(const nlohmann::json& result);

using LoadResultFn = std::function<std::optional<nlohmann::json>(const std::string& run_id)>;

struct Aggregation {
  std::vector<AggregateRow> rows;  // aggregate() only; write_aggregate() keeps none
  size_t row_count = 0;            // rows produced (both)
  size_t runs_found = 0;    // distinct runs with a result
  size_t runs_missing = 0;  // distinct runs without
  std::string error;          // non-empty: nothing was written
  bool bad_reference = false;  // the error is an unknown reference arm (bad input)
};

// Streams the rows to `sink` in row order, one point at a time. On a bad reference arm the
// error is set after the sink may already have received rows (the caller discards them:
// write_aggregate() never commits its files then).
using RowSink = std::function<void(const AggregateRow&)>;
Aggregation aggregate_streaming(const SweepPlan& plan, const LoadResultFn& load,
                                const std::optional<std::string>& reference_arm,
                                const RowSink& sink);

// All rows in memory (tests, small sweeps); rows are empty when error is set.
Aggregation aggregate(const SweepPlan& plan, const LoadResultFn& load,
                      const std::optional<std::string>& reference_arm);

std::string aggregate_csv(const SweepPlan& plan, const std::vector<AggregateRow>& rows);
std::string aggregate_jsonl(const SweepPlan& plan, const std::vector<AggregateRow>& rows);
// The pieces of the two files: the CSV header line, and one row's CSV / JSONL line (each ends
// with "\n").
std::string aggregate_csv_header(const SweepPlan& plan);
std::string aggregate_csv_line(const SweepPlan& plan, const AggregateRow& row);
std::string aggregate_jsonl_line(const SweepPlan& plan, const AggregateRow& row);

// Aggregates OUT/runs into OUT/aggregate.{csv,jsonl} (atomic writes). On failure the returned
// error is set (and nothing partial is left).
Aggregation write_aggregate(const SweepPlan& plan, const std::filesystem::path& out_dir,
                            const std::optional<std::string>& reference_arm);

}  // namespace fdsim::sweep
