#include "sim/scenario/top_level.h"

#include <cstdio>

namespace fdsim::scenario {

namespace {
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  return buf;
}
}  // namespace

bool valid_scenario_name(const std::string& name) {
  if (name.empty() || name.size() > 100 || name.front() == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

TopLevel parse_top_level(ObjectReader& root) {
  TopLevel t;
  const size_t errors_before_name = root.diagnostics().problems.size();
  t.name = root.required_string("name");
  if (root.diagnostics().problems.size() == errors_before_name && !valid_scenario_name(t.name)) {
    root.error("name",
               "expected 1 to 100 letters, digits, '.', '_' or '-' not starting with '.' (the "
               "name is used in result file names), got " +
                   describe(json(t.name)));
  }
  t.description = root.string("description", "");
  t.seed = root.seed("seed", 1);
  t.replications = root.integer("replications", 1, 1, kMaxReplications);

  // horizon_s: required, > 0.
  {
    FieldSpec spec;
    spec.type = FieldSpec::Type::number;
    spec.min = 0.0;
    spec.min_exclusive = true;
    spec.max = kMaxHorizonS;
    spec.required = true;
    root.declare("horizon_s", std::move(spec));
    FieldSpec nodes;
    nodes.type = FieldSpec::Type::object;
    nodes.required = true;
    root.declare("nodes", std::move(nodes));
  }
  if (!root.has("horizon_s")) {
    root.consume("horizon_s");
    root.error("horizon_s", "required field is missing (expected a number > 0 and <= 1e+09)");
    root.set_resolved("horizon_s", 0.0);
  } else {
    t.horizon_s = root.positive("horizon_s", 0.0, 0.0, kMaxHorizonS);
  }
  const size_t before_warmup = root.diagnostics().problems.size();
  t.warmup_s = root.number("warmup_s", 0.0, 0.0, kMaxHorizonS);
  if (root.diagnostics().problems.size() == before_warmup && t.horizon_s > 0.0 &&
      t.warmup_s >= t.horizon_s) {
    root.error("warmup_s", "expected warmup_s < horizon_s (" + short_number(t.horizon_s) +
                               "), got " + short_number(t.warmup_s));
    t.warmup_s = 0.0;
  }
  t.horizon = SimTime::from_seconds(t.horizon_s);
  t.warmup_end = SimTime::from_seconds(t.warmup_s);

  if (!root.has("nodes")) {
    root.consume("nodes");
    root.error("nodes", "required field is missing (expected an object such as {\"count\": 10})");
    root.set_resolved("nodes", json::object());
  } else if (!root.raw("nodes")->is_object()) {
    // Only this problem: reading the fields of a non-object would add "count is missing".
    root.consume("nodes");
    root.error("nodes", "expected an object such as {\"count\": 10}, got " +
                            describe(*root.raw("nodes")));
    root.set_resolved("nodes", json::object());
  } else {
    root.object("nodes", [&](ObjectReader& r) { t.nodes = parse_nodes(r); });
  }
  root.object("metrics", [&](ObjectReader& r) {
    t.metrics.per_node = r.boolean("per_node", false);
  });
  root.object("output", [&](ObjectReader& r) { t.output.trace = r.boolean("trace", false); });
  return t;
}

void skip_schema_key(ObjectReader& root) {
  const json* v = root.raw("$schema");
  root.consume("$schema");
  FieldSpec spec;
  spec.type = FieldSpec::Type::string;
  root.declare("$schema", std::move(spec));
  if (v != nullptr && !v->is_string())
    root.error("$schema", "expected a string (the URL or path of a JSON Schema), got " +
                              describe(*v));
}

ModelSections check_model_sections(ObjectReader& root) {
  ModelSections s;
  s.membership = root.has("membership");
  s.workload = root.has("workload");
  s.load_sharing = root.has("load_sharing");
  s.detectors = root.has("detectors");
  if (!s.membership && !s.workload && !s.load_sharing && !s.detectors) {
    root.error(
        "expected a model section: 'membership' (the Geode ring), 'load_sharing' with "
        "'workload' (load sharing), or 'detectors' (the pairwise heartbeat study); none is "
        "present");
  }
  if (s.workload && !s.load_sharing) {
    root.error("workload", "a 'workload' needs a 'load_sharing' section (only load sharing "
                           "runs tasks); add one or remove the workload");
  }
  if (s.load_sharing && !s.workload) {
    root.error("load_sharing",
               "a 'load_sharing' section needs a 'workload' section (task arrivals, execution "
               "times, deadlines)");
  }
  if (s.detectors && (s.membership || s.load_sharing)) {
    root.error("detectors",
               std::string("the heartbeat study runs only in a scenario without ") +
                   (s.load_sharing ? "'load_sharing'" : "'membership'") +
                   " (it would be ignored); put it in a scenario of its own");
  }
  return s;
}

}  // namespace fdsim::scenario
