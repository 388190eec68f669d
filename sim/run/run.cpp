#include "sim/run/run.h"

#include <chrono>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>

#include "sim/engine/budget.h"
#include "sim/engine/hash.h"
#include "sim/run/result_writer.h"
#include "sim/run/run_budget.h"
#include "sim/run/run_stats.h"
#include "sim/run/scenario_loader.h"
#include "sim/run/simulation.h"
#include "fdsim_build_info.h"  // generated: FDSIM_BUILD_COMPILER_ID, ..._VERSION, ..._CXX_FLAGS
#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION

namespace fdsim::run {

using nlohmann::json;

namespace {

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

const char* family_name(ArmFamily f) {
  switch (f) {
    case ArmFamily::load_sharing: return "load_sharing";
    case ArmFamily::membership: return "membership";
    case ArmFamily::heartbeat_study: return "heartbeat_study";
    case ArmFamily::swim: return "swim";
    case ArmFamily::jgroups: return "jgroups";
  }
  return "?";
}

// Loads, turning an exception escaping a section parser (a bug) into an internal error.
LoadResult load_guarded(const json& doc, const std::string& source_name, std::string& internal) {
  try {
    return load_scenario_json(doc, source_name, directory_of(source_name));
  } catch (const std::exception& e) {
    internal = std::string("while loading the scenario: ") + e.what();
  } catch (...) {
    internal = "while loading the scenario: unknown exception";
  }
  return {};
}

// The budget every simulation of `s` ran under and the estimate it came from
// (sim/run/run_budget.h); infinite figures are written as null.
json budget_stats(const Scenario& s) {
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  const BudgetLimits b = simulation_budget(s);
  const BudgetEstimate e = simulation_estimate(s);
  return {{"memory_bytes", finite(b.memory_bytes)},
          {"work_count", finite(b.work_units)},
          {"estimated_memory_bytes", finite(e.memory_bytes)},
          {"estimated_events_count", finite(e.work_units)}};
}

}  // namespace

std::string scenario_hash(const json& resolved) { return hex64(fnv1a64(resolved.dump())); }

ResolveOutcome resolve(const json& scenario, const std::string& source_name) {
  ResolveOutcome out;
  std::string internal;
  LoadResult load = load_guarded(scenario, source_name, internal);
  if (!internal.empty()) {
    out.problems.push_back((source_name.empty() ? "" : source_name + ": ") +
                           "internal error " + internal);
    return out;
  }
  out.problems = std::move(load.problems);
  if (load.ok()) {
    out.ok = true;
    out.resolved = load.scenario->resolved;
    out.events_per_replication = load.scenario->cost.events_per_replication();
    out.memory_bytes = load.scenario->cost.memory_bytes;
  }
  return out;
}

RunOutcome execute(const json& scenario_doc, const std::string& source_name,
                   uint64_t replication, const RunOptions& options) {
  RunOutcome out;
  json doc = scenario_doc;
  if (options.seed && doc.is_object()) doc["seed"] = *options.seed;
  LoadResult load = load_guarded(doc, source_name, out.internal_error);
  if (!out.internal_error.empty()) return out;
  if (!load.ok()) {
    out.problems = std::move(load.problems);
    return out;
  }
  const Scenario& s = *load.scenario;
  const bool to_file = !options.trace_dir.empty() && (options.trace || s.top.output.trace);
  const bool trace = options.trace || to_file;
  std::unique_ptr<TraceOutput> trace_out;
  std::unique_ptr<TraceFile> trace_file;
  if (to_file) {
    const std::string path =
        (std::filesystem::path(options.trace_dir) /
         (result_stem(s.top.name, s.top.seed, replication) + ".trace.jsonl"))
            .string();
    std::string error;
    trace_file = TraceFile::open(path, &error);
    if (!trace_file) {
      out.internal_error = error;
      return out;
    }
  } else if (trace) {
    trace_out = std::make_unique<TraceLines>(out.trace_lines);
  }
  TraceOutput* trace_sink = trace_file ? static_cast<TraceOutput*>(trace_file.get()) : trace_out.get();
  const std::vector<SimulationPlan> plans = plan_simulations(s);
  const double horizon_s = s.top.horizon_s;
  const double total_s = horizon_s * double(plans.size());

  json arms_manifest = json::object();
  json metrics = json::object();
  json sim_stats = json::array();
  uint64_t events_total = 0;
  double wall_total_s = 0.0;
  double cpu_total_s = 0.0;
  std::string running;  // the arms of the simulation in progress, for error messages
  try {
    for (size_t i = 0; i < plans.size(); ++i) {
      running.clear();
      for (const auto& arm : plans[i].arms) running += (running.empty() ? "" : ", ") + arm;
      std::function<void(double, uint64_t)> progress;
      if (options.progress || options.progress_info) {
        const double done_s = horizon_s * double(i);
        const uint64_t done_events = events_total;
        progress = [&options, done_s, done_events, total_s](double now_s, uint64_t events) {
          if (options.progress) options.progress(done_s + now_s, total_s);
          if (options.progress_info)
            options.progress_info({done_s + now_s, total_s, done_events + events});
        };
      }
      SimulationOutput sim = run_simulation(s, replication, plans[i], trace_sink, progress);
      for (const auto& arm : plans[i].arms) {
        metrics[arm] = std::move(sim.metrics[arm]);
        arms_manifest[arm] = {{"simulation", i},
                              {"fingerprint", hex64(sim.fingerprint)},
                              {"events_dispatched_count", sim.events_dispatched},
                              {"peak_queue_events_count", sim.peak_queue_size},
                              {"events_by_kind_count", sim.events_by_kind}};
      }
      events_total += sim.events_dispatched;
      wall_total_s += sim.wall_s;
      cpu_total_s += sim.cpu_s;
      sim_stats.push_back({{"arms", plans[i].arms},
                           {"wall_time_s", sim.wall_s},
                           {"cpu_time_s", sim.cpu_s},
                           {"events_dispatched_count", sim.events_dispatched},
                           {"events_per_wall_s",
                            sim.wall_s > 0 ? double(sim.events_dispatched) / sim.wall_s : 0.0},
                           {"events_per_cpu_s",
                            sim.cpu_s > 0 ? double(sim.events_dispatched) / sim.cpu_s : 0.0},
                           {"work_count", sim.work_units},
                           {"peak_heap_bytes", sim.peak_heap_bytes}});
    }
    if (options.progress) options.progress(total_s, total_s);
    if (options.progress_info) options.progress_info({total_s, total_s, events_total});
  } catch (const BudgetExceeded& e) {
    // Not a bug: the run broke its budget (sim/run/run_budget.h). Bad input, exit 2.
    out.problems.push_back((source_name.empty() ? "" : source_name + ": ") + "arm " + running +
                           ", replication " + std::to_string(replication) + ": " + e.what());
    out.trace_lines.clear();
    return out;
  } catch (const std::exception& e) {
    out.internal_error = "arm " + running + ": " + e.what();
    out.trace_lines.clear();
    return out;
  } catch (...) {
    out.internal_error = "arm " + running + ": unknown exception";
    out.trace_lines.clear();
    return out;
  }

  if (trace_file) {
    out.internal_error = trace_file->commit();
    if (!out.internal_error.empty()) return out;
    out.trace_path = trace_file->path();
  }

  json manifest = {{"fdsim_version", FDSIM_VERSION},
                   {"git_revision", FDSIM_GIT_REVISION},
                   // How the binary was built (informational: not part of the run's identity).
                   {"build", {{"compiler_id", FDSIM_BUILD_COMPILER_ID},
                              {"compiler_version", FDSIM_BUILD_COMPILER_VERSION},
                              {"build_type", FDSIM_BUILD_TYPE},
                              {"cxx_flags", FDSIM_BUILD_CXX_FLAGS}}},
                   {"scenario_name", s.top.name},
                   {"scenario_hash", scenario_hash(s.resolved)},
                   {"seed", s.top.seed},
                   {"replication", replication},
                   {"model", family_name(s.family)},
                   {"arm_order", s.arms},
                   {"arms", std::move(arms_manifest)},
                   {"horizon_s", s.top.horizon_s},
                   {"warmup_s", s.top.warmup_s},
                   {"resolved_config", s.resolved}};
  out.result = {{"manifest", std::move(manifest)}, {"metrics", std::move(metrics)}};
  out.run_stats = {{"wall_time_s", wall_total_s},
                   {"cpu_time_s", cpu_total_s},
                   {"events_dispatched_count", events_total},
                   {"events_per_wall_s", wall_total_s > 0 ? double(events_total) / wall_total_s : 0.0},
                   {"events_per_cpu_s", cpu_total_s > 0 ? double(events_total) / cpu_total_s : 0.0},
                   {"peak_rss_kb", peak_rss_kb()},
                   {"malloc_page_kb", malloc_page_kb()},
                   {"budget", budget_stats(s)},
                   {"simulations", std::move(sim_stats)}};
  out.ok = true;
  return out;
}

}  // namespace fdsim::run
