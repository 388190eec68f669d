#pragma once
// A calibrated axis of a sweep file: instead of a list of values, the axis's one value per
// point is solved so that an arm's mean metric hits a target (docs/sweeps.md, "Calibrated
// axes"). This file holds its declaration and reader; the solver is sim/sweep/calibrate.h.
//
//   {"name": "period_ms", "path": "$.detectors.heartbeat_period_ms",
//    "calibrate": {"arm": "fixed", "metric": "traffic.messages_per_node_s",
//                  "target": 2.0  or  {"arm": "adaptive"},
//                  "tolerance_rel": 0.002, "bracket": [200, 5000],
//                  "pilot_replications": 4, "max_iterations": 40,
//                  "linked": [{"path": "$.detectors.arms[0].detector.timeout_ms",
//                              "scale": 1, "offset": 1000}]}}
//
// Contract of read_calibration(): every problem of the object is reported on the reader with
// its JSON path ("$.axes[0].calibrate.bracket: expected [lo, hi] with lo < hi, got [5, 1]");
// it returns nullopt when there was any.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/reader.h"
#include "sim/sweep/json_path.h"

namespace fdsim::sweep {

// Pilot replication k of a calibration runs as replication kPilotReplicationBase + k of the
// point's scenario: same seed, but random streams of their own, disjoint from every
// replication a sweep may run (at most scenario::kMaxReplications = 1 000 000).
inline constexpr uint64_t kPilotReplicationBase = uint64_t(1) << 40;

inline constexpr int64_t kMaxPilotReplications = 1000;
inline constexpr int64_t kMaxCalibrationIterations = 200;

// A leaf that follows the calibrated value x: it is set to round12(scale x + offset) wherever
// x is set (a timeout kept at the period plus a round trip, or at 2.5 periods).
struct LinkedLeaf {
  JsonPath path;
  double scale = 1.0;
  double offset = 0.0;
  std::string where;  // "$.axes[1].calibrate.linked[0]"
};

struct CalibrationSpec {
  std::string where;   // "$.axes[1]" (messages)
  std::string arm;     // the arm whose metric is solved for; "" = the results' only arm
  std::string metric;  // dotted metric name, as in aggregate.csv ("traffic.messages_per_node_s")
  std::optional<double> target_value;  // a constant target, or
  std::string target_arm;              // the same metric's mean on another arm of the same runs
  double tolerance_rel = 0.002;        // |mean - target| <= tolerance_rel * |target|
  double lo = 0, hi = 0;               // the bracket searched
  int64_t pilot_replications = 4;
  int64_t max_iterations = 40;  // evaluations after the two bracket ends
  std::vector<LinkedLeaf> linked;
};

// x rounded to 12 significant digits (calibrated and linked values print as stored).
double round12(double x);

// Writes the calibrated value x at `path` and every linked leaf's value into `scenario`.
void set_calibrated_value(const CalibrationSpec& spec, const JsonPath& path,
                          nlohmann::json& scenario, double x);

// Reads the "calibrate" object (reader positioned on it).
std::optional<CalibrationSpec> read_calibration(scenario::ObjectReader& c);

}  // namespace fdsim::sweep
