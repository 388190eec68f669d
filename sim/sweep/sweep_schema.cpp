#include "sim/sweep/sweep_schema.h"

#include <map>
#include <set>

#include "sim/sweep/sweep_explorer.h"
#include "sim/sweep/sweep_field_docs.h"
#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

using nlohmann::ordered_json;
using scenario::FieldSpec;
using scenario::ObjectRecord;

namespace {

constexpr const char* kDocsFile = "sim/sweep/sweep_field_docs.cpp";

// What the reader checks by hand, by field key (sim/sweep/sweep_field_docs.h): merged into the
// field's generated schema.
const std::map<std::string, ordered_json>& field_structure() {
  static const std::map<std::string, ordered_json> s = [] {
    const char* json_path = R"({"pattern": "^\\$"})";  // JsonPath::parse needs the leading "$"
    const std::vector<std::pair<std::string, const char*>> text = {
        {"$.base", R"({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/scenario"}]})"},
        {"$.axes", R"({"minItems": 1,
                       "items": {"oneOf": [{"$ref": "#/$defs/axis"}, {"$ref": "#/$defs/zip"}]}})"},
        {"$.constraint", R"({"items": {"$ref": "#/$defs/condition"}})"},
        {"<zip>.zip", R"({"minItems": 1, "items": {"$ref": "#/$defs/axis"}})"},
        {"<axis>.values", R"({"$ref": "#/$defs/values"})"},
        {"<axis>.calibrate", R"({"$ref": "#/$defs/calibration"})"},
        {"<calibration>.target", R"({"anyOf": [{"type": "number", "not": {"const": 0}},
            {"type": "object", "properties": {"arm": {"type": "string", "minLength": 1}},
             "required": ["arm"], "additionalProperties": false}]})"},
        {"<calibration>.bracket", R"({"minItems": 2, "maxItems": 2})"},
        {"<calibration>.linked", R"({"items": {"$ref": "#/$defs/linked_leaf"}})"},
        {"<linked_leaf>.path", json_path},
        {"<geometric_range>.from", R"({"exclusiveMinimum": 0})"},
        {"<axis>.path", json_path},
        {"<condition>.path", json_path},
        {"<condition>.other_path", json_path},
    };
    std::map<std::string, ordered_json> out;
    for (const auto& [key, t] : text) out[key] = ordered_json::parse(t);
    return out;
  }();
  return s;
}

struct Definition {
  const char* name;
  const char* description;  // "" for none
};

// The definitions in $defs order ("$" is the root).
const std::vector<Definition>& definitions() {
  static const std::vector<Definition> d = {
      {"$", ""},
      {"axis", "an axis: a path and its values"},
      {"zip", "axes varied together (one dimension)"},
      {"range",
       "from, from + step, from + 2 step, ... up to to (included within a relative rounding "
       "tolerance of 1e-9)"},
      {"geometric_range",
       "from, from x factor, from x factor^2, ... up to to (included within a relative "
       "rounding tolerance of 1e-9)"},
      {"condition", "keep the points where path <op> value (or the value at other_path)"},
      {"calibration",
       "the axis's one value per point is solved (bisection-safeguarded false position on "
       "pilot replications) so that the arm's mean metric hits the target (docs/sweeps.md, "
       "Calibrated axes)"},
      {"linked_leaf", "a leaf set to scale x + offset wherever the calibrated value x is set"},
  };
  return d;
}

std::string doc_key(const std::string& def, const std::string& key) {
  return def == "$" ? "$." + key : "<" + def + ">." + key;
}

ordered_json to_ordered(const nlohmann::json& j) { return ordered_json::parse(j.dump()); }

struct Builder {
  const scenario::Shapes& shapes;  // by definition name
  std::vector<std::string>& problems;
  std::set<std::string> used;  // doc keys described

  ordered_json field(const std::string& def, const std::string& key,
                     const scenario::MergedField& m) {
    const std::string dk = doc_key(def, key);
    used.insert(dk);
    ordered_json s = scenario::type_schema(m.spec);
    const auto& structure = field_structure();
    if (auto it = structure.find(dk); it != structure.end()) {
      for (auto kv = it->second.begin(); kv != it->second.end(); ++kv) s[kv.key()] = kv.value();
    } else if (m.spec.type == FieldSpec::Type::object ||
               m.spec.type == FieldSpec::Type::object_array) {
      problems.push_back(dk + ": an object field with no entry in field_structure() of "
                              "sim/sweep/sweep_schema.cpp");
    }
    const scenario::FieldDoc* doc = find_sweep_field_doc(dk);
    const bool constant_default = m.spec.has_default && !m.default_varies;
    if (doc == nullptr) {
      problems.push_back(dk + ": no description in " + kDocsFile);
    } else {
      std::string d(doc->description);
      if (!doc->constraint.empty()) d += " (must be " + std::string(doc->constraint) + ")";
      if (!doc->default_text.empty() && !constant_default)
        d += " Default: " + std::string(doc->default_text) + ".";
      s["description"] = d;
      if (!doc->unit.empty()) s["x-unit"] = std::string(doc->unit);
    }
    if (constant_default) s["default"] = to_ordered(m.spec.def);
    return s;
  }

  ordered_json object(const Definition& def) {
    ordered_json s = {{"type", "object"}};
    if (*def.description != '\0') s["description"] = def.description;
    auto it = shapes.find(def.name);
    if (it == shapes.end()) {
      problems.push_back(std::string("definition ") + def.name + ": the sweep reader read none "
                         "(sim/sweep/sweep_explorer.cpp)");
      return s;
    }
    if (!it->second.discriminator.empty() || it->second.variants.size() != 1)
      problems.push_back(std::string("definition ") + def.name + ": has variants");
    ordered_json props = ordered_json::object();
    std::vector<std::string> required;
    for (const auto& [key, m] : it->second.variants.front().second) {
      props[key] = field(def.name, key, m);
      if (m.spec.required) required.push_back(key);
    }
    s["properties"] = props;
    if (!required.empty()) s["required"] = required;
    s["additionalProperties"] = false;
    return s;
  }
};

}  // namespace

std::string sweep_definition_of(const ObjectRecord& r) {
  auto typed = [&](const char* key) {
    for (const auto& [k, spec] : r.fields)
      if (k == key && spec.type != FieldSpec::Type::any) return true;
    return false;
  };
  if (r.path == "$") return "$";
  if (r.path == "$.axes[]") return typed("zip") ? "zip" : "axis";
  if (r.path == "$.axes[].zip[]") return "axis";
  if (r.path == "$.axes[].values" || r.path == "$.axes[].zip[].values")
    return typed("factor") ? "geometric_range" : "range";
  if (r.path == "$.constraint[]") return "condition";
  if (r.path == "$.axes[].calibrate" || r.path == "$.axes[].zip[].calibrate") return "calibration";
  if (r.path == "$.axes[].calibrate.linked[]" || r.path == "$.axes[].zip[].calibrate.linked[]")
    return "linked_leaf";
  return "";
}

ordered_json sweep_schema_from(const std::vector<ObjectRecord>& records,
                               const scenario::Shapes& scenario_shapes,
                               std::vector<std::string>& problems) {
  // One record set per definition. A range reads the other kind's key ("step" in a geometric
  // range) only to know it: its fields are the typed ones.
  std::vector<ObjectRecord> by_def;
  for (const auto& r : records) {
    ObjectRecord d = r;
    d.path = sweep_definition_of(r);
    if (d.path.empty()) {
      problems.push_back(r.path + ": an object of no sweep schema definition "
                                  "(sweep_definition_of() in sim/sweep/sweep_schema.cpp)");
      continue;
    }
    if (d.path == "range" || d.path == "geometric_range")
      std::erase_if(d.fields, [](const auto& f) { return f.second.type == FieldSpec::Type::any; });
    by_def.push_back(std::move(d));
  }
  const scenario::Shapes shapes = scenario::merge_records(by_def);
  Builder b{shapes, problems, {}};

  ordered_json scenario = scenario::scenario_schema(scenario_shapes, problems);
  ordered_json defs = scenario["$defs"];
  for (const char* k : {"$schema", "$id", "$defs"}) scenario.erase(k);

  ordered_json root;
  for (const auto& def : definitions()) {
    if (std::string(def.name) == "$") {
      root = b.object(def);
      continue;
    }
    defs[def.name] = b.object(def);
    if (std::string(def.name) == "zip") {
      // An axis's values: a list or one of the two ranges (each range is its own definition).
      defs["values"] = {
          {"description",
           "the values of an axis: a non-empty list, a range {\"from\", \"to\", \"step\"} or a "
           "geometric range {\"from\", \"to\", \"factor\"} (at most " +
               std::to_string(kMaxRangeValues) + " values)"},
          {"oneOf",
           {{{"type", "array"}, {"minItems", 1}},
            {{"$ref", "#/$defs/range"}},
            {{"$ref", "#/$defs/geometric_range"}}}}};
    }
  }
  // Exactly one of "value" and "other_path" (checked by hand by the reader).
  defs["condition"]["oneOf"] = {{{"required", {"value"}}}, {{"required", {"other_path"}}}};
  // Exactly one of "values" and "calibrate" (checked by hand by the reader).
  defs["axis"]["oneOf"] = {{{"required", {"values"}}}, {{"required", {"calibrate"}}}};
  defs["scenario"] = scenario;

  for (const auto& [key, s] : field_structure())
    if (b.used.count(key) == 0)
      problems.push_back(key + ": field_structure() of sim/sweep/sweep_schema.cpp names a field "
                               "the sweep reader does not read");
  for (const auto& d : sweep_field_docs())
    if (b.used.count(std::string(d.path)) == 0)
      problems.push_back(std::string(d.path) + ": described in " + kDocsFile +
                         " but the sweep reader does not read it");

  ordered_json out = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", scenario::kSweepSchemaId},
      {"title", "fdsim sweep"},
      {"description", "A parameter sweep of the fdsim simulator (docs/sweeps.md). Generated by "
                      "`fdsim schema sweep` from the sweep reader's own field checks."}};
  for (auto it = root.begin(); it != root.end(); ++it) out[it.key()] = it.value();
  out["$defs"] = defs;
  return out;
}

ordered_json sweep_schema(const scenario::Shapes& scenario_shapes,
                          std::vector<std::string>& problems) {
  return sweep_schema_from(explore_sweep_fields(), scenario_shapes, problems);
}

}  // namespace fdsim::sweep
