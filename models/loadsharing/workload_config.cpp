// Parsing of the `workload` section (keys documented in config.h).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "models/loadsharing/config.h"
#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/data_file.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::loadsharing {

namespace {
constexpr double kMaxArrivalRatePerS = 1e4;
}  // namespace

namespace {

using scenario::ObjectReader;

// Reads whitespace/comma-separated numbers of seconds in [0, kMaxTaskSeconds] ('#' starts a
// comment to the end of line) through the guarded data-file reader (sim/scenario/data_file.h):
// regular files only, size limit, the content never echoed.
bool read_samples(const std::string& path, std::vector<double>& out, std::string& digest,
                  std::string& error) {
  const auto file = scenario::read_data_file(path, "execution times file", error);
  if (!file) return false;
  scenario::NumberFormat format;
  format.min = 0.0;
  format.max = kMaxTaskSeconds;
  format.one_per_line = false;
  format.commas = true;
  format.expectation = "expected execution times in seconds >= 0 and <= " +
                       scenario::rate_text(kMaxTaskSeconds) +
                       ", separated by spaces or commas (# starts a comment)";
  format.empty_message = "no execution times in the file";
  auto samples = scenario::parse_numbers(path, *file, format, error);
  if (!samples) return false;
  out = std::move(*samples);
  digest = file->digest;
  return true;
}

ExecTimeDistribution parse_exec_law(ObjectReader& r, const std::string& base_dir) {
  ExecTimeDistribution d;
  const std::string law =
      r.enumeration("distribution", "exponential",
                    {"exponential", "deterministic", "uniform", "lognormal", "empirical"});
  if (law == "exponential") {
    d.law = ExecLaw::exponential;
    d.rate_per_s = r.positive("rate_per_s", 1.0, 1.0 / kMaxTaskSeconds);
  } else if (law == "deterministic") {
    d.law = ExecLaw::deterministic;
    d.value_s = r.required_positive("value_s", 0.0, kMaxTaskSeconds);
  } else if (law == "uniform") {
    d.law = ExecLaw::uniform;
    d.min_s = r.number("min_s", 0.0, 0.0, kMaxTaskSeconds);
    d.max_s = r.required_number("max_s", 0.0, kMaxTaskSeconds);
    if (d.max_s < d.min_s || d.max_s <= 0) r.error("max_s", "expected a number > 0 and >= min_s");
  } else if (law == "lognormal") {
    d.law = ExecLaw::lognormal;
    d.mean_s_param = r.positive("mean_s", 1.0, 0.0, kMaxTaskSeconds);
    d.sigma = r.number("sigma", 0.5, 0.0, 10.0);
  } else {
    d.law = ExecLaw::empirical;
    const std::string file = r.required_string("file");
    if (!file.empty()) {
      const std::string path =
          file.front() == '/' || base_dir.empty() ? file : base_dir + "/" + file;
      std::string error;
      std::string digest;
      if (!read_samples(path, d.samples_s, digest, error)) {
        r.error("file", error);
        r.consume("file_digest");
      } else {
        scenario::record_data_digest(r, "file", digest);
        if (d.mean_s() <= 0)
          r.error("file", "the samples have mean 0; execution times must have a positive mean");
      }
    }
  }
  return d;
}

DeadlineDistribution parse_deadline(ObjectReader& r) {
  DeadlineDistribution d;
  const std::string kind = r.enumeration("kind", "uniform", {"fixed", "uniform", "laxity"});
  if (kind == "fixed") {
    d.rule = DeadlineRule::fixed;
    d.relative_s = r.positive("relative_s", 10.0, 0.0, kMaxTaskSeconds);
  } else if (kind == "uniform") {
    d.rule = DeadlineRule::uniform;
    d.min_s = r.number("min_s", 2.0, 0.0, kMaxTaskSeconds);
    d.max_s = r.number("max_s", 10.0, 0.0, kMaxTaskSeconds);
    if (d.max_s < d.min_s) r.error("max_s", "expected a number >= min_s");
  } else {
    d.rule = DeadlineRule::laxity;
    d.factor = r.positive("factor", 3.0, 0.0, 1e6);
  }
  return d;
}

}  // namespace

WorkloadConfig parse_workload_config(ObjectReader& w, const scenario::NodesConfig& nodes,
                                     const std::string& base_dir) {
  WorkloadConfig cfg;
  const size_t n = nodes.count;

  // Arrivals: a base rate, then phases that override it per node from their from_s on.
  // The event-rate budget (sim/scenario/event_rate.h): at least one event per arrival, so
  // estimate = nodes.count x arrival_rate_per_s for the base rate, and nodes x rate_per_s for
  // each phase (its node set).
  // At most kMaxArrivalRatePerS tasks per second per node: a node offered far more than it can
  // serve holds an ever longer queue, and each arrival's guarantee test walks it, so an extreme
  // rate made even a half-second run take minutes (edge fuzzer, issue 24).
  const double base_rate = w.number("arrival_rate_per_s", 0.5, 0.0, kMaxArrivalRatePerS);
  scenario::check_event_rate(w, "arrival_rate_per_s", double(n) * base_rate,
                             "nodes.count " + std::to_string(n) + " x arrival_rate_per_s " +
                                 scenario::rate_text(base_rate));
  // Every finished task keeps its response time, and its record lives until then
  // (sim/scenario/cost_estimate.h: 8 B per task over the horizon).
  scenario::add_stored_rate(w, "arrival_rate_per_s", double(n) * base_rate * 8.0,
                            "8 B per task: nodes.count " + std::to_string(n) +
                                " x arrival_rate_per_s " + scenario::rate_text(base_rate));
  struct Change {
    SimTime from;
    size_t order;
    double rate;
  };
  std::vector<std::vector<Change>> changes(n);
  w.objects("load_phases", [&](ObjectReader& p, size_t index) {
    const std::vector<NodeId> set = scenario::parse_node_set(p, "nodes", nodes, true);
    const double from_s = p.required_number("from_s", 0.0, 1e9);
    const double rate = p.required_number("rate_per_s", 0.0, kMaxArrivalRatePerS);
    scenario::check_event_rate(p, "rate_per_s", double(set.size()) * rate,
                               "nodes " + std::to_string(set.size()) + " x rate_per_s " +
                                   scenario::rate_text(rate));
    for (NodeId node : set) changes[node].push_back({SimTime::from_seconds(from_s), index, rate});
  });
  cfg.arrivals.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::stable_sort(changes[i].begin(), changes[i].end(),
                     [](const Change& a, const Change& b) { return a.from < b.from; });
    std::vector<RatePhase> phases{{SimTime::zero(), base_rate}};
    for (const Change& c : changes[i]) {
      if (c.from == phases.back().from)
        phases.back().rate_per_s = c.rate;
      else
        phases.push_back({c.from, c.rate});
    }
    cfg.arrivals.emplace_back(std::move(phases));
  }

  // Execution times: a default law and per-node-set overrides (later overrides win).
  w.object("execution",
           [&](ObjectReader& e) { cfg.exec_laws.push_back(parse_exec_law(e, base_dir)); });
  cfg.exec_law_of_node.assign(n, 0);
  w.objects("execution_overrides", [&](ObjectReader& o, size_t) {
    const std::vector<NodeId> set = scenario::parse_node_set(o, "nodes", nodes, false, true);
    cfg.exec_laws.push_back(parse_exec_law(o, base_dir));
    for (NodeId node : set) cfg.exec_law_of_node[node] = cfg.exec_laws.size() - 1;
  });

  w.object("deadline", [&](ObjectReader& d) { cfg.deadline = parse_deadline(d); });
  return cfg;
}

}  // namespace fdsim::loadsharing
