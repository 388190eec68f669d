#pragma once
// The one-line description of every scenario field, by JSON path pattern: the text of the
// reference tables in docs/scenario-format.md and of the "description" of each property of
// the JSON Schema (`fdsim schema scenario`). Types, ranges, enum values, required flags and
// constant defaults are NOT written here: they come from the readers themselves
// (sim/scenario/field_record.h), so the document and the schema cannot disagree with the
// loader.
//
// Contract (checked by tests/run/schema_test.cpp): every field a reader reads on some variant
// of the exploration scenarios (sim/run/schema_explorer.h) has exactly one entry here, and
// every entry is read by some reader. A `default_text` is only for defaults that are not one
// constant (derived from another field, per profile, per variant) or to explain a constant,
// in which case it must begin with the constant as the tables render it.

#include <string>
#include <string_view>
#include <vector>

namespace fdsim::scenario {

struct FieldDoc {
  std::string_view table;  // reference table it is listed in (DocTable::id)
  std::string_view path;   // "$.nodes.count", or a template field "<latency>.min_ms"
  std::string_view unit;   // "ms", "s", "probability", ... ("" for none)
  std::string_view default_text;  // "" = rendered from the reader's default
  std::string_view constraint;    // a rule between fields the schema cannot state ("> th_u")
  std::string_view description;
};

struct DocTable {
  std::string_view id;              // "nodes"
  std::string_view default_header;  // header of the default column
};

// Shared object formats documented once: fields under a mount point are documented as
// "<name>.field" ("$.faults[].duration.min_ms" -> "<latency>.min_ms").
struct DocTemplate {
  std::string_view name;
  std::vector<std::string_view> mounts;  // pattern paths of the objects ("$.network.latency")
};

const std::vector<FieldDoc>& scenario_field_docs();
const std::vector<DocTable>& scenario_doc_tables();
const std::vector<DocTemplate>& scenario_doc_templates();

// The documentation key of a pattern path: the path itself, or "<template>.rest" when it lies
// under a template's mount point. A mount point itself keeps its own path.
std::string doc_key(const std::string& pattern_path);

// nullptr if `key` is not documented.
const FieldDoc* find_field_doc(std::string_view key);

// The template mounted at `pattern_path`, or "" if none.
std::string_view template_at(const std::string& pattern_path);

}  // namespace fdsim::scenario
