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


// A non-Poisson arrival process (arrival_process.h) of `arrival_processes[]`; `nodes_in_set`
// for the event-rate budget.
ArrivalProcessSpec parse_arrival_process(ObjectReader& p, const std::string& base_dir,
                                         size_t nodes_in_set) {
  ArrivalProcessSpec spec;
  const std::string model =
      p.required_enumeration("model", {"mmpp2", "batch_poisson", "trace"});
  const std::string set_text = "nodes " + std::to_string(nodes_in_set);
  if (model == "mmpp2") {
    spec.kind = ArrivalProcessSpec::Kind::mmpp2;
    spec.rate_per_s[0] = p.required_number("rate_low_per_s", 0.0, kMaxArrivalRatePerS);
    spec.rate_per_s[1] = p.required_number("rate_high_per_s", 0.0, kMaxArrivalRatePerS);
    spec.mean_sojourn_s[0] = p.required_number("mean_low_s", 1e-3, 1e9);
    spec.mean_sojourn_s[1] = p.required_number("mean_high_s", 1e-3, 1e9);
    // (A refused value reads as its default: the derived checks below need sane sojourns.)
    if (!(spec.mean_sojourn_s[0] >= 1e-3 && spec.mean_sojourn_s[1] >= 1e-3)) return spec;
    if (spec.rate_per_s[0] + spec.rate_per_s[1] <= 0) {
      p.error("rate_high_per_s", "expected a number > 0 (both rates are 0: no arrivals ever)");
      return spec;
    }
    // Each state switch is a draw, not an event, but it is work: at most 1e6 switches per
    // arrival on average, and switches count in the event-rate budget.
    const double switches_per_s = 2.0 / (spec.mean_sojourn_s[0] + spec.mean_sojourn_s[1]);
    const double mean_rate = spec.mean_rate_per_s();
    if (switches_per_s > 1e6 * mean_rate)
      p.error("mean_low_s", "the state switches about " + scenario::rate_text(switches_per_s) +
                                " times per second but brings only " +
                                scenario::rate_text(mean_rate) +
                                " arrivals per second: at most 1e6 switches per arrival");
    scenario::check_event_rate(p, "rate_high_per_s",
                               double(nodes_in_set) * (std::max(spec.rate_per_s[0],
                                                                spec.rate_per_s[1]) +
                                                       switches_per_s),
                               set_text + " x (max(rate_low_per_s, rate_high_per_s) + " +
                                   "2 / (mean_low_s + mean_high_s))");
  } else if (model == "batch_poisson") {
    spec.kind = ArrivalProcessSpec::Kind::batch_poisson;
    spec.batch_rate_per_s = p.required_positive("batch_rate_per_s", 0.0, kMaxArrivalRatePerS);
    p.object("batch_size", [&](ObjectReader& b) {
      const std::string law =
          b.enumeration("distribution", "deterministic", {"deterministic", "geometric", "uniform"});
      if (law == "deterministic") {
        spec.batch.law = BatchSizeLaw::deterministic;
        spec.batch.value = uint64_t(b.required_integer("value", 1, 1'000'000));
      } else if (law == "geometric") {
        spec.batch.law = BatchSizeLaw::geometric;
        spec.batch.mean = b.required_number("mean", 1.0, 1e6);
      } else {
        spec.batch.law = BatchSizeLaw::uniform;
        spec.batch.min = uint64_t(b.required_integer("min", 1, 1'000'000));
        spec.batch.max = uint64_t(b.required_integer("max", 1, 1'000'000));
        if (spec.batch.max < spec.batch.min) b.error("max", "expected an integer >= min");
      }
    });
    const double rate = spec.mean_rate_per_s();
    if (rate > kMaxArrivalRatePerS)
      p.error("batch_rate_per_s", "batch_rate_per_s x mean batch size = " +
                                      scenario::rate_text(rate) + " tasks per second per node; "
                                      "at most " + scenario::rate_text(kMaxArrivalRatePerS));
    scenario::check_event_rate(p, "batch_rate_per_s", double(nodes_in_set) * rate,
                               set_text + " x batch_rate_per_s x mean batch size");
  } else {
    spec.kind = ArrivalProcessSpec::Kind::trace;
    const std::string file = p.required_string("file");
    spec.loop = p.boolean("loop", false);
    const double period_s = spec.loop ? p.required_positive("period_s", 0.0, 1e9)
                                      : p.number("period_s", 0.0, 0.0, 1e9);
    spec.period = Duration::from_seconds(period_s);
    spec.node_offset = Duration::from_seconds(p.number("node_offset_s", 0.0, 0.0, 1e9));
    if (file.empty()) return spec;
    const std::string path = file.front() == '/' || base_dir.empty() ? file : base_dir + "/" + file;
    std::string error;
    const auto data = scenario::read_data_file(path, "arrival trace file", error);
    if (!data) {
      p.error("file", error);
      p.consume("file_digest");
      return spec;
    }
    scenario::NumberFormat format;
    format.min = 0.0;
    format.max = 1e9;
    format.one_per_line = true;
    format.expectation = "expected one arrival instant in seconds >= 0 and <= 1e9 per line";
    format.empty_message = "no arrival instants in the file";
    const auto values = scenario::parse_numbers(path, *data, format, error);
    if (!values) {
      p.error("file", error);
      p.consume("file_digest");
      return spec;
    }
    scenario::record_data_digest(p, "file", data->digest);
    auto instants = std::make_shared<std::vector<SimTime>>();
    instants->reserve(values->size());
    for (size_t i = 0; i < values->size(); ++i) {
      if (i > 0 && (*values)[i] < (*values)[i - 1]) {
        p.error("file", path + ":" + std::to_string(i + 1) +
                            ": arrival instants must not decrease (line " +
                            std::to_string(i + 1) + " is earlier than the line before)");
        return spec;
      }
      instants->push_back(SimTime::from_seconds((*values)[i]));
    }
    if (spec.loop && instants->back() >= SimTime::zero() + spec.period)
      p.error("period_s", "expected a period longer than the trace's last instant (" +
                              scenario::rate_text(instants->back().seconds()) + " s)");
    spec.instants = std::move(instants);
    if (spec.loop)
      scenario::check_event_rate(p, "period_s", double(nodes_in_set) * spec.mean_rate_per_s(),
                                 set_text + " x rows / period_s");
  }
  return spec;
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
  // Non-Poisson processes: each node at most one, and not together with load phases (which
  // change a Poisson rate).
  cfg.process_of_node.assign(n, -1);
  cfg.process_rank.assign(n, 0);
  w.objects("arrival_processes", [&](ObjectReader& p, size_t index) {
    const std::vector<NodeId> set = scenario::parse_node_set(p, "nodes", nodes, true);
    cfg.processes.push_back(parse_arrival_process(p, base_dir, set.size()));
    for (size_t k = 0; k < set.size(); ++k) {
      const NodeId node = set[k];
      if (cfg.process_of_node[node] >= 0) {
        p.error("nodes", "node " + std::to_string(node) + " already has an arrival process (entry " +
                             std::to_string(cfg.process_of_node[node]) + ")");
        return;
      }
      if (!changes[node].empty()) {
        p.error("nodes", "node " + std::to_string(node) +
                             " also has load_phases, which change a Poisson rate: give it one or "
                             "the other");
        return;
      }
      cfg.process_of_node[node] = int32_t(index);
      cfg.process_rank[node] = k;
    }
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
