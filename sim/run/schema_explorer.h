#pragma once
// Drives the scenario loader over exploration documents so that every reader runs on every
// variant, and collects what the readers recorded (sim/scenario/field_record.h). This is what
// `fdsim schema scenario` and the reference tables are built from.
//
// Contract: starting from a few seed scenarios (one per model family, with every optional
// object present and one element in every array), each enumeration value found anywhere
// (detector kinds, latency models, fault kinds, diagnoses, profiles, ...) is substituted in
// turn at the place it was read, once per (object path, key, value), and the result loaded
// again, breadth first, until no new value appears. The documents need not be valid: readers
// record what they read whatever the problems. Deterministic (same code => same records).

#include <vector>

#include "sim/scenario/field_record.h"
#include "sim/scenario/schema.h"

namespace fdsim::run {

std::vector<scenario::ObjectRecord> explore_scenario_fields();

// merge_records(explore_scenario_fields()).
scenario::Shapes scenario_shapes();

}  // namespace fdsim::run
