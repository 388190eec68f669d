#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/scenario/json_document.h"
#include "sim/scenario/reader.h"
#include "sim/scenario/top_level.h"
#include "sim/sweep/atomic_file.h"

namespace fdsim::sweep {

using nlohmann::json;
namespace fs = std::filesystem;

std::optional<json> read_json_file(const std::string& path, std::string* error) {
  // The one JSON reader (sim/scenario/json_document.h): same limits, same duplicate-key and
  // overflow rules as `validate`. Its lines are prefixed with the path; callers here add it
  // themselves, so it is taken off.
  scenario::JsonDocument d = scenario::read_json_file(path);
  if (d.ok()) return std::move(*d.doc);
  std::string joined;
  for (const auto& e : d.errors) {
    std::string line = e.rfind(path + ": ", 0) == 0 ? e.substr(path.size() + 2) : e;
    joined += (joined.empty() ? "" : "; ") + line;
  }
  *error = joined;
  return std::nullopt;
}

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// A computed axis value printed cleanly: 0.5 + 9 * 0.05 = 0.9500000000000001 becomes 0.95
// (12 significant digits), and an integral value of integral inputs stays a JSON integer.
json clean_value(double v, bool integral) {
  if (integral && std::fabs(v) < 9.0e15) return json(int64_t(std::llround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return json(std::strtod(buf, nullptr));
}

bool is_integral(const json& v) {
  return v.is_number_integer() ||
         (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
          std::fabs(v.get<double>()) < 9.0e15);
}

// Expands {"from", "to", "step"} or {"from", "to", "factor"} (reader positioned on it) into
// values: from + i * step (never accumulated) or from * factor^i, up to `to` included within a
// relative tolerance of 1e-9. nullopt after reporting a problem.
std::optional<std::vector<json>> expand_range(scenario::ObjectReader& r) {
  const size_t before = r.diagnostics().problems.size();
  r.at_most_one_of({"step", "factor"});
  const bool geometric = r.has("factor");
  if (!geometric && !r.has("step")) {
    r.error("a range needs \"step\" (from, from + step, ...) or \"factor\" (from, "
            "from x factor, ...)");
    r.consume("step");
    r.consume("factor");
  }
  const double from = r.required_number("from");
  const double to = r.required_number("to");
  const json* from_raw = r.raw("from");
  const json* to_raw = r.raw("to");
  double step = 0, factor = 0;
  if (geometric) {
    factor = r.required_positive("factor", 1.0);
    r.consume("step");
  } else if (r.has("step")) {
    step = r.required_positive("step", 0.0);
    r.consume("factor");
  }
  if (r.diagnostics().problems.size() != before) return std::nullopt;
  if (from > to) {
    r.error("from", "expected \"from\" <= \"to\", got " + fmt(from) + " > " + fmt(to));
    return std::nullopt;
  }
  if (geometric && from <= 0) {
    r.error("from", "expected a number > 0 for a geometric range, got " + fmt(from));
    return std::nullopt;
  }
  const double tol = 1e-9 * std::max({std::fabs(from), std::fabs(to), 1e-300});
  const double count = geometric ? std::floor(std::log(to / from) / std::log(factor) + 1e-9) + 1
                                 : std::floor((to - from) / step + 1e-9) + 1;
  if (!(count <= double(kMaxRangeValues))) {
    r.error("expected at most " + std::to_string(kMaxRangeValues) +
            " values, but the range has " + fmt(count));
    return std::nullopt;
  }
  const bool integral = is_integral(*from_raw) && is_integral(*to_raw) &&
                        (geometric ? is_integral(*r.raw("factor")) : is_integral(*r.raw("step")));
  std::vector<json> values;
  for (size_t i = 0; i < size_t(count); ++i) {
    const double v = geometric ? from * std::pow(factor, double(i)) : from + double(i) * step;
    if (v > to + tol) break;
    values.push_back(clean_value(v > to ? to : v, integral));
  }
  return values;
}

// Why `name` cannot name an axis ("" if it can): an identifier of at most kMaxAxisNameLength
// characters that is not one of the tidy export's fixed columns (sim/sweep/tidy_export.h).
std::string axis_name_problem(const std::string& name) {
  const auto ident = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  };
  bool ok = !name.empty() && name.size() <= kMaxAxisNameLength;
  for (size_t i = 0; ok && i < name.size(); ++i) ok = ident(name[i], i == 0);
  if (!ok)
    return "expected an identifier (a letter or '_', then letters, digits or '_'; at most " +
           std::to_string(kMaxAxisNameLength) + " characters), got \"" +
           (name.size() > 80 ? name.substr(0, 80) + "..." : name) + "\"";
  for (const char* fixed : {"run_id", "point", "seed", "replication", "arm", "metric", "value"})
    if (name == fixed)
      return "\"" + name + "\" is a fixed column of fdsim export (run_id, point, seed, "
             "replication, arm, metric, value): choose another name";
  return "";
}

// Describes a field read raw (checked by hand below) for the schema recorder.
scenario::FieldSpec raw_spec(scenario::FieldSpec::Type type, bool required) {
  scenario::FieldSpec s;
  s.type = type;
  s.required = required;
  return s;
}

class SpecParser {
 public:
  SpecParser(const json& doc, const std::string& source, scenario::FieldRecorder* recorder)
      : doc_(doc), source_(source) {
    diag_.recorder = recorder;
  }

  SpecOutcome parse() {
    SpecOutcome out;
    SweepSpec& spec = out.spec;
    spec.source = source_;
    spec.doc = doc_;
    if (!doc_.is_object()) {
      out.problems.push_back(source_ + ": $: expected a sweep object {\"base\": ..., \"axes\": "
                                       "[...]}, got " + scenario::describe(doc_));
      return out;
    }
    json resolved;
    scenario::ObjectReader r(&doc_, "$", diag_, resolved);
    scenario::skip_schema_key(r);
    spec.name = r.string("name", fs::path(source_).stem().string());
    spec.description = r.string("description", "");
    // No default: absent means each point's own (the integer() default below is never used).
    scenario::FieldSpec reps = raw_spec(scenario::FieldSpec::Type::integer, false);
    reps.min = 1;
    reps.max = scenario::kMaxReplications;
    r.declare("replications", std::move(reps));
    if (r.has("replications"))
      spec.replications = r.integer("replications", 1, 1, scenario::kMaxReplications);
    else
      r.consume("replications");  // a known key, for "did you mean"
    read_base(r, spec);
    read_axes(r, spec);
    read_constraint(r, spec);
    r.finish();
    if (diag_.ok()) check_axes_against_base(spec);
    for (const auto& p : diag_.problems) out.problems.push_back(source_ + ": " + p.str());
    return out;
  }

 private:
  void read_base(scenario::ObjectReader& r, SweepSpec& spec) {
    const json* base = r.raw("base");
    r.consume("base");
    r.declare("base", raw_spec(scenario::FieldSpec::Type::any, true));  // a path or a scenario
    if (base == nullptr) {
      r.error("base", "required field is missing (expected a scenario file path or object)");
      return;
    }
    if (base->is_object()) {
      spec.base = *base;
      spec.scenario_source = source_;
      return;
    }
    if (!base->is_string()) {
      r.error("base", "expected a scenario file path or object, got " + scenario::describe(*base));
      return;
    }
    fs::path p = base->get<std::string>();
    if (p.is_relative()) p = fs::path(source_).parent_path() / p;
    p = p.lexically_normal();
    scenario::JsonDocument base_doc = scenario::read_json_file(p.string());
    if (!base_doc.ok()) {
      // One problem per line of the reader, each naming the base file and its JSON path.
      for (const auto& e : base_doc.errors) r.error("base", "cannot load the base scenario: " + e);
      return;
    }
    json& loaded_doc = *base_doc.doc;
    json* loaded = &loaded_doc;
    if (!loaded->is_object()) {
      r.error("base", "the base scenario " + p.string() + " is not a JSON object");
      return;
    }
    spec.base = std::move(*loaded);
    spec.scenario_source = p.string();
  }

  std::optional<Axis> read_axis(scenario::ObjectReader& a, bool in_zip = false) {
    const std::string text = a.required_string("path");
    std::optional<JsonPath> path;
    if (!text.empty()) {
      std::string error;
      path = JsonPath::parse(text, &error);
      if (!path) a.error("path", error);
    }
    // A calibrated axis: "calibrate" instead of "values" (calibration_spec.h).
    std::optional<CalibrationSpec> calibration;
    if (a.has("calibrate")) {
      bool calibration_ok = true;
      if (in_zip) {
        a.error("calibrate", "a calibrated axis cannot be a zip member: give it its own axis");
        calibration_ok = false;
      }
      if (a.has("values")) {
        a.error("exactly one of \"values\" and \"calibrate\" must be given: a calibrated "
                "axis takes its one value per point from the calibration");
        a.consume("values");
        calibration_ok = false;
      }
      a.object("calibrate", [&](scenario::ObjectReader& c) { calibration = read_calibration(c); });
      const std::string name = read_axis_name(a);
      if (!path || !calibration || !calibration_ok) return std::nullopt;
      Axis axis{*path, {json(calibration->lo)}, name, std::move(calibration)};
      axis_where_.push_back(a.path());
      return axis;
    }
    a.consume("calibrate");  // a known key, for "did you mean"
    const json* values = a.raw("values");
    // A list or a range; required unless the axis is calibrated (checked by hand above).
    a.declare("values", raw_spec(scenario::FieldSpec::Type::any, false));
    std::optional<std::vector<json>> expanded;
    bool values_ok = false;
    if (values != nullptr && values->is_object()) {
      a.object("values", [&](scenario::ObjectReader& range) { expanded = expand_range(range); });
      values_ok = expanded.has_value();
    } else {
      a.consume("values");
    }
    if (values != nullptr && values->is_object()) {
      // a range: reported above
    } else if (values == nullptr) {
      a.error("values", "required field is missing (expected a non-empty array of values, a "
                        "range {\"from\", \"to\", \"step\" or \"factor\"}, or \"calibrate\" "
                        "instead of \"values\")");
    } else if (!values->is_array() || values->empty()) {
      a.error("values", "expected a non-empty array of values, got " + scenario::describe(*values));
    } else {
      values_ok = true;
    }
    const std::string name = read_axis_name(a);
    if (!path || !values_ok) return std::nullopt;
    Axis axis{*path, {}, name, std::nullopt};
    if (expanded) {
      axis.values = std::move(*expanded);
    } else {
      for (const json& v : *values) axis.values.push_back(v);
    }
    axis_where_.push_back(a.path());
    return axis;
  }

  // The axis's "name" ("" when absent or invalid, after reporting why).
  std::string read_axis_name(scenario::ObjectReader& a) {
    const json* name_raw = a.raw("name");
    std::string name = a.string("name", "");  // a non-string is reported here
    if (name_raw != nullptr && name_raw->is_string()) {
      const std::string why = axis_name_problem(name);
      if (!why.empty()) {
        a.error("name", why);
        name.clear();
      } else if (auto it = std::find(axis_names_.begin(), axis_names_.end(), name);
                 it != axis_names_.end()) {
        a.error("name", "\"" + name + "\" already names " +
                            axis_name_where_[size_t(it - axis_names_.begin())] +
                            ": each axis name may be used once");
        name.clear();
      } else {
        axis_names_.push_back(name);
        axis_name_where_.push_back(a.path());
      }
    }
    return name;
  }

  void read_axes(scenario::ObjectReader& r, SweepSpec& spec) {
    r.declare("axes", raw_spec(scenario::FieldSpec::Type::object_array, true));
    if (!r.has("axes")) {
      r.consume("axes");
      r.error("axes", "required field is missing (expected a non-empty array of axes)");
      return;
    }
    const json* axes = r.raw("axes");
    if (axes->is_array() && axes->empty()) {
      r.consume("axes");
      r.error("axes", "expected a non-empty array of axes, got an empty array");
      return;
    }
    // At most 1000 axes (zip members counted): merge and export read no more from a
    // sweep.json (plan.cpp, kMaxManifestAxes).
    size_t axis_count = 0;
    if (axes->is_array())
      for (const json& a : *axes)
        axis_count += a.is_object() && a.contains("zip") && a["zip"].is_array() ? a["zip"].size() : 1;
    if (axis_count > 1000) {
      r.consume("axes");
      r.error("axes", "expected at most 1000 axes (zip members counted), got " +
                          std::to_string(axis_count));
      return;
    }
    r.objects("axes", [&](scenario::ObjectReader& a, size_t) {
      if (!a.has("zip")) {
        if (auto axis = read_axis(a)) spec.groups.push_back(AxisGroup{{std::move(*axis)}});
        return;
      }
      a.declare("zip", raw_spec(scenario::FieldSpec::Type::object_array, true));
      a.at_most_one_of({"zip", "path"});
      a.at_most_one_of({"zip", "values"});
      const json* zip = a.raw("zip");
      if (!zip->is_array() || zip->empty()) {
        a.consume("zip");
        a.error("zip", "expected a non-empty array of {\"path\", \"values\"} objects, got " +
                           scenario::describe(*zip));
        return;
      }
      AxisGroup group;
      bool ok = true;
      a.objects("zip", [&](scenario::ObjectReader& z, size_t) {
        auto axis = read_axis(z, /*in_zip=*/true);
        if (!axis) {
          ok = false;
          return;
        }
        if (!group.axes.empty() && axis->values.size() != group.size()) {
          z.error("values", "has " + std::to_string(axis->values.size()) +
                                " values but the first axis of this zip has " +
                                std::to_string(group.size()) +
                                ": zipped axes need the same number of values");
          ok = false;
        }
        group.axes.push_back(std::move(*axis));
      });
      if (ok && group.axes.size() == zip->size()) spec.groups.push_back(std::move(group));
    });
  }

  void read_constraint(scenario::ObjectReader& r, SweepSpec& spec) {
    r.objects("constraint", [&](scenario::ObjectReader& c, size_t) {
      Condition cond;
      cond.where = c.path();
      const std::string text = c.required_string("path");
      std::string error;
      std::optional<JsonPath> path;
      if (!text.empty()) {
        path = JsonPath::parse(text, &error);
        if (!path) c.error("path", error);
      }
      cond.op = c.required_enumeration("op", {"==", "!=", "<", "<=", ">", ">="});
      // Exactly one of the two (checked below): neither is required on its own.
      c.declare("value", raw_spec(scenario::FieldSpec::Type::any, false));
      c.declare("other_path", raw_spec(scenario::FieldSpec::Type::string, false));
      const bool has_value = c.has("value"), has_other = c.has("other_path");
      if (has_value == has_other) {
        c.error("exactly one of \"value\" and \"other_path\" must be given");
        c.consume("value");
        c.consume("other_path");
        return;
      }
      if (has_value) {
        cond.value = *c.raw("value");
        c.consume("value");
      } else {
        const std::string other = c.string("other_path", "");
        cond.other_path = JsonPath::parse(other, &error);
        if (!cond.other_path) {
          c.error("other_path", error);
          return;
        }
      }
      if (!path) return;
      cond.path = *path;
      spec.constraint.push_back(std::move(cond));
    });
  }

  void check_axes_against_base(const SweepSpec& spec) {
    std::vector<const Axis*> all;
    for (const auto& g : spec.groups)
      for (const auto& a : g.axes) all.push_back(&a);
    for (size_t i = 0; i < all.size(); ++i) {
      const std::string why = all[i]->path.settable(spec.base, "the base scenario");
      if (!why.empty()) diag_.add(axis_where_[i] + ".path", why);
      for (size_t j = 0; j < i; ++j) {
        if (all[j]->path.is_prefix_of(all[i]->path) || all[i]->path.is_prefix_of(all[j]->path)) {
          diag_.add(axis_where_[i] + ".path",
                    all[i]->path.text() + " overlaps " + all[j]->path.text() + " (set by " +
                        axis_where_[j] + "): each place may be set by one axis only");
        }
      }
    }
  }

  const json& doc_;
  const std::string& source_;
  scenario::Diagnostics diag_;
  std::vector<std::string> axis_where_;  // "$.axes[1]" / "$.axes[2].zip[0]", in axis order
  std::vector<std::string> axis_names_, axis_name_where_;  // names given so far, and where
};

}  // namespace

SpecOutcome parse_sweep(const json& doc, const std::string& source_name,
                        scenario::FieldRecorder* recorder) {
  return SpecParser(doc, source_name, recorder).parse();
}

SpecOutcome load_sweep_file(const std::string& path) {
  scenario::JsonDocument d = scenario::read_json_file(path);
  if (!d.ok()) {
    SpecOutcome out;
    out.spec.source = path;
    out.problems = std::move(d.errors);  // each line already names the file
    return out;
  }
  return parse_sweep(*d.doc, path);
}

}  // namespace fdsim::sweep
