#pragma once
// What the scenario readers learn about the fields they read, for the JSON Schema and the
// format reference (sim/scenario/schema.h).
//
// Contract: when Diagnostics::recorder is set, every ObjectReader positioned on a present JSON
// object appends one ObjectRecord, and each typed accessor (integer(), positive(),
// enumeration(), objects(), ...) records the FieldSpec it checks against: type, inclusive or
// exclusive bounds, allowed values, default, whether the key is required. The spec is the one
// the accessor enforces, so the schema cannot drift from the loader. Keys only consume()d
// (raw structure) are recorded as Type::any unless the reader declare()s them. Recording never
// changes what a reader accepts or reports.

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::scenario {

struct FieldSpec {
  enum class Type {
    any,            // read raw; no typed accessor described it
    integer,
    number,
    boolean,
    string,
    enumeration,    // a string from `allowed`
    object,
    object_array,   // an array of objects
    number_array,
    integer_array,
    string_array,
    node_set,       // "all", a group name, an index, {"from", "to"} or a list of these
    node_set_map,   // an object mapping names to node sets ($.nodes.groups)
  };
  Type type = Type::any;
  nlohmann::json min;  // null: unbounded (for arrays: the bounds of each element)
  nlohmann::json max;
  bool min_exclusive = false;
  bool max_exclusive = false;
  bool nullable = false;  // null is accepted (and means "absent")
  bool required = false;
  bool has_default = false;
  nlohmann::json def;  // the default the reader resolves to when the key is absent
  std::vector<std::string> allowed;  // Type::enumeration

  bool operator==(const FieldSpec&) const = default;
};

// The fields one reader read on one JSON object.
struct ObjectRecord {
  std::string path;           // pattern path: "$.faults[]"
  std::string concrete_path;  // where it was: "$.faults[2]"
  std::vector<std::pair<std::string, FieldSpec>> fields;  // in reading order
  std::vector<std::pair<std::string, std::string>> enum_values;  // enumeration key -> value read
  std::vector<std::string> declared;  // keys described by declare(): accessors do not override

  FieldSpec* find(const std::string& key);
};

struct FieldRecorder {
  std::vector<ObjectRecord> objects;
};

inline FieldSpec* ObjectRecord::find(const std::string& key) {
  for (auto& [k, s] : fields)
    if (k == key) return &s;
  return nullptr;
}

}  // namespace fdsim::scenario
