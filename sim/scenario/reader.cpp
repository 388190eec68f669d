#include "sim/scenario/reader.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/scenario/suggest.h"

namespace fdsim::scenario {

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string describe(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return "the string \"" + one_line(s) + "\"";  // one line, whatever the string holds
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

namespace {
std::string fmt_num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  return buf;
}
std::string range_text(double min, double max, bool min_exclusive = false) {
  const bool has_min = min > -1e299, has_max = max < 1e299;
  if (has_min && has_max) {
    return std::string(min_exclusive ? "> " : ">= ") + fmt_num(min) + " and <= " + fmt_num(max);
  }
  if (has_min) return std::string(min_exclusive ? "> " : ">= ") + fmt_num(min);
  if (has_max) return "<= " + fmt_num(max);
  return "";
}
std::string irange_text(int64_t min, int64_t max) {
  const bool has_min = min != INT64_MIN, has_max = max != INT64_MAX;
  if (has_min && has_max) return ">= " + std::to_string(min) + " and <= " + std::to_string(max);
  if (has_min) return ">= " + std::to_string(min);
  if (has_max) return "<= " + std::to_string(max);
  return "";
}
std::string with_range(const std::string& what, const std::string& range) {
  return range.empty() ? what : what + " " + range;
}

using Type = FieldSpec::Type;
FieldSpec spec_of(Type t) {
  FieldSpec s;
  s.type = t;
  return s;
}
FieldSpec int_spec(int64_t min, int64_t max, Type t = Type::integer) {
  FieldSpec s = spec_of(t);
  if (min != INT64_MIN) s.min = min;
  if (max != INT64_MAX) s.max = max;
  return s;
}
FieldSpec num_spec(double min, double max, bool min_exclusive = false, Type t = Type::number) {
  FieldSpec s = spec_of(t);
  if (min > -1e299) s.min = min;
  if (max < 1e299) s.max = max;
  s.min_exclusive = min_exclusive;
  return s;
}
FieldSpec with_default(FieldSpec s, json def) {
  s.has_default = true;
  s.def = std::move(def);
  return s;
}
FieldSpec required_spec(FieldSpec s) {
  s.required = true;
  return s;
}
}  // namespace

std::string pattern_of(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  bool in_index = false;
  for (char c : path) {
    if (c == '[') {
      in_index = true;
      out += "[]";
    } else if (c == ']') {
      in_index = false;
    } else if (!in_index) {
      out += c;
    }
  }
  return out;
}

ObjectReader::ObjectReader(const json* obj, std::string path, Diagnostics& diag, json& resolved)
    : obj_(obj), path_(std::move(path)), diag_(diag), resolved_(resolved) {
  if (obj_ != nullptr && !obj_->is_object()) {
    diag_.add(path_, "expected an object, got " + describe(*obj_));
    obj_ = nullptr;
    finished_ = true;
  }
  if (!resolved_.is_object()) resolved_ = json::object();
  if (diag_.recorder != nullptr && obj_ != nullptr) {
    record_ = diag_.recorder->objects.size();
    diag_.recorder->objects.push_back(ObjectRecord{pattern_of(path_), path_, {}, {}, {}});
  }
}

void ObjectReader::record(std::string_view key, FieldSpec spec) {
  if (record_ == SIZE_MAX) return;
  ObjectRecord& rec = diag_.recorder->objects[record_];
  for (const auto& d : rec.declared)
    if (d == key) return;  // declare() is authoritative
  FieldSpec* old = rec.find(std::string(key));
  if (old == nullptr) {
    rec.fields.emplace_back(std::string(key), std::move(spec));
    return;
  }
  if (spec.type == Type::any) return;  // a typed description is never replaced by a raw read
  const bool required = old->required || spec.required;
  *old = std::move(spec);
  if (required) {
    old->required = true;
    old->has_default = false;
    old->def = nullptr;
  }
}

void ObjectReader::record_enum_value(std::string_view key, const std::string& value) {
  if (record_ == SIZE_MAX) return;
  diag_.recorder->objects[record_].enum_values.emplace_back(std::string(key), value);
}

void ObjectReader::declare(std::string_view key, FieldSpec spec) {
  if (record_ == SIZE_MAX) return;
  ObjectRecord& rec = diag_.recorder->objects[record_];
  if (FieldSpec* old = rec.find(std::string(key))) {
    *old = std::move(spec);
  } else {
    rec.fields.emplace_back(std::string(key), std::move(spec));
  }
  rec.declared.emplace_back(key);
}

void ObjectReader::exclusive_max(std::string_view key) {
  if (record_ == SIZE_MAX) return;
  if (FieldSpec* s = diag_.recorder->objects[record_].find(std::string(key))) s->max_exclusive = true;
}

std::string ObjectReader::child_path(std::string_view key) const {
  return path_ + "." + std::string(key);
}

void ObjectReader::note_field(std::string_view key) {
  if (diag_.fields_read) diag_.fields_read->insert(pattern_of(child_path(key)));
}

bool ObjectReader::has(std::string_view key) const {
  return obj_ != nullptr && obj_->find(key) != obj_->end();
}

const json* ObjectReader::raw(std::string_view key) const {
  if (obj_ == nullptr) return nullptr;
  auto it = obj_->find(key);
  return it == obj_->end() ? nullptr : &*it;
}

void ObjectReader::consume(std::string_view key) {
  consumed_.insert(std::string(key));
  note_field(key);
  record(key, FieldSpec{});
}

void ObjectReader::set_resolved(std::string_view key, json value) {
  resolved_[std::string(key)] = std::move(value);
}

const json* ObjectReader::get(std::string_view key) {
  consume(key);
  return raw(key);
}

void ObjectReader::error(std::string_view key, std::string message) {
  diag_.add(child_path(key), std::move(message));
}
void ObjectReader::error(std::string message) { diag_.add(path_, std::move(message)); }

int64_t ObjectReader::integer(std::string_view key, int64_t def, int64_t min, int64_t max) {
  const json* v = get(key);
  record(key, with_default(int_spec(min, max), def));
  int64_t out = def;
  if (v != nullptr) {
    const std::string want = with_range("an integer", irange_text(min, max));
    bool ok = false;
    if (v->is_number_integer() && !v->is_number_unsigned()) {
      out = v->get<int64_t>();
      ok = true;
    } else if (v->is_number_unsigned()) {
      const uint64_t u = v->get<uint64_t>();
      if (u <= uint64_t(INT64_MAX)) {
        out = int64_t(u);
        ok = true;
      }
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
        out = int64_t(d);
        ok = true;
      }
    }
    if (!ok || out < min || out > max) {
      error(key, "expected " + want + ", got " + describe(*v));
      out = def;
    }
  }
  set_resolved(key, out);
  return out;
}

uint64_t ObjectReader::seed(std::string_view key, uint64_t def) {
  const json* v = get(key);
  record(key, with_default(int_spec(0, INT64_MAX), def));
  uint64_t out = def;
  if (v != nullptr) {
    if (v->is_number_unsigned() || (v->is_number_integer() && v->get<int64_t>() >= 0)) {
      out = v->get<uint64_t>();
    } else {
      error(key, "expected an integer >= 0, got " + describe(*v));
    }
  }
  set_resolved(key, out);
  return out;
}

double ObjectReader::number(std::string_view key, double def, double min, double max) {
  const json* v = get(key);
  record(key, with_default(num_spec(min, max), def));
  double out = def;
  if (v != nullptr) {
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < min ||
        v->get<double>() > max) {
      error(key, "expected " + with_range("a number", range_text(min, max)) + ", got " +
                     describe(*v));
    } else {
      out = v->get<double>();
    }
  }
  set_resolved(key, out);
  return out;
}

namespace {
// Nanoseconds per unit of a unit-suffixed time key ("period_ms" -> 1e6), or 0 for other keys.
double ns_per_unit(std::string_view key) {
  if (key.ends_with("_ns")) return 1.0;
  if (key.ends_with("_us")) return 1e3;
  if (key.ends_with("_ms")) return 1e6;
  if (key.ends_with("_s") && !key.ends_with("_per_s")) return 1e9;
  return 0.0;
}
std::string unit_of(std::string_view key) {
  return std::string(key.substr(key.rfind('_') + 1));
}
}  // namespace

double ObjectReader::positive(std::string_view key, double def, double exclusive_min,
                              double max) {
  const json* v = get(key);
  record(key, with_default(num_spec(exclusive_min, max, true), def));
  double out = def;
  if (v != nullptr) {
    if (!v->is_number() || !std::isfinite(v->get<double>()) ||
        v->get<double>() <= exclusive_min || v->get<double>() > max) {
      error(key, "expected " + with_range("a number", range_text(exclusive_min, max, true)) +
                     ", got " + describe(*v));
    } else if (const double ns = ns_per_unit(key); ns > 0 && v->get<double>() * ns < 0.5) {
      // A time that must be > 0 but rounds to 0 ns would schedule events at the same
      // instant forever (issue 16: member_timeout_ms 1e-7 passed and the run never advanced).
      error(key, "expected a time of at least 1 ns (" + describe(json(1.0 / ns)) + " " +
                     unit_of(key) + "), got " + describe(*v) + ", which rounds to 0 ns");
    } else {
      out = v->get<double>();
    }
  }
  set_resolved(key, out);
  return out;
}

std::optional<double> ObjectReader::optional_number(std::string_view key, double min, double max,
                                                    bool write_null) {
  const json* v = get(key);
  FieldSpec spec = with_default(num_spec(min, max), nullptr);
  spec.nullable = true;
  record(key, std::move(spec));
  if (v == nullptr || v->is_null()) {
    if (write_null) set_resolved(key, nullptr);
    return std::nullopt;
  }
  if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < min ||
      v->get<double>() > max) {
    error(key, "expected " + with_range("a number", range_text(min, max)) + " or null, got " +
                   describe(*v));
    if (write_null) set_resolved(key, nullptr);
    return std::nullopt;
  }
  set_resolved(key, v->get<double>());
  return v->get<double>();
}

bool ObjectReader::boolean(std::string_view key, bool def) {
  const json* v = get(key);
  record(key, with_default(spec_of(Type::boolean), def));
  bool out = def;
  if (v != nullptr) {
    if (!v->is_boolean())
      error(key, "expected true or false, got " + describe(*v));
    else
      out = v->get<bool>();
  }
  set_resolved(key, out);
  return out;
}

std::string ObjectReader::string(std::string_view key, std::string def) {
  const json* v = get(key);
  record(key, with_default(spec_of(Type::string), def));
  std::string out = std::move(def);
  if (v != nullptr) {
    if (!v->is_string())
      error(key, "expected a string, got " + describe(*v));
    else
      out = v->get<std::string>();
  }
  set_resolved(key, out);
  return out;
}

namespace {
std::string one_of(std::initializer_list<std::string_view> allowed) {
  std::string s = "one of ";
  bool first = true;
  for (auto a : allowed) {
    if (!first) s += ", ";
    s += "\"" + std::string(a) + "\"";
    first = false;
  }
  return s;
}
}  // namespace

std::string ObjectReader::enumeration(std::string_view key, std::string def,
                                      std::initializer_list<std::string_view> allowed) {
  const json* v = get(key);
  {
    FieldSpec spec = with_default(spec_of(Type::enumeration), def);
    for (auto a : allowed) spec.allowed.emplace_back(a);
    record(key, std::move(spec));
  }
  std::string out = std::move(def);
  if (v != nullptr) {
    bool ok = false;
    if (v->is_string()) {
      for (auto a : allowed)
        if (a == v->get<std::string>()) ok = true;
    }
    if (!ok)
      error(key, "expected " + one_of(allowed) + ", got " + describe(*v));
    else
      out = v->get<std::string>();
  }
  record_enum_value(key, out);
  set_resolved(key, out);
  return out;
}

Duration ObjectReader::duration_ms(std::string_view key, double def_ms, double min_ms,
                                   double max_ms) {
  return Duration::from_ms(number(key, def_ms, min_ms, max_ms));
}

Duration ObjectReader::duration_s(std::string_view key, double def_s, double min_s,
                                  double max_s) {
  return Duration::from_seconds(number(key, def_s, min_s, max_s));
}

int64_t ObjectReader::required_integer(std::string_view key, int64_t min, int64_t max) {
  record(key, required_spec(int_spec(min, max)));
  if (!has(key)) {
    consume(key);
    error(key, "required field is missing (expected " +
                   with_range("an integer", irange_text(min, max)) + ")");
    return min == INT64_MIN ? 0 : min;
  }
  return integer(key, min == INT64_MIN ? 0 : min, min, max);
}

double ObjectReader::required_number(std::string_view key, double min, double max) {
  record(key, required_spec(num_spec(min, max)));
  if (!has(key)) {
    consume(key);
    error(key, "required field is missing (expected " +
                   with_range("a number", range_text(min, max)) + ")");
    return min > -1e299 ? min : 0.0;
  }
  return number(key, min > -1e299 ? min : 0.0, min, max);
}

double ObjectReader::required_positive(std::string_view key, double exclusive_min, double max) {
  record(key, required_spec(num_spec(exclusive_min, max, true)));
  if (!has(key)) {
    consume(key);
    error(key, "required field is missing (expected " +
                   with_range("a number", range_text(exclusive_min, max, true)) + ")");
    return max;
  }
  return positive(key, max, exclusive_min, max);
}

std::string ObjectReader::required_string(std::string_view key) {
  record(key, required_spec(spec_of(Type::string)));
  if (!has(key)) {
    consume(key);
    error(key, "required field is missing (expected a string)");
    return {};
  }
  return string(key, {});
}

std::string ObjectReader::required_enumeration(std::string_view key,
                                               std::initializer_list<std::string_view> allowed) {
  {
    FieldSpec spec = required_spec(spec_of(Type::enumeration));
    for (auto a : allowed) spec.allowed.emplace_back(a);
    record(key, std::move(spec));
  }
  if (!has(key)) {
    consume(key);
    error(key, "required field is missing (expected " + one_of(allowed) + ")");
    return std::string(*allowed.begin());
  }
  return enumeration(key, std::string(*allowed.begin()), allowed);
}

std::vector<double> ObjectReader::numbers(std::string_view key, std::vector<double> def,
                                          double min, double max) {
  const json* v = get(key);
  record(key, with_default(num_spec(min, max, false, Type::number_array), def));
  std::vector<double> out = std::move(def);
  if (v != nullptr) {
    if (!v->is_array()) {
      error(key, "expected an array of numbers, got " + describe(*v));
    } else {
      std::vector<double> got;
      bool ok = true;
      for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!e.is_number() || !std::isfinite(e.get<double>()) || e.get<double>() < min ||
            e.get<double>() > max) {
          diag_.add(child_path(key) + "[" + std::to_string(i) + "]",
                    "expected " + with_range("a number", range_text(min, max)) + ", got " +
                        describe(e));
          ok = false;
        } else {
          got.push_back(e.get<double>());
        }
      }
      if (ok) out = std::move(got);
    }
  }
  set_resolved(key, out);
  return out;
}

std::vector<int64_t> ObjectReader::integers(std::string_view key, std::vector<int64_t> def,
                                            int64_t min, int64_t max) {
  const json* v = get(key);
  record(key, with_default(int_spec(min, max, Type::integer_array), def));
  std::vector<int64_t> out = std::move(def);
  if (v != nullptr) {
    if (!v->is_array()) {
      error(key, "expected an array of integers, got " + describe(*v));
    } else {
      std::vector<int64_t> got;
      bool ok = true;
      for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!e.is_number_integer() || e.get<int64_t>() < min || e.get<int64_t>() > max ||
            (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t(INT64_MAX))) {
          diag_.add(child_path(key) + "[" + std::to_string(i) + "]",
                    "expected " + with_range("an integer", irange_text(min, max)) + ", got " +
                        describe(e));
          ok = false;
        } else {
          got.push_back(e.get<int64_t>());
        }
      }
      if (ok) out = std::move(got);
    }
  }
  set_resolved(key, out);
  return out;
}

std::vector<std::string> ObjectReader::strings(std::string_view key,
                                               std::vector<std::string> def) {
  const json* v = get(key);
  record(key, with_default(spec_of(Type::string_array), def));
  std::vector<std::string> out = std::move(def);
  if (v != nullptr) {
    if (!v->is_array()) {
      error(key, "expected an array of strings, got " + describe(*v));
    } else {
      std::vector<std::string> got;
      bool ok = true;
      for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!e.is_string()) {
          diag_.add(child_path(key) + "[" + std::to_string(i) + "]",
                    "expected a string, got " + describe(e));
          ok = false;
        } else {
          got.push_back(e.get<std::string>());
        }
      }
      if (ok) out = std::move(got);
    }
  }
  set_resolved(key, out);
  return out;
}

void ObjectReader::object(std::string_view key, const std::function<void(ObjectReader&)>& fn) {
  const json* v = get(key);
  record(key, spec_of(Type::object));
  json& sub = resolved_[std::string(key)];
  sub = json::object();
  ObjectReader child(v, child_path(key), diag_, sub);
  fn(child);
  child.finish();
}

void ObjectReader::objects(std::string_view key,
                           const std::function<void(ObjectReader&, size_t)>& fn) {
  const json* v = get(key);
  record(key, spec_of(Type::object_array));
  json& arr = resolved_[std::string(key)];
  arr = json::array();
  if (v == nullptr) return;
  if (!v->is_array()) {
    error(key, "expected an array of objects, got " + describe(*v));
    return;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    arr.push_back(json::object());
    ObjectReader child(&(*v)[i], child_path(key) + "[" + std::to_string(i) + "]", diag_,
                       arr.back());
    if (child.present()) fn(child, i);
    child.finish();
  }
}

void ObjectReader::at_most_one_of(std::initializer_list<std::string_view> keys) {
  std::vector<std::string> present_keys;
  for (auto k : keys)
    if (has(k)) present_keys.emplace_back(k);
  if (present_keys.size() > 1) {
    std::string msg = "only one of ";
    for (size_t i = 0; i < present_keys.size(); ++i)
      msg += (i ? ", '" : "'") + present_keys[i] + "'";
    error(msg + " may be given");
  }
}

void ObjectReader::finish() {
  if (finished_) return;
  finished_ = true;
  if (obj_ == nullptr) return;
  std::vector<std::string> known;  // keys read but not given: the candidates of a typo
  std::vector<std::string> given;  // keys read and given: a typo may repeat one of them
  bool known_listed = false;
  for (auto it = obj_->begin(); it != obj_->end(); ++it) {
    if (consumed_.find(it.key()) != consumed_.end()) continue;
    if (!known_listed) {
      for (const auto& k : consumed_)
        (obj_->find(k) == obj_->end() ? known : given).push_back(k);
      known_listed = true;
    }
    std::string message = unknown_key_message(it.key(), known);
    // No absent key is close, but a given one is ("timeout_ms" and "timeuot_ms" both in the
    // file): still name it, so that the stray copy is recognised (issue 28).
    if (message == "unknown key") {
      const std::string close = suggest(it.key(), given);
      if (!close.empty())
        message = "unknown key (did you mean '" + close + "'? it is given too: remove one)";
    }
    diag_.add(child_path(it.key()), message);
  }
}

}  // namespace fdsim::scenario
