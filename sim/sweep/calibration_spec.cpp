#include "sim/sweep/calibration_spec.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fdsim::sweep {

using nlohmann::json;

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

double round12(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return std::strtod(buf, nullptr);
}

void set_calibrated_value(const CalibrationSpec& spec, const JsonPath& path, json& scenario,
                          double x) {
  path.set(scenario, json(x));
  for (const auto& l : spec.linked) l.path.set(scenario, json(round12(l.scale * x + l.offset)));
}

std::optional<CalibrationSpec> read_calibration(scenario::ObjectReader& c) {
  const size_t before = c.diagnostics().problems.size();
  CalibrationSpec spec;
  spec.where = c.path();
  spec.arm = c.string("arm", "");
  spec.metric = c.required_string("metric");
  if (c.has("metric") && c.raw("metric")->is_string() && spec.metric.empty())
    c.error("metric", "expected a metric name such as \"traffic.messages_per_node_s\", got \"\"");

  // "target": a number, or {"arm": "<arm name>"} (read by hand: two shapes).
  scenario::FieldSpec target_spec;
  target_spec.type = scenario::FieldSpec::Type::any;
  target_spec.required = true;
  c.declare("target", target_spec);
  const json* target = c.raw("target");
  c.consume("target");
  if (target == nullptr) {
    c.error("target", "required field is missing (expected a number, or {\"arm\": \"<arm "
                      "name>\"} to hit that arm's mean of the same metric)");
  } else if (target->is_number()) {
    spec.target_value = target->get<double>();
    if (!std::isfinite(*spec.target_value) || *spec.target_value == 0)
      c.error("target", "expected a finite number other than 0 (the tolerance is relative to "
                        "it), got " + scenario::describe(*target));
  } else if (target->is_object()) {
    if (target->size() != 1 || !target->contains("arm") || !(*target)["arm"].is_string() ||
        (*target)["arm"].get<std::string>().empty()) {
      c.error("target", "expected {\"arm\": \"<arm name>\"} (one key, a non-empty string), got " +
                            scenario::describe(*target));
    } else {
      spec.target_arm = (*target)["arm"].get<std::string>();
      if (spec.target_arm == spec.arm)
        c.error("target", "the target arm \"" + spec.target_arm +
                              "\" is the calibrated arm itself: name another arm");
    }
  } else {
    c.error("target", "expected a number, or {\"arm\": \"<arm name>\"}, got " +
                          scenario::describe(*target));
  }

  spec.tolerance_rel = c.positive("tolerance_rel", 0.002, 0.0, 0.5);

  // "bracket": [lo, hi], lo < hi, both finite.
  scenario::FieldSpec bracket_spec;
  bracket_spec.type = scenario::FieldSpec::Type::number_array;
  bracket_spec.required = true;
  c.declare("bracket", bracket_spec);
  const json* bracket = c.raw("bracket");
  c.consume("bracket");
  if (bracket == nullptr) {
    c.error("bracket", "required field is missing (expected [lo, hi]: the values searched)");
  } else if (!bracket->is_array() || bracket->size() != 2 || !(*bracket)[0].is_number() ||
             !(*bracket)[1].is_number()) {
    c.error("bracket", "expected [lo, hi] (two numbers), got " + scenario::describe(*bracket));
  } else {
    spec.lo = (*bracket)[0].get<double>();
    spec.hi = (*bracket)[1].get<double>();
    if (!std::isfinite(spec.lo) || !std::isfinite(spec.hi) || !(spec.lo < spec.hi))
      c.error("bracket", "expected [lo, hi] with lo < hi, got [" + fmt(spec.lo) + ", " +
                             fmt(spec.hi) + "]");
  }
  spec.pilot_replications = c.integer("pilot_replications", 4, 1, kMaxPilotReplications);
  spec.max_iterations = c.integer("max_iterations", 40, 1, kMaxCalibrationIterations);
  c.objects("linked", [&](scenario::ObjectReader& l, size_t) {
    LinkedLeaf leaf;
    leaf.where = l.path();
    const std::string text = l.required_string("path");
    leaf.scale = l.number("scale", 1.0, -1e12, 1e12);
    leaf.offset = l.number("offset", 0.0, -1e15, 1e15);
    if (text.empty()) return;
    std::string error;
    auto path = JsonPath::parse(text, &error);
    if (!path) {
      l.error("path", error);
      return;
    }
    leaf.path = *path;
    spec.linked.push_back(std::move(leaf));
  });
  if (c.diagnostics().problems.size() != before) return std::nullopt;
  return spec;
}

}  // namespace fdsim::sweep
