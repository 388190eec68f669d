#pragma once
// The sweep file: a base scenario, axes of values to substitute into it, replications and an
// optional constraint.
//
//   {"name": "timeouts", "description": "...",
//    "base": "../examples/loadsharing.json"  (relative to the sweep file) or {inline scenario},
//    "axes": [{"path": "$.load_sharing.arms[1].timeout_ms", "values": [100, 200, 400],
//              "name": "timeout_ms"},
//             {"zip": [{"path": "$.network.latency.mean_ms", "values": [1, 10]},
//                      {"path": "$.horizon_s", "values": [600, 3600]}]}],
//    "replications": 10,
//    "constraint": [{"path": "$.warmup_s", "op": "<", "other_path": "$.horizon_s"},
//                   {"path": "$.seed", "op": "!=", "value": 7}]}
//
// Contract: parse_sweep() reports every problem of the file in one pass, each as
// "<source>: <$.json.path>: <message>" like scenario errors, and never throws:
// - unknown keys, wrong types, empty "values", zip members of different lengths;
// - an axis path that is malformed or cannot be written into the base scenario (its parent
//   must exist: "... does not exist in the base scenario"); the last key may be absent (an
//   optional field), misspelt keys are then caught when each point is resolved;
// - two axes writing the same place, or one inside the other;
// - an axis "name" that is not an identifier, is used twice or is a fixed export column;
// - constraint conditions with an unknown op, or neither/both of "value" and "other_path";
// - a malformed "calibrate" object (calibration_spec.h), "calibrate" with "values", or in a zip.
// What it cannot check (the scenario validity of every point, constraint paths at each
// point) is checked by make_plan() in plan.h.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/field_record.h"
#include "sim/sweep/calibration_spec.h"
#include "sim/sweep/json_path.h"

namespace fdsim::sweep {

// Most values an axis range ({"from", "to", "step"} or {"from", "to", "factor"}) may expand to.
inline constexpr size_t kMaxRangeValues = 10000;

// Longest axis name accepted.
inline constexpr size_t kMaxAxisNameLength = 64;

struct Axis {
  JsonPath path;
  std::vector<nlohmann::json> values;
  // "name" of the axis ("" when absent): an identifier ([A-Za-z_][A-Za-z0-9_]*, at most
  // kMaxAxisNameLength characters), unique among the sweep's axes and none of the tidy
  // export's fixed columns. It labels the axis in exports, tables and legends; it never
  // enters a run's identity.
  std::string name;
  // A calibrated axis (sim/sweep/calibration_spec.h): "calibrate" instead of "values". Its one
  // value per point is solved before the runs (sim/sweep/calibrate.h); until then `values`
  // holds the bracket's low end, at which make_plan() validates every point.
  std::optional<CalibrationSpec> calibrate;
};

// One dimension of the grid: a single axis, or a "zip" of axes varied together.
struct AxisGroup {
  std::vector<Axis> axes;  // all with the same number of values
  size_t size() const { return axes.empty() ? 0 : axes.front().values.size(); }
};

// "path" <op> ("value" | "other_path"), evaluated on each point's scenario.
struct Condition {
  JsonPath path;
  std::string op;  // ==, !=, <, <=, >, >=
  std::optional<JsonPath> other_path;
  nlohmann::json value;
  std::string where;  // "$.constraint[0]"
};

struct SweepSpec {
  std::string source;  // the sweep file as named on the command line (messages, manifest)
  std::string name;    // default: the sweep file's stem
  std::string description;
  nlohmann::json doc;            // the sweep document as read
  nlohmann::json base;           // the base scenario document
  std::string scenario_source;   // source name for every point: the base file, or the sweep file
  std::vector<AxisGroup> groups;
  std::optional<int64_t> replications;  // absent: each point's resolved "replications"
  std::vector<Condition> constraint;
};

struct SpecOutcome {
  std::vector<std::string> problems;
  SweepSpec spec;
  bool ok() const { return problems.empty(); }
};

// `source_name` is the sweep file's path: messages start with it and a relative "base" path is
// taken relative to its directory. With a `recorder`, every field read is recorded for the
// sweep schema (sim/sweep/sweep_schema.h, sim/scenario/field_record.h); what is accepted and
// reported does not change.
SpecOutcome parse_sweep(const nlohmann::json& doc, const std::string& source_name,
                        scenario::FieldRecorder* recorder = nullptr);

// Reads and parses a sweep file (unreadable file, JSON syntax errors with line and column).
SpecOutcome load_sweep_file(const std::string& path);

// Reads a JSON file: nullopt and *error ("line 3, column 5: ...") if it cannot.
std::optional<nlohmann::json> read_json_file(const std::string& path, std::string* error);

}  // namespace fdsim::sweep
