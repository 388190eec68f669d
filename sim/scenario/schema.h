#pragma once
// The JSON Schema (draft 2020-12) and the reference tables of the scenario format, built from
// what the readers recorded (sim/scenario/field_record.h) and the field descriptions
// (sim/scenario/field_docs.h).
//
// Contract:
// - merge_records() folds the records of many reader runs into one shape per object path. An
//   enumeration key is the object's discriminator when the set of keys read differs between
//   its values (a detector's "kind", a latency "model", a fault "kind", an arm's "diagnosis");
//   each value then has its own field list. Field specs of one path and variant are merged:
//   a typed spec wins over a raw read, and a default that differs between runs (derived from
//   another field, per profile) is marked as varying.
// - scenario_schema() describes every object as the loader reads it: "additionalProperties":
//   false (unevaluatedProperties with variants, which are "if"/"then" branches on the
//   discriminator), "required", types, inclusive and exclusive bounds, enums, constant defaults,
//   units ("x-unit") and descriptions. Rules between fields (th_f > th_u) are only in the
//   descriptions. The schema accepts every document the loader accepts, except that node
//   indices are not checked against nodes.count.
// - markdown_tables() renders the reference tables of docs/scenario-format.md, each between
//   "<!-- generated table: ID ... -->" and "<!-- end of generated table -->" lines.
// - Every problem found while building (a field without a description, a description of no
//   field, a varying default without a default_text) is appended to `problems`.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/field_record.h"

namespace fdsim::scenario {

struct MergedField {
  FieldSpec spec;
  bool default_varies = false;
};

struct ObjectShape {
  std::string discriminator;  // "" = one variant, named ""
  // variant value -> its fields in reading order; variants in the discriminator's order
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, MergedField>>>> variants;
};

using Shapes = std::map<std::string, ObjectShape>;  // by pattern path ("$.faults[]")

Shapes merge_records(const std::vector<ObjectRecord>& records);

// Every field of the shapes: pattern path -> (variant value, merged field) in variant order.
std::map<std::string, std::vector<std::pair<std::string, MergedField>>> fields_by_path(
    const Shapes& shapes);

nlohmann::ordered_json scenario_schema(const Shapes& shapes, std::vector<std::string>& problems);

std::string markdown_tables(const Shapes& shapes, std::vector<std::string>& problems);

// The schema of one object path (used for the sweep file's inline base scenario too).
nlohmann::ordered_json object_schema(const Shapes& shapes, const std::string& path);

// "$id" of the generated schemas.
inline constexpr const char* kScenarioSchemaId = "https://fdsim.invalid/schema/scenario.json";
inline constexpr const char* kSweepSchemaId = "https://fdsim.invalid/schema/sweep.json";

// The type, bounds and enum of one field as a reader recorded it (no description or default);
// an object is {"type": "object"} and an array of objects {"type": "array"}: the caller adds
// what they hold. Used by both schemas.
nlohmann::ordered_json type_schema(const FieldSpec& spec);

// The node set schema ($defs/node_set).
nlohmann::ordered_json node_set_schema();

}  // namespace fdsim::scenario
