#pragma once
// Drives the sweep reader (parse_sweep, sim/sweep/sweep_spec.h) over exploration documents so
// that every form of a sweep file is read once with the field recorder attached: an axis with
// a list of values, a range {from, to, step}, a geometric range {from, to, factor}, a zip
// group, a condition with "value" and one with "other_path", a base given as a path and as an
// inline object. `fdsim schema sweep` is built from what it returns (sim/sweep/sweep_schema.h).
//
// Contract: the documents need not be valid (the base path does not exist); the reader records
// what it reads whatever the problems. Two source names, so that the default of "name" (the
// file's stem) shows up as varying. Deterministic.

#include <vector>

#include "sim/scenario/field_record.h"

namespace fdsim::sweep {

std::vector<scenario::ObjectRecord> explore_sweep_fields();

}  // namespace fdsim::sweep
