#include "sim/net/config.h"

#include <cstdio>
#include <filesystem>

#include "sim/net/delay_samples.h"
#include "sim/scenario/data_file.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::net {

using scenario::ObjectReader;

namespace {

constexpr double kMaxMs = 1e9;  // about 11.6 days: any larger one-way delay is a typo

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// A required number > exclusive_min.
double required_above(ObjectReader& r, std::string_view key, double exclusive_min, double def) {
  scenario::FieldSpec spec;
  spec.type = scenario::FieldSpec::Type::number;
  spec.min = exclusive_min;
  spec.min_exclusive = true;
  spec.max = kMaxMs;
  spec.required = true;
  r.declare(key, std::move(spec));
  if (!r.has(key)) {
    r.consume(key);
    r.error(key, "required field is missing (expected a number > " + fmt(exclusive_min) + ")");
    return def;
  }
  return r.positive(key, def, exclusive_min, kMaxMs);
}

std::string resolve_path(const std::string& file, const std::string& base_dir) {
  std::filesystem::path p(file);
  if (p.is_absolute() || base_dir.empty()) return p.string();
  return (std::filesystem::path(base_dir) / p).string();
}

}  // namespace

std::shared_ptr<const LatencyModel> parse_latency_model(ObjectReader& r,
                                                        const std::string& base_dir,
                                                        double def_ms) {
  auto& diag = r.diagnostics();
  const size_t before = diag.problems.size();
  if (!r.present()) {
    r.enumeration("model", "constant", {"constant"});
    return constant_latency(r.number("ms", def_ms, 0, kMaxMs));
  }
  const std::string model = r.required_enumeration(
      "model", {"constant", "uniform", "exponential", "lognormal", "pareto", "empirical"});
  if (diag.problems.size() != before) {
    // Unknown model: its parameters cannot be checked; do not also report them as unknown.
    for (const char* k : {"ms", "min_ms", "max_ms", "mean_ms", "median_ms", "sigma", "alpha", "file"})
      if (r.has(k)) r.consume(k);
    return constant_latency(def_ms);
  }
  std::shared_ptr<const LatencyModel> out;
  if (model == "constant") {
    const double ms = r.required_number("ms", 0, kMaxMs);
    if (diag.problems.size() == before) out = constant_latency(ms);
  } else if (model == "uniform") {
    const double lo = r.required_number("min_ms", 0, kMaxMs);
    const double hi = r.required_number("max_ms", 0, kMaxMs);
    if (diag.problems.size() == before && hi < lo)
      r.error("max_ms", "expected max_ms >= min_ms (" + fmt(lo) + "), got " + fmt(hi));
    if (diag.problems.size() == before) out = uniform_latency(lo, hi);
  } else if (model == "exponential") {
    const double lo = r.required_number("min_ms", 0, kMaxMs);
    const double mean = r.required_number("mean_ms", 0, kMaxMs);
    if (diag.problems.size() == before && mean <= lo)
      r.error("mean_ms", "expected mean_ms > min_ms (" + fmt(lo) + "), got " + fmt(mean));
    if (diag.problems.size() == before) out = exponential_latency(lo, mean);
  } else if (model == "lognormal") {
    const double lo = r.required_number("min_ms", 0, kMaxMs);
    const double median = r.required_number("median_ms", 0, kMaxMs);
    const double sigma = r.required_number("sigma", 0, 20);
    if (diag.problems.size() == before && median <= lo)
      r.error("median_ms", "expected median_ms > min_ms (" + fmt(lo) + "), got " + fmt(median));
    if (diag.problems.size() == before) out = lognormal_latency(lo, median, sigma);
  } else if (model == "pareto") {
    const double lo = required_above(r, "min_ms", 0, 1);
    const double alpha = required_above(r, "alpha", 1, 2);
    if (diag.problems.size() == before) out = pareto_latency(lo, alpha);
  } else {  // empirical
    const std::string file = r.required_string("file");
    if (diag.problems.size() == before) {
      std::string err;
      std::string digest;
      std::vector<double> samples =
          load_delay_samples_ms(resolve_path(file, base_dir), err, &digest);
      if (!err.empty()) {
        r.error("file", err);
        r.consume("file_digest");
      } else {
        // The content's digest joins the resolved scenario, hence the run identity: a changed
        // file is a different run for resume and merge (sim/scenario/data_file.h).
        scenario::record_data_digest(r, "file", digest);
        out = empirical_latency(std::move(samples));
      }
    }
  }
  return out ? out : constant_latency(def_ms);
}

NetworkConfig parse_network_config(ObjectReader& network, const scenario::NodesConfig& nodes,
                                   const std::string& base_dir) {
  NetworkConfig cfg;
  network.object("latency",
                 [&](ObjectReader& r) { cfg.latency = parse_latency_model(r, base_dir, 1.0); });
  cfg.loss = network.probability("loss", 0.0);
  cfg.retransmit_interval = Duration::from_ms(network.positive("retransmit_ms", 100, 0, kMaxMs));
  // The event-rate budget (sim/scenario/event_rate.h): a reliable message is resent every
  // retransmit_ms until acknowledged; with one pending message per node, estimate =
  // nodes.count / retransmit_ms.
  scenario::check_period(network, "retransmit_ms", cfg.retransmit_interval, double(nodes.count),
                         "nodes.count " + std::to_string(nodes.count));
  cfg.reliable_give_up = network.duration_s("reliable_give_up_s", 60, 0, 1e9);
  network.objects("links", [&](ObjectReader& r, size_t) {
    LinkOverride o;
    o.from = scenario::parse_node_set(r, "from", nodes);
    o.to = scenario::parse_node_set(r, "to", nodes);
    const bool has_latency = r.has("latency");
    if (has_latency) {
      r.object("latency", [&](ObjectReader& lr) {
        if (lr.present()) o.latency = parse_latency_model(lr, base_dir, 1.0);
      });
    } else {
      r.consume("latency");
      r.set_resolved("latency", nullptr);
    }
    o.loss = r.optional_number("loss", 0.0, 1.0);
    if (!has_latency && !r.has("loss"))
      r.error("a link override needs \"latency\" or \"loss\" (or both)");
    cfg.overrides.push_back(std::move(o));
  });
  return cfg;
}

}  // namespace fdsim::net
