#pragma once
// The JSON Schema (draft 2020-12) of sweep files (`fdsim schema sweep`), generated like the
// scenario schema (sim/scenario/schema.h) from what the sweep reader records
// (sim/sweep/sweep_explorer.h) and the descriptions of sim/sweep/sweep_field_docs.cpp.
//
// Contract:
// - Each object the reader reads is one definition: the sweep itself, an axis
//   {"path", "values"} (top-level or in a zip), a zip group {"zip"}, a range
//   {"from", "to", "step"}, a geometric range {"from", "to", "factor"}, a condition. Its
//   properties, types, bounds, enums, required keys and constant defaults are the reader's;
//   "additionalProperties" is false.
// - What the reader checks by hand and cannot record is stated here, once, per field key:
//   how nested definitions are referenced, non-empty arrays, JSON paths starting with "$", a
//   geometric range's "from" > 0, an axis's values being a list or a range (at most
//   kMaxRangeValues values), exactly one of a condition's "value" and "other_path", an inline
//   "base" validated as a scenario (the scenario schema is embedded under $defs/scenario). Rules between fields (from <= to) are
//   only in the descriptions. The schema accepts every sweep the reader accepts.
// - Every problem found while building (a field without a description, a description or a
//   structure entry of no field, a record of no known definition) is appended to `problems`.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/field_record.h"
#include "sim/scenario/schema.h"

namespace fdsim::sweep {

// sweep_schema_from(explore_sweep_fields(), ...).
nlohmann::ordered_json sweep_schema(const scenario::Shapes& scenario_shapes,
                                    std::vector<std::string>& problems);

// The schema built from given records of the sweep reader (tests change them).
nlohmann::ordered_json sweep_schema_from(const std::vector<scenario::ObjectRecord>& records,
                                         const scenario::Shapes& scenario_shapes,
                                         std::vector<std::string>& problems);

// The definition a record of the sweep reader belongs to: "$" (the sweep), "axis", "zip",
// "range", "geometric_range", "condition", or "" if none.
std::string sweep_definition_of(const scenario::ObjectRecord& record);

}  // namespace fdsim::sweep
