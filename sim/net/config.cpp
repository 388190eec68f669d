#include "sim/net/config.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "sim/net/delay_samples.h"
#include "sim/net/delay_trace.h"
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

GilbertElliott parse_gilbert_elliott(ObjectReader& r) {
  GilbertElliott g;
  const size_t before = r.diagnostics().problems.size();
  r.required_enumeration("model", {"gilbert_elliott"});
  g.p_good_to_bad = r.required_positive("p_good_to_bad", 0, 1);
  g.p_bad_to_good = r.required_positive("p_bad_to_good", 0, 1);
  g.loss_good = r.probability("loss_good", 0.0);
  g.loss_bad = r.probability("loss_bad", 1.0);
  g.shared = r.enumeration("scope", "link", {"link", "group"}) == "group";
  // A chain that never loses has no bursts to model: almost certainly a typo.
  if (r.diagnostics().problems.size() == before && !(g.stationary_loss() > 0))
    r.error("loss_bad", "loss_good and loss_bad are both 0: the chain never loses a packet");
  return g;
}

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
      "model", {"constant", "uniform", "exponential", "lognormal", "pareto", "empirical",
                                 "trace"});
  if (diag.problems.size() != before) {
    // Unknown model: its parameters cannot be checked; do not also report them as unknown.
    for (const char* k : {"ms", "min_ms", "max_ms", "mean_ms", "median_ms", "sigma", "alpha", "file", "links",
                          "loop_ms"})
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
  } else if (model == "trace") {
    const std::string file = r.required_string("file");
    const bool shared = r.enumeration("links", "offset", {"offset", "shared"}) == "shared";
    const std::optional<double> loop_ms = r.optional_number("loop_ms", 0, 1e11, false);
    if (diag.problems.size() == before && loop_ms && !(*loop_ms > 0))
      r.error("loop_ms", "expected a number > 0, got " + fmt(*loop_ms));
    if (diag.problems.size() == before) {
      std::string err, digest;
      std::vector<TraceRow> rows =
          load_delay_trace_rows(resolve_path(file, base_dir), err, &digest);
      if (!err.empty()) {
        r.error("file", err);
        r.consume("file_digest");
      } else if (loop_ms && Duration::from_ms(*loop_ms).count_ns() <= rows.back().offset_ns) {
        r.error("loop_ms", "expected a loop longer than the trace's last offset (" +
                               fmt(double(rows.back().offset_ns) * 1e-6) + " ms), got " +
                               fmt(*loop_ms));
      } else {
        // The trace's digest joins the run identity (sim/scenario/data_file.h).
        scenario::record_data_digest(r, "file", digest);
        const int64_t loop_ns = loop_ms ? Duration::from_ms(*loop_ms).count_ns() : 0;
        out = std::make_shared<const TraceLatency>(std::move(rows), loop_ns, shared);
      }
    }
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
  network.at_most_one_of({"loss", "loss_model"});
  // Absent optional sections write nothing to the resolved config, so that scenarios without
  // them resolve (and their results hash) exactly as before.
  if (network.has("loss_model"))
    network.object("loss_model", [&](ObjectReader& r) { cfg.loss_model = parse_gilbert_elliott(r); });
  cfg.retransmit_interval = Duration::from_ms(network.positive("retransmit_ms", 100, 0, kMaxMs));
  // The event-rate budget (sim/scenario/event_rate.h): a reliable message is resent every
  // retransmit_ms until acknowledged; with one pending message per node, estimate =
  // nodes.count / retransmit_ms.
  scenario::check_period(network, "retransmit_ms", cfg.retransmit_interval, double(nodes.count),
                         "nodes.count " + std::to_string(nodes.count));
  cfg.reliable_give_up = network.duration_s("reliable_give_up_s", 60, 0, 1e9);
  size_t processes = 0;
  if (network.has("starved")) network.objects("starved", [&](ObjectReader& r, size_t) {
    StarvedEntry e;
    e.nodes = scenario::parse_node_set(r, "nodes", nodes, false, true);
    r.object("service", [&](ObjectReader& sr) {
      if (!sr.present()) {
        r.error("service", "required field is missing (a latency-model object: the service time of each work item)");
      }
      e.service = parse_latency_model(sr, base_dir, 1.0);
    });
    const bool process = r.has("mean_normal_s") || r.has("mean_starved_s");
    if (process) {
      for (const char* k : {"at_s", "duration_s"})
        if (r.has(k)) r.error(k, "a process entry (mean_normal_s, mean_starved_s) has no fixed window");
      // Both keys are needed, but only in a process entry (the schema cannot say "required"
      // for the whole array), so their absence is checked here.
      for (const char* k : {"mean_normal_s", "mean_starved_s"})
        if (!r.has(k)) r.error(k, "required field is missing (a process entry needs mean_normal_s and mean_starved_s)");
      e.mean_normal_s = r.positive("mean_normal_s", 1, 0, 1e9);
      e.mean_starved_s = r.positive("mean_starved_s", 1, 0, 1e9);
      e.start = SimTime::zero() + r.duration_s("start_s", 0);
      if (const auto stop = r.optional_number("stop_s", 0, 1e9, false))
        e.stop = SimTime::zero() + Duration::from_seconds(*stop);
      e.stream = processes == 0 ? "net.starved" : "net.starved#" + std::to_string(processes);
      ++processes;
      // Event-rate budget: two window events per node per cycle of mean_normal + mean_starved.
      scenario::check_event_rate(
          r, "mean_normal_s", 2.0 * double(e.nodes.size()) / (*e.mean_normal_s + *e.mean_starved_s),
          "2 x nodes " + std::to_string(e.nodes.size()) + " / (mean_normal_s + mean_starved_s) " +
              scenario::rate_text(*e.mean_normal_s + *e.mean_starved_s) + " s");
    } else {
      for (const char* k : {"start_s", "stop_s"})
        if (r.has(k)) r.error(k, "only a process entry (mean_normal_s, mean_starved_s) has " + std::string(k));
      e.at = SimTime::zero() + r.duration_s("at_s", 0);
      if (const auto d = r.optional_number("duration_s", 0, 1e9, false))
        e.end = e.at + Duration::from_seconds(*d);
    }
    e.queue_limit = size_t(r.integer("queue_limit", 0, 0, 1'000'000'000));
    e.drop_oldest = r.enumeration("drop", "newest", {"newest", "oldest"}) == "oldest";
    e.lifo = r.enumeration("order", "fifo", {"fifo", "lifo"}) == "lifo";
    e.timers_on_time = r.enumeration("timers", "wait", {"wait", "on_time"}) == "on_time";
    const std::string mode = r.enumeration("mode", "service", {"service", "stall", "inbound_delay"});
    e.mode = mode == "stall" ? StarveMode::stall
             : mode == "inbound_delay" ? StarveMode::inbound_delay : StarveMode::service;
    if (r.has("socket_buffer_packets") && e.mode != StarveMode::stall)
      r.error("socket_buffer_packets", "only a \"stall\" entry holds deliveries in a socket buffer");
    e.socket_buffer_packets = size_t(r.integer("socket_buffer_packets", 0, 0, 1'000'000'000));
    if (r.has("delay_order") && e.mode != StarveMode::inbound_delay)
      r.error("delay_order", "only an \"inbound_delay\" entry has a delay order");
    e.delay_fifo = r.enumeration("delay_order", "independent", {"independent", "fifo"}) == "fifo";
    if (e.mode != StarveMode::service)
      for (const char* k : {"queue_limit", "drop", "order", "timers"})
        if (r.has(k)) r.error(k, "only a \"service\" entry has " + std::string(k) + " (" + mode + " runs timers on time)");
    {
      for (NodeId n : e.nodes)
        for (const StarvedEntry& o : cfg.starved)
          if (o.mode != e.mode && std::binary_search(o.nodes.begin(), o.nodes.end(), n)) {
            r.error("mode", "node " + std::to_string(n) + " is already named by a starved entry of another mode");
            break;
          }
    }
    cfg.starved.push_back(std::move(e));
  });
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
    r.at_most_one_of({"loss", "loss_model"});
    const bool has_loss_model = r.has("loss_model");
    if (has_loss_model)
      r.object("loss_model", [&](ObjectReader& gr) { o.loss_model = parse_gilbert_elliott(gr); });
    if (!has_latency && !r.has("loss") && !has_loss_model)
      r.error("a link override needs \"latency\", \"loss\" or \"loss_model\"");
    cfg.overrides.push_back(std::move(o));
  });
  return cfg;
}

}  // namespace fdsim::net
