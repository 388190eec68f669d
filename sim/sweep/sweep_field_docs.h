#pragma once
// The one-line description of every sweep-file field: the "description" of each property of
// `fdsim schema sweep`. Types, bounds, enum values, required flags and constant defaults are
// NOT written here: they come from the sweep reader (sim/sweep/sweep_spec.cpp) through the
// field recorder (sim/scenario/field_record.h).
//
// Keys: "$.name" for a top-level field, "<def>.field" for a field of a schema definition
// ("<axis>.path", "<range>.step", "<condition>.op"; the definitions are listed in
// sim/sweep/sweep_schema.cpp).
//
// Contract (checked by sweep_schema() and tests/cli/schema_test.cpp): every field the sweep
// reader reads on the exploration documents (sim/sweep/sweep_explorer.h) has exactly one entry
// here, and every entry is read.

#include <string_view>
#include <vector>

#include "sim/scenario/field_docs.h"

namespace fdsim::sweep {

// FieldDoc::table is "sweep" for every entry.
const std::vector<scenario::FieldDoc>& sweep_field_docs();

// nullptr if `key` is not documented.
const scenario::FieldDoc* find_sweep_field_doc(std::string_view key);

}  // namespace fdsim::sweep
