#pragma once
// The model-independent part of a scenario document: identity, seed, replications, horizon,
// warm-up, nodes, metrics and output options, and which model sections are present.
//
// Contract: parse_top_level() reads exactly these top-level keys (and nothing else, so the
// caller's finish() still flags the keys nobody reads), records every problem with its path in
// the reader's Diagnostics and writes every resolved value (defaults included). On a problem
// the field takes its default, so that later sections can still be checked in the same pass.
// Limits: horizon_s <= 1e9 (about 31 years; simulated time is int64 nanoseconds), at most
// 1e6 replications, `name` made of letters, digits, '.', '_' and '-' because it names the
// result files.
//
// Model sections and arms (sim/run decides the arms from this):
//   load_sharing + workload (both or neither)  -> the load-sharing arms (+ membership if an arm
//                                                 needs it)
//   membership (without load_sharing)          -> the Geode arms
//   detectors (alone)                          -> the pairwise heartbeat study
// At least one must be present; `detectors` next to `membership` or `load_sharing` is an error
// (it would be ignored).

#include <cstdint>
#include <string>

#include "sim/engine/time.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::scenario {

struct MetricsOptions {
  bool per_node = false;  // add a per-node table (ground-truth up time, crashes, pauses)
};

struct OutputOptions {
  bool trace = false;  // write the protocol-event trace (JSONL) next to the result
};

struct TopLevel {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  int64_t replications = 1;
  double horizon_s = 0.0;
  double warmup_s = 0.0;
  SimTime horizon;     // the run stops here
  SimTime warmup_end;  // metrics count from here
  NodesConfig nodes;
  MetricsOptions metrics;
  OutputOptions output;
};

inline constexpr double kMaxHorizonS = 1e9;
inline constexpr int64_t kMaxReplications = 1'000'000;

TopLevel parse_top_level(ObjectReader& root);

// Accepts and ignores a top-level "$schema" (the JSON Schema an editor validates the file
// with, `fdsim schema`): it must be a string and is not part of the resolved document, so it
// changes neither the run nor the scenario hash. Used by scenarios and sweep files.
void skip_schema_key(ObjectReader& root);

struct ModelSections {
  bool membership = false;
  bool workload = false;
  bool load_sharing = false;
  bool detectors = false;
};

// Which model sections are present; reports the combination errors listed above.
ModelSections check_model_sections(ObjectReader& root);

// True if `name` is usable as a scenario name (non-empty, <= 100 characters of
// [A-Za-z0-9._-], not starting with '.').
bool valid_scenario_name(const std::string& name);

}  // namespace fdsim::scenario
