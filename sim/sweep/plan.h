#pragma once
// A sweep plan: the points of the grid (after the constraint), the scenario of each point, and
// the runs, each with its identity.
//
// Contract:
// - Points are the grid in nested-loop order: the first axis (group) varies slowest, the last
//   fastest; points failing the constraint are dropped and the rest numbered 0, 1, ...
// - Every point's scenario is validated with the run layer's resolve(); any problem is a plan
//   problem ("<sweep>: point 3 ($.a = 1): <scenario problem>"), so a bad point is caught at
//   validate time, before anything runs.
// - Run identity = 16 hex digits of hash_combine(fnv1a64(canonical dump of the point's resolved
//   scenario without its "replications" count), replication). Same scenario + replication =>
//   same id, whatever the sweep, the point index or the replication count; two points that
//   resolve to the same scenario share their runs.
// - `runs` lists each distinct run once, replication-major (all points of replication 0, then
//   of replication 1, ...), so raising the replication count only appends runs: shard
//   assignments (index % N) and finished results of earlier runs stay valid.
// - The manifest (OUT/sweep.json) holds everything aggregation needs (points, parameters, run
//   ids), so merge and re-aggregation never need the scenarios; it depends only on the sweep
//   file and the code, not on -j or sharding.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/run_api.h"
#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

struct PlannedPoint {
  std::vector<nlohmann::json> params;  // one value per SweepPlan::axis_paths entry
  nlohmann::json scenario;             // base + params (null in plans read from a manifest)
  std::vector<std::string> run_ids;    // one per replication
};

struct PlannedRun {
  size_t point = 0;  // the first point with this run
  uint64_t replication = 0;
  std::string id;
};

struct SweepPlan {
  std::string name;
  std::string source;           // the sweep file
  std::string scenario_source;  // source name handed to run::execute
  nlohmann::json sweep_doc;
  std::vector<std::string> axis_paths;  // every axis, zip members in order
  // The axes' "name"s, parallel to axis_paths ("" for an unnamed axis). The manifest holds
  // them as "axis_names": {path: name} only when some axis is named (manifests of sweeps
  // without names stay as they were); they never enter run identities.
  std::vector<std::string> axis_names;
  std::vector<PlannedPoint> points;
  std::vector<PlannedRun> runs;
  // The cost estimate (sim/scenario/cost_estimate.h), checked by make_plan: events of every
  // run, and the peak memory of the costliest point's simulation.
  double total_events = 0;
  double largest_memory_bytes = 0;
  // The calibration record of a sweep with calibrated axes (sim/sweep/calibrate.h), written to
  // and read from sweep.json as "calibration"; null otherwise.
  nlohmann::json calibration;
};

struct PlanOutcome {
  std::vector<std::string> problems;
  SweepPlan plan;
  bool ok() const { return problems.empty(); }
};

// keep_scenarios = false (validate): each point's scenario is built from the base and its
// parameters only while it is checked and resolved, then dropped (PlannedPoint::scenario stays
// null), so a large grid costs its parameters and run identities, not a copy of the base
// scenario per point.
PlanOutcome make_plan(const SweepSpec& spec, const ResolveFn& resolve, bool keep_scenarios = true);

std::string run_identity(const nlohmann::json& resolved_scenario, uint64_t replication);
// The text a run identity hashes: the resolved scenario without "replications" (points that
// differ only in it share their runs), as nlohmann::json::dump() writes it. By value: a caller
// done with its resolution moves it in.
std::string canonical_scenario_text(nlohmann::json resolved_scenario);

// The distinct runs of `points`, replication-major (the order of SweepPlan::runs).
std::vector<PlannedRun> list_runs(const std::vector<PlannedPoint>& points);

// OUT/sweep.json is not trusted (issue 24): every point's label values must be what its runs'
// results (`result_of(id)`, nullopt for a run without a trusted result, which is skipped) hold
// at the axis paths of their resolved configurations. "" or the first mismatch ("point 1 is
// labelled $.x = 2 but run ... ran with 1: sweep.json does not describe these runs"). Used by
// merge and export.
std::string point_label_mismatch(
    const SweepPlan& plan,
    const std::function<std::optional<nlohmann::json>(const std::string& id)>& result_of);

// The cost estimate `fdsim validate` prints for a valid sweep: "about 12 MB per simulation
// (the costliest point) and 3.4e+06 events over 6 points and 18 runs (limits 16.0 GB / 1e+11
// events)". Memory is one simulation (-j N holds N); events are every run of every point.
std::string plan_cost_summary(const SweepPlan& plan);

// "$.a = 1, $.b = \"x\"" (for messages).
std::string describe_params(const SweepPlan& plan, size_t point);

// OUT/sweep.json content, and back (for merge). `reference_arm` is recorded for merge.
nlohmann::ordered_json plan_manifest(const SweepPlan& plan,
                                     const std::optional<std::string>& reference_arm);
struct ManifestPlan {
  SweepPlan plan;
  std::optional<std::string> reference_arm;
};
std::optional<ManifestPlan> plan_from_manifest(const nlohmann::json& manifest, std::string* error);

}  // namespace fdsim::sweep
