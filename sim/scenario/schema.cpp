#include "sim/scenario/schema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "sim/scenario/field_docs.h"

namespace fdsim::scenario {

using nlohmann::json;
using nlohmann::ordered_json;
using Type = FieldSpec::Type;

namespace {

const std::string* enum_value(const ObjectRecord& r, const std::string& key) {
  for (const auto& [k, v] : r.enum_values)
    if (k == key) return &v;
  return nullptr;
}

void merge_field(std::vector<std::pair<std::string, MergedField>>& fields, const std::string& key,
                 const FieldSpec& s) {
  for (auto& [k, m] : fields) {
    if (k != key) continue;
    if (s.type == Type::any) return;
    if (m.spec.type == Type::any) {
      m.spec = s;
      return;
    }
    if (m.spec.has_default != s.has_default || m.spec.def != s.def) m.default_varies = true;
    m.spec.required = m.spec.required && s.required;
    return;
  }
  fields.emplace_back(key, MergedField{s, false});
}

}  // namespace

Shapes merge_records(const std::vector<ObjectRecord>& records) {
  std::map<std::string, std::vector<const ObjectRecord*>> by_path;
  for (const auto& r : records) by_path[r.path].push_back(&r);
  Shapes shapes;
  for (const auto& [path, recs] : by_path) {
    std::vector<std::string> enum_keys;
    for (const auto* r : recs)
      for (const auto& [k, v] : r->enum_values)
        if (std::find(enum_keys.begin(), enum_keys.end(), k) == enum_keys.end())
          enum_keys.push_back(k);
    ObjectShape shape;
    for (const auto& k : enum_keys) {
      std::map<std::string, std::set<std::string>> keys_by_value;
      for (const auto* r : recs) {
        const std::string* v = enum_value(*r, k);
        if (v == nullptr) continue;
        auto& keys = keys_by_value[*v];
        for (const auto& [fk, spec] : r->fields) keys.insert(fk);
      }
      bool differ = false;
      for (const auto& [v, keys] : keys_by_value)
        differ = differ || keys != keys_by_value.begin()->second;
      if (differ) {
        shape.discriminator = k;
        break;
      }
    }
    std::vector<std::string> variants{""};
    if (!shape.discriminator.empty()) {
      variants.clear();
      for (const auto* r : recs) {
        for (const auto& [k, spec] : r->fields) {
          if (k != shape.discriminator) continue;
          for (const auto& a : spec.allowed)
            if (std::find(variants.begin(), variants.end(), a) == variants.end())
              variants.push_back(a);
        }
      }
    }
    for (const auto& variant : variants) {
      std::vector<std::pair<std::string, MergedField>> fields;
      for (const auto* r : recs) {
        if (!shape.discriminator.empty()) {
          const std::string* v = enum_value(*r, shape.discriminator);
          if (v == nullptr || *v != variant) continue;
        }
        for (const auto& [k, spec] : r->fields) merge_field(fields, k, spec);
      }
      if (!fields.empty() || shape.discriminator.empty())
        shape.variants.emplace_back(variant, std::move(fields));
    }
    shapes[path] = std::move(shape);
  }
  return shapes;
}

std::map<std::string, std::vector<std::pair<std::string, MergedField>>> fields_by_path(
    const Shapes& shapes) {
  std::map<std::string, std::vector<std::pair<std::string, MergedField>>> out;
  for (const auto& [path, shape] : shapes)
    for (const auto& [variant, fields] : shape.variants)
      for (const auto& [key, m] : fields) out[path + "." + key].emplace_back(variant, m);
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON Schema

ordered_json node_set_schema() {
  ordered_json one = {{"anyOf",
                       {{{"type", "string"}, {"description", "\"all\" or a group name"}},
                        {{"type", "integer"}, {"minimum", 0}, {"description", "a node index"}},
                        {{"$ref", "#/$defs/node_range"}}}}};
  ordered_json list = {{"type", "array"}, {"items", one}};
  ordered_json all = one;
  all["anyOf"].push_back(list);
  all["description"] =
      "a node set: \"all\", a group name, a node index, {\"from\": a, \"to\": b} (inclusive) "
      "or a list of these";
  return all;
}

namespace {

ordered_json node_range_schema() {
  return {{"type", "object"},
          {"properties",
           {{"from", {{"type", "integer"}, {"minimum", 0}}},
            {"to", {{"type", "integer"}, {"minimum", 0}}}}},
          {"required", {"from", "to"}},
          {"additionalProperties", false}};
}

void add_bounds(ordered_json& s, const FieldSpec& spec) {
  if (!spec.min.is_null()) s[spec.min_exclusive ? "exclusiveMinimum" : "minimum"] = spec.min;
  if (!spec.max.is_null()) s[spec.max_exclusive ? "exclusiveMaximum" : "maximum"] = spec.max;
}

ordered_json to_ordered(const json& j) { return ordered_json::parse(j.dump()); }

}  // namespace

ordered_json type_schema(const FieldSpec& spec) {
  ordered_json s = ordered_json::object();
  switch (spec.type) {
    case Type::any:
      break;
    case Type::integer:
      s["type"] = "integer";
      add_bounds(s, spec);
      break;
    case Type::number:
      s["type"] = "number";
      add_bounds(s, spec);
      break;
    case Type::boolean:
      s["type"] = "boolean";
      break;
    case Type::string:
      s["type"] = "string";
      break;
    case Type::enumeration:
      s["type"] = "string";
      s["enum"] = spec.allowed;
      break;
    case Type::object:
      s["type"] = "object";
      break;
    case Type::object_array:
      s["type"] = "array";
      break;
    case Type::number_array:
    case Type::integer_array: {
      ordered_json item = {{"type", spec.type == Type::number_array ? "number" : "integer"}};
      add_bounds(item, spec);
      s["type"] = "array";
      s["items"] = item;
      break;
    }
    case Type::string_array:
      s["type"] = "array";
      s["items"] = {{"type", "string"}};
      break;
    case Type::node_set:
      s["$ref"] = "#/$defs/node_set";
      break;
    case Type::node_set_map:
      s["type"] = "object";
      s["propertyNames"] = {{"not", {{"const", "all"}}}};
      s["additionalProperties"] = {{"$ref", "#/$defs/node_set"}};
      break;
  }
  if (spec.nullable && s.contains("type")) s["type"] = {s["type"], "null"};
  return s;
}

namespace {

struct SchemaBuilder {
  const Shapes& shapes;
  std::vector<std::string>& problems;

  void annotate(ordered_json& s, const std::string& path, const MergedField& m) {
    const FieldDoc* doc = find_field_doc(doc_key(path));
    if (doc == nullptr) {
      problems.push_back(path + ": no description in sim/scenario/field_docs.cpp");
    } else {
      std::string d(doc->description);
      if (!doc->constraint.empty()) d += " (must be " + std::string(doc->constraint) + ")";
      if (!doc->default_text.empty() && !(m.spec.has_default && !m.default_varies))
        d += " Default: " + std::string(doc->default_text) + ".";
      s["description"] = d;
      if (!doc->unit.empty()) s["x-unit"] = std::string(doc->unit);
    }
    if (m.spec.has_default && !m.default_varies) s["default"] = to_ordered(m.spec.def);
  }

  ordered_json field(const std::string& parent, const std::string& key, const MergedField& m) {
    const std::string path = parent + "." + key;
    const FieldSpec& spec = m.spec;
    ordered_json s;
    if (spec.type == Type::object) {
      s = object(path);
    } else if (spec.type == Type::object_array) {
      s = {{"type", "array"}};
      s["items"] = object(path + "[]");
    } else {
      s = type_schema(spec);
    }
    if (spec.nullable && s.contains("type") && !s["type"].is_array())
      s["type"] = {s["type"], "null"};
    annotate(s, path, m);
    return s;
  }

  ordered_json object(const std::string& path) {
    auto it = shapes.find(path);
    if (it == shapes.end()) return {{"type", "object"}};
    const ObjectShape& shape = it->second;
    ordered_json s = {{"type", "object"}};
    if (shape.discriminator.empty()) {
      ordered_json props = ordered_json::object();
      std::vector<std::string> required;
      for (const auto& [key, m] : shape.variants.front().second) {
        props[key] = field(path, key, m);
        if (m.spec.required) required.push_back(key);
      }
      s["properties"] = props;
      if (!required.empty()) s["required"] = required;
      s["additionalProperties"] = false;
      return s;
    }
    const std::string& d = shape.discriminator;
    const MergedField* dm = nullptr;
    for (const auto& [variant, fields] : shape.variants)
      for (const auto& [key, m] : fields)
        if (key == d && dm == nullptr) dm = &m;
    s["properties"] = ordered_json::object();
    s["properties"][d] = field(path, d, *dm);
    if (dm->spec.required) s["required"] = {d};
    ordered_json branches = ordered_json::array();
    for (const auto& [variant, fields] : shape.variants) {
      ordered_json cond = {{"properties", {{d, {{"const", variant}}}}}};
      const bool is_default = !dm->spec.required && dm->spec.has_default &&
                              dm->spec.def.is_string() && dm->spec.def.get<std::string>() == variant;
      if (!is_default) cond["required"] = {d};
      ordered_json props = ordered_json::object();
      std::vector<std::string> required;
      for (const auto& [key, m] : fields) {
        if (key == d) continue;
        props[key] = field(path, key, m);
        if (m.spec.required) required.push_back(key);
      }
      // The keys this variant allows, checked apart from their values: with
      // "unevaluatedProperties": false instead, a bad value (timeout_ms: -5) failed the branch,
      // which then evaluated nothing, so the key was also reported as "unexpected" (issue 28:
      // the messages cascaded). propertyNames names only keys that are really unknown.
      ordered_json names = ordered_json::array({d});
      for (const auto& [key, m] : fields)
        if (key != d) names.push_back(key);
      ordered_json then = {{"properties", props}, {"propertyNames", {{"enum", names}}}};
      if (!required.empty()) then["required"] = required;
      branches.push_back({{"if", cond}, {"then", then}});
    }
    s["allOf"] = branches;
    return s;
  }
};

}  // namespace

ordered_json object_schema(const Shapes& shapes, const std::string& path) {
  std::vector<std::string> ignored;
  SchemaBuilder b{shapes, ignored};
  return b.object(path);
}

ordered_json scenario_schema(const Shapes& shapes, std::vector<std::string>& problems) {
  SchemaBuilder b{shapes, problems};
  ordered_json root = b.object("$");
  ordered_json out = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                      {"$id", kScenarioSchemaId},
                      {"title", "fdsim scenario"},
                      {"description",
                       "A scenario of the fdsim simulator (docs/scenario-format.md). Generated by "
                       "`fdsim schema scenario` from the loader's own field checks."}};
  for (auto it = root.begin(); it != root.end(); ++it) out[it.key()] = it.value();
  out["$defs"] = {{"node_set", node_set_schema()}, {"node_range", node_range_schema()}};
  return out;
}

// ---------------------------------------------------------------------------------------------
// Markdown tables

namespace {

std::string num(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned() ||
      (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())) {
    const double d = v.get<double>();
    if (std::fabs(d) >= 1e6) {
      const int k = int(std::floor(std::log10(std::fabs(d))));
      const double mant = d / std::pow(10.0, k);
      if (mant == std::floor(mant)) return std::to_string(int(mant)) + "e" + std::to_string(k);
    }
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v.get<double>());
  return buf;
}

std::string range_text(const FieldSpec& s) {
  const bool lo = !s.min.is_null(), hi = !s.max.is_null();
  if (lo && hi) {
    if (s.type == Type::integer && !s.min_exclusive && !s.max_exclusive)
      return ", " + num(s.min) + " to " + num(s.max);
    return std::string(" in ") + (s.min_exclusive ? "(" : "[") + num(s.min) + ", " + num(s.max) +
           (s.max_exclusive ? ")" : "]");
  }
  if (lo) return std::string(s.min_exclusive ? " > " : " >= ") + num(s.min);
  if (hi) return std::string(s.max_exclusive ? " < " : " <= ") + num(s.max);
  return "";
}

std::string type_text(const FieldSpec& s, const std::string& path) {
  std::string t;
  switch (s.type) {
    case Type::any: t = "any"; break;
    case Type::integer: t = "integer" + range_text(s); break;
    case Type::number: t = "number" + range_text(s); break;
    case Type::boolean: t = "boolean"; break;
    case Type::string: t = "string"; break;
    case Type::enumeration:
      for (size_t i = 0; i < s.allowed.size(); ++i) {
        if (i > 0) t += i + 1 == s.allowed.size() ? " or " : ", ";
        t += "`\"" + s.allowed[i] + "\"`";
      }
      break;
    case Type::object: {
      const std::string_view tp = template_at(path);
      t = tp.empty() ? "object" : "`<" + std::string(tp) + ">` object";
      break;
    }
    case Type::object_array: t = "array of objects"; break;
    case Type::number_array: t = "array of numbers" + range_text(s); break;
    case Type::integer_array: t = "array of integers" + range_text(s); break;
    case Type::string_array: t = "array of strings"; break;
    case Type::node_set: t = "`<node set>`"; break;
    case Type::node_set_map: t = "object of `<node set>`"; break;
  }
  if (s.nullable) t += " or null";
  return t;
}

std::string value_text(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return num(v);
  return "`" + v.dump() + "`";
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Groups (text, variant) pairs by text in first-seen order: "a (v1, v2), b (v3)"; the labels are
// left out when every variant has the same text and the field is in every variant.
std::string grouped(const std::vector<std::pair<std::string, std::string>>& items,
                    bool in_every_variant, const std::string& sep, bool label_first) {
  std::vector<std::string> texts;
  std::map<std::string, std::vector<std::string>> labels;
  for (const auto& [text, variant] : items) {
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
    auto& l = labels[text];
    if (!variant.empty() && std::find(l.begin(), l.end(), variant) == l.end()) l.push_back(variant);
  }
  if (texts.size() == 1 && (in_every_variant || labels[texts[0]].empty())) return texts[0];
  std::vector<std::string> parts;
  for (const auto& t : texts) {
    if (labels[t].empty()) {
      parts.push_back(t);
    } else if (label_first) {
      parts.push_back(join(labels[t], ", ") + ": " + t);
    } else {
      parts.push_back(t + " (" + join(labels[t], ", ") + ")");
    }
  }
  return join(parts, sep);
}

struct Occurrence {
  std::string path;      // pattern path of the field
  std::string variant;   // "" if its object has no discriminator
  const MergedField* m;
  bool in_every_variant;
};

}  // namespace

std::string markdown_tables(const Shapes& shapes, std::vector<std::string>& problems) {
  // Every field occurrence by documentation key.
  std::map<std::string, std::vector<Occurrence>> by_key;
  for (const auto& [path, shape] : shapes) {
    for (const auto& [variant, fields] : shape.variants) {
      for (const auto& [key, m] : fields) {
        bool everywhere = true;
        for (const auto& [v2, f2] : shape.variants) {
          bool found = false;
          for (const auto& [k2, m2] : f2) found = found || k2 == key;
          everywhere = everywhere && found;
        }
        const std::string fp = path + "." + key;
        by_key[doc_key(fp)].push_back(Occurrence{fp, variant, &m, everywhere});
      }
    }
  }
  std::set<std::string> documented;
  std::ostringstream out;
  for (const auto& table : scenario_doc_tables()) {
    out << "<!-- generated table: " << table.id
        << " (fdsim schema scenario --markdown, from the loader and sim/scenario/field_docs.cpp;"
           " do not edit here) -->\n";
    out << "| path | type | unit | " << table.default_header << " | meaning |\n";
    out << "|---|---|---|---|---|\n";
    for (const auto& doc : scenario_field_docs()) {
      if (doc.table != table.id) continue;
      const std::string key(doc.path);
      documented.insert(key);
      std::string type, def;
      if (key.size() > 2 && key.compare(key.size() - 2, 2, "[]") == 0) {
        const std::string_view tp = template_at(key);
        type = tp.empty() ? "object" : "`<" + std::string(tp) + ">` object";
        def = std::string(doc.default_text);
      } else {
        auto it = by_key.find(key);
        if (it == by_key.end()) {
          problems.push_back(key + ": documented in sim/scenario/field_docs.cpp but read by no "
                                   "reader on the exploration scenarios");
          continue;
        }
        std::vector<std::pair<std::string, std::string>> types, defaults;
        bool every = true, varies = false;
        std::optional<json> constant;
        bool one_constant = true;
        for (const auto& o : it->second) {
          every = every && o.in_every_variant;
          types.emplace_back(type_text(o.m->spec, o.path), o.variant);
          std::string d;
          if (o.m->spec.required) {
            d = "required";
            one_constant = false;
          } else if (o.m->default_varies) {
            varies = true;
            one_constant = false;
          } else if (o.m->spec.has_default) {
            d = value_text(o.m->spec.def);
            if (constant && *constant != o.m->spec.def) one_constant = false;
            constant = o.m->spec.def;
          } else {
            one_constant = false;
          }
          defaults.emplace_back(d, o.variant);
        }
        type = grouped(types, true, "; ", true);  // which variants: see the default column
        if (!doc.constraint.empty()) type += ", " + std::string(doc.constraint);
        if (!doc.default_text.empty()) {
          def = std::string(doc.default_text);
          if (one_constant && constant) {
            const std::string c = value_text(*constant);
            if (def.compare(0, c.size(), c) != 0)
              problems.push_back(key + ": default_text \"" + def +
                                 "\" does not begin with the loader's default " + c);
          }
        } else if (varies) {
          problems.push_back(key + ": the default differs between runs (derived or per "
                                   "profile): give a default_text in sim/scenario/field_docs.cpp");
        } else {
          std::vector<std::pair<std::string, std::string>> nonempty;
          for (const auto& p : defaults)
            if (!p.first.empty()) nonempty.push_back(p);
          def = grouped(nonempty, every && nonempty.size() == defaults.size(), ", ", false);
        }
      }
      auto cell = [](std::string_view s) {
        return s.empty() ? std::string(" |") : " " + std::string(s) + " |";
      };
      out << "| `" << key << "` |" << cell(type) << cell(doc.unit) << cell(def)
          << cell(doc.description) << "\n";
    }
    out << "<!-- end of generated table -->\n";
  }
  for (const auto& [key, occ] : by_key)
    if (!documented.count(key))
      problems.push_back(key + ": read by " + occ.front().path +
                         " but not described in sim/scenario/field_docs.cpp");
  return out.str();
}

}  // namespace fdsim::scenario
