#pragma once
// Typed, path-tracking reading of JSON scenario sections.
//
// Contract: every model parses its own section with an ObjectReader. Each accessor
// - validates type and range, and on a problem records "<$.json.path>: expected ..., got ..."
//   in the shared Diagnostics and returns the default (so that every error of a file is found
//   in one pass, never just the first);
// - writes the value it resolved (given or default) into the resolved-config JSON, which is
//   echoed in every result file;
// - marks the key as consumed; finish() reports every key nobody consumed as an error.
// Reading never throws; callers check Diagnostics::ok() after the whole file.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/time.h"
#include "sim/scenario/field_record.h"

namespace fdsim::scenario {

using nlohmann::json;

// `text` with control characters escaped ("\n", "\t", "\x01"): a key or a path that holds a
// newline must not split one problem over two lines of output.
std::string one_line(std::string_view text);

struct Problem {
  std::string path;     // "$.faults[2].at_ms"
  std::string message;  // "expected an integer >= 0, got -5"
  std::string str() const { return one_line(path + ": " + message); }
};

struct CostEstimate;  // sim/scenario/cost_estimate.h

// Collects problems for one file, and optionally the set of field paths the loader reads
// (array indices written as [], e.g. "$.faults[].at_ms") for the format-reference test.
struct Diagnostics {
  std::vector<Problem> problems;
  std::set<std::string>* fields_read = nullptr;
  // If set, every reader records the spec of every field it reads (sim/scenario/field_record.h).
  FieldRecorder* recorder = nullptr;
  // If set, readers add their memory terms and event rates to it (cost_estimate.h).
  CostEstimate* cost = nullptr;
  bool ok() const { return problems.empty(); }
  void add(std::string path, std::string message) {
    problems.push_back({std::move(path), std::move(message)});
  }
};

// Renders a JSON value for "got ..." in messages (short, single line).
std::string describe(const json& v);

class ObjectReader {
 public:
  // `obj` may be null (section absent: every field takes its default). `resolved` receives the
  // resolved fields and must outlive the reader.
  ObjectReader(const json* obj, std::string path, Diagnostics& diag, json& resolved);

  const std::string& path() const { return path_; }
  bool present() const { return obj_ != nullptr; }
  bool has(std::string_view key) const;
  Diagnostics& diagnostics() { return diag_; }

  // Scalars with defaults. Ranges are inclusive unless stated.
  int64_t integer(std::string_view key, int64_t def, int64_t min = INT64_MIN,
                  int64_t max = INT64_MAX);
  uint64_t seed(std::string_view key, uint64_t def);
  double number(std::string_view key, double def, double min = -1e300, double max = 1e300);
  // As number() but the lower bound is exclusive (rates, sizes that must be > min).
  double positive(std::string_view key, double def, double exclusive_min = 0.0,
                  double max = 1e300);
  double probability(std::string_view key, double def) { return number(key, def, 0.0, 1.0); }
  bool boolean(std::string_view key, bool def);
  std::string string(std::string_view key, std::string def);
  std::string enumeration(std::string_view key, std::string def,
                          std::initializer_list<std::string_view> allowed);
  // Unit-suffixed times; the key must carry the unit ("period_ms", "horizon_s"). The default
  // upper bound (1e9 s, about 31 years) keeps every value convertible to int64 nanoseconds
  // with room for sums; a larger bound would let a huge input abort the conversion.
  Duration duration_ms(std::string_view key, double def_ms, double min_ms = 0.0,
                       double max_ms = 1e12);
  Duration duration_s(std::string_view key, double def_s, double min_s = 0.0,
                      double max_s = 1e9);

  // Required variants: a missing key is an error ("required").
  int64_t required_integer(std::string_view key, int64_t min = INT64_MIN, int64_t max = INT64_MAX);
  double required_number(std::string_view key, double min = -1e300, double max = 1e300);
  double required_positive(std::string_view key, double exclusive_min = 0.0, double max = 1e300);
  std::string required_string(std::string_view key);
  std::string required_enumeration(std::string_view key,
                                   std::initializer_list<std::string_view> allowed);

  // Optional scalar: absent -> nullopt and nothing written to resolved (or `null` if
  // write_null); present -> validated as number().
  std::optional<double> optional_number(std::string_view key, double min = -1e300,
                                        double max = 1e300, bool write_null = true);

  // Arrays of scalars.
  std::vector<double> numbers(std::string_view key, std::vector<double> def, double min = -1e300,
                              double max = 1e300);
  std::vector<int64_t> integers(std::string_view key, std::vector<int64_t> def,
                                int64_t min = INT64_MIN, int64_t max = INT64_MAX);
  std::vector<std::string> strings(std::string_view key, std::vector<std::string> def);

  // A nested object (absent -> a reader with every default). `fn` reads it and must call
  // finish() on the child (done for you if you use this overload).
  void object(std::string_view key, const std::function<void(ObjectReader&)>& fn);
  // An array of objects; `fn(reader, index)` for each element. Absent -> empty array.
  void objects(std::string_view key, const std::function<void(ObjectReader&, size_t)>& fn);

  // Reject combinations: at most one of `keys` may be present.
  void at_most_one_of(std::initializer_list<std::string_view> keys);
  // Records a semantic problem on this object (or on one key of it).
  void error(std::string_view key, std::string message);
  void error(std::string message);

  // Reports unconsumed keys ("unknown key", with "did you mean '...'?" when a key this reader
  // read is close), plus a type error if the value was present but not an object. Idempotent.
  void finish();

  // Raw access for fields with custom structure (use sparingly; still call consume()).
  const json* raw(std::string_view key) const;
  void consume(std::string_view key);
  void set_resolved(std::string_view key, json value);
  std::string child_path(std::string_view key) const;
  // Records that the upper bound of `key`, already read, is exclusive (the caller checks it).
  void exclusive_max(std::string_view key);
  // Describes a field for the schema recorder (no effect without one): for fields read with
  // raw() or read only in some cases (a time given as "<name>_s" or "<name>_ms").
  void declare(std::string_view key, FieldSpec spec);

 private:
  const json* get(std::string_view key);  // marks consumed, records the field path
  void note_field(std::string_view key);
  void record(std::string_view key, FieldSpec spec);
  void record_enum_value(std::string_view key, const std::string& value);

  const json* obj_;
  std::string path_;
  Diagnostics& diag_;
  json& resolved_;
  std::set<std::string, std::less<>> consumed_;
  bool finished_ = false;
  size_t record_ = SIZE_MAX;  // index into diag_.recorder->objects, if recording
};

// Pattern path of a concrete path: "$.faults[2].at_ms" -> "$.faults[].at_ms".
std::string pattern_of(std::string_view path);

}  // namespace fdsim::scenario
