#include "sim/sweep/commands.h"

#include <csignal>

#include "sim/scenario/reader.h"
#include "sim/sweep/aggregate.h"
#include "sim/sweep/atomic_file.h"
#include "sim/sweep/calibrate.h"
#include "sim/sweep/executor.h"
#include "sim/sweep/json_path.h"
#include "sim/sweep/plan.h"
#include "sim/sweep/run_store.h"
#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<SweepPlan> load_plan(const std::string& path, const std::optional<json>& doc,
                                   const RunApi& api, std::vector<std::string>* problems,
                                   SweepSpec* spec_out = nullptr, bool keep_scenarios = true) {
  SpecOutcome spec = doc ? parse_sweep(*doc, path) : load_sweep_file(path);
  if (!spec.ok()) {
    *problems = std::move(spec.problems);
    return std::nullopt;
  }
  if (has_calibrated_axes(spec.spec)) set_calibration_placeholders(&spec.spec);
  // Calibration checks re-resolve the points' scenarios: they keep them.
  PlanOutcome plan =
      make_plan(spec.spec, api.resolve, keep_scenarios || has_calibrated_axes(spec.spec));
  if (!plan.ok()) {
    *problems = std::move(plan.problems);
    return std::nullopt;
  }
  // Calibrated axes: make_plan validated the bracket's low end; the high end too.
  if (has_calibrated_axes(spec.spec)) {
    *problems = check_calibration_brackets(spec.spec, plan.plan, api.resolve);
    if (!problems->empty()) return std::nullopt;
  }
  if (spec_out != nullptr) *spec_out = std::move(spec.spec);
  return std::move(plan.plan);
}

bool write_manifest(const SweepPlan& plan, const fs::path& out_dir,
                    const std::optional<std::string>& reference_arm, std::string* error) {
  // Bytes that are not UTF-8 (a sweep file name may hold any) are replaced, not thrown on.
  const std::string text =
      plan_manifest(plan, reference_arm).dump(1, ' ', false, json::error_handler_t::replace);
  return write_file_atomically(out_dir / "sweep.json", text + "\n", error);
}

bool same_plan(const SweepPlan& a, const SweepPlan& b) {
  if (a.axis_paths != b.axis_paths || a.points.size() != b.points.size()) return false;
  if (a.calibration != b.calibration) return false;  // calibrated sweeps: the same solve
  for (size_t p = 0; p < a.points.size(); ++p)
    if (a.points[p].params != b.points[p].params || a.points[p].run_ids != b.points[p].run_ids)
      return false;
  return true;
}

std::string check_point_labels(const SweepPlan& plan, const RunStore& store) {
  return point_label_mismatch(plan, [&](const std::string& id) { return store.load_result(id); });
}

}  // namespace

std::vector<std::string> validate_sweep_file(const std::string& path, const RunApi& api,
                                             std::string* summary) {
  std::vector<std::string> problems;
  SweepSpec spec;
  // validate keeps no scenario per point (make_plan, keep_scenarios).
  const auto plan = load_plan(path, std::nullopt, api, &problems, &spec, false);
  if (plan && summary != nullptr)
    *summary = plan_cost_summary(*plan) + calibration_cost_summary(spec, *plan);
  return problems;
}

std::vector<std::string> validate_sweep_document(const json& doc, const std::string& source,
                                                 const RunApi& api, std::string* summary) {
  std::vector<std::string> problems;
  SweepSpec spec;
  const auto plan = load_plan(source, doc, api, &problems, &spec, false);
  if (plan && summary != nullptr)
    *summary = plan_cost_summary(*plan) + calibration_cost_summary(spec, *plan);
  return problems;
}

int sweep_command(const SweepCommandOptions& o, const RunApi& api, std::ostream& out,
                  std::ostream& err) {
  Shard shard;
  if (!o.shard.empty()) {
    std::string error;
    auto parsed = parse_shard(o.shard, &error);
    if (!parsed) {
      err << "--shard: " << error << "\n";
      return kExitBadInput;
    }
    shard = *parsed;
  }
  std::vector<std::string> problems;
  SweepSpec spec;
  auto plan = load_plan(o.sweep_file, o.sweep_doc, api, &problems, &spec);
  if (!plan) {
    for (const auto& p : problems) err << p << "\n";
    return kExitBadInput;
  }
  const fs::path out_dir = o.out_dir;
  std::string error;
  auto lock = DirectoryLock::acquire(out_dir, &error);
  if (!lock) {
    err << error << "\n";
    return kExitBadInput;
  }
  // Temporary files a kill left in OUT itself (the manifest, aggregate.csv, aggregate.json
  // written atomically) are removed as the runs' are (issue 24: they were never removed). Safe
  // under the lock: no other sweep process writes here.
  remove_temp_files(out_dir);
  // Calibrated axes (sim/sweep/calibrate.h): solved before the manifest is written, with the
  // pilot runs in OUT/calibration.
  std::string calibration_line;
  if (has_calibrated_axes(spec)) {
    remove_temp_files(out_dir / "calibration");
    CalibrateOptions co;
    co.jobs = o.jobs;
    co.run_pilots = !o.aggregate_only;
    const CalibrateReport cr = calibrate_plan(spec, &*plan, api, out_dir / "calibration", co);
    if (cr.exit_code != 0) {
      for (const auto& p : cr.problems) err << p << "\n";
      if (cr.exit_code > 128)
        err << o.sweep_file << ": calibration interrupted by "
            << (cr.exit_code == 128 + SIGINT ? "SIGINT" : "SIGTERM")
            << "; rerun the same command to resume\n";
      return cr.exit_code;
    }
    calibration_line = calibration_summary(*plan, cr);
  }
  if (!write_manifest(*plan, out_dir, o.reference_arm, &error)) {
    err << error << "\n";
    return kExitInternal;
  }
  {
    // The directory's integrity key (run_store.h), before any run file is verified or written.
    std::error_code ec;
    fs::create_directories(out_dir / "runs", ec);
    RunStore runs(out_dir / "runs");
    if (!runs.ensure_key(&error)) {
      err << error << "\n";
      return kExitBadInput;
    }
  }

  ExecuteReport report;
  if (!o.aggregate_only) {
    ExecuteOptions eo;
    eo.jobs = o.jobs;
    eo.shard = shard;
    eo.progress = o.quiet ? ProgressStyle::kQuiet : o.progress;
    eo.progress_out = &err;
    eo.progress_interval = o.progress_interval;
    report = execute_plan(*plan, out_dir / "runs", api, eo);
  }
  for (const auto& d : report.distrusted)
    err << (out_dir / "runs").string() << ": not reused, run again: " << d << "\n";
  if (report.interrupted_by != 0) {
    // No aggregation: it would describe a partial sweep. The temporary files of the runs that
    // were writing are complete (writes are not cut short by the signal) and a rerun removes
    // any left by a harder kill (remove_temp_files).
    const size_t stored = report.reused + report.executed;
    err << o.sweep_file << ": interrupted by " << (report.interrupted_by == SIGINT ? "SIGINT" : "SIGTERM")
        << ": " << stored << " of " << report.total
        << " runs stored; rerun the same command to resume\n";
    return 128 + report.interrupted_by;
  }
  const Aggregation agg = write_aggregate(*plan, out_dir, o.reference_arm);
  if (!agg.error.empty()) {
    err << agg.error << "\n";
    return agg.bad_reference ? kExitBadInput : kExitInternal;
  }
  for (const auto& f : report.failures) err << o.sweep_file << ": run " << f << "\n";

  if (!o.quiet) {
    if (!calibration_line.empty()) out << calibration_line << "\n";
    out << "sweep " << plan->name << ": " << plan->points.size() << " points, "
        << plan->runs.size() << " runs";
    if (!o.shard.empty()) out << " (shard " << o.shard << ": " << report.total << " runs)";
    if (o.aggregate_only) {
      out << "; aggregated " << agg.runs_found << " results (" << agg.runs_missing
          << " runs without a result)";
    } else {
      out << "; " << report.reused << " reused, " << report.executed << " executed, "
          << report.failures.size() << " failed";
    }
    out << "; " << agg.row_count << " aggregate rows in " << (out_dir / "aggregate.csv").string()
        << "\n";
  }
  return report.failures.empty() ? kExitOk : kExitRunsFailed;
}

int merge_command(const MergeCommandOptions& o, std::ostream& out, std::ostream& err) {
  if (o.inputs.empty()) {
    err << "merge: no input directories\n";
    return kExitBadInput;
  }
  std::optional<ManifestPlan> first;
  for (const auto& in : o.inputs) {
    const fs::path manifest_path = fs::path(in) / "sweep.json";
    std::string error;
    auto doc = read_json_file(manifest_path.string(), &error);
    std::optional<ManifestPlan> mp;
    if (doc) mp = plan_from_manifest(*doc, &error);
    if (!mp) {
      err << manifest_path.string() << ": not a sweep output (" << error << ")\n";
      return kExitBadInput;
    }
    if (!first) {
      first = std::move(mp);
    } else if (!same_plan(first->plan, mp->plan)) {
      err << manifest_path.string() << ": a different sweep plan than "
          << (fs::path(o.inputs.front()) / "sweep.json").string()
          << " (other axes, points or replications): merge only shards of one sweep\n";
      return kExitBadInput;
    }
  }
  const SweepPlan& plan = first->plan;
  const std::optional<std::string> reference = o.reference_arm ? o.reference_arm : first->reference_arm;

  const fs::path out_dir = o.out_dir;
  std::string error;
  auto lock = DirectoryLock::acquire(out_dir, &error);
  if (!lock) {
    err << error << "\n";
    return kExitBadInput;
  }
  std::error_code ec;
  fs::create_directories(out_dir / "runs", ec);
  remove_temp_files(out_dir / "runs");
  RunStore dest(out_dir / "runs");
  if (!dest.ensure_key(&error)) {
    err << error << "\n";
    return kExitBadInput;
  }
  size_t copied = 0;
  std::vector<std::string> missing;
  for (const auto& run : plan.runs) {
    if (dest.load_result(run.id)) continue;
    bool found = false;
    std::optional<std::string> error_text;
    for (const auto& in : o.inputs) {
      // Each input's files are verified with that input's key and written under the
      // output's (run_store.h).
      const RunStore src(fs::path(in) / "runs");
      json doc;
      const std::string why = src.verify_result(run.id, &doc);
      if (!why.empty() && why != "absent") {
        err << src.result_path(run.id).string() << ": not merged: " << why << "\n";
        return kExitBadInput;
      }
      if (why.empty()) {
        const json run_stats = doc.contains("run_stats") ? doc["run_stats"] : json::object();
        doc.erase("run_stats");
        doc.erase("integrity");
        if (dest.write_result(run.id, doc, run_stats, &error)) {
          dest.remove_error(run.id);
          found = true;
          ++copied;
          break;
        }
        err << "cannot copy " << src.result_path(run.id).string() << ": " << error << "\n";
        return kExitInternal;
      }
      if (!error_text) error_text = read_file(src.error_path(run.id));
    }
    if (found) continue;
    missing.push_back(run.id);
    if (error_text) write_file_atomically(dest.error_path(run.id), *error_text, &error);
  }
  if (const std::string bad = check_point_labels(plan, dest); !bad.empty()) {
    err << (fs::path(o.inputs.front()) / "sweep.json").string() << ": " << bad << "\n";
    return kExitBadInput;
  }
  if (!write_manifest(plan, out_dir, reference, &error)) {
    err << error << "\n";
    return kExitInternal;
  }
  const Aggregation agg = write_aggregate(plan, out_dir, reference);
  if (!agg.error.empty()) {
    err << agg.error << "\n";
    return agg.bad_reference ? kExitBadInput : kExitInternal;
  }
  for (const auto& id : missing)
    err << "merge: run " << id << " has no result in any input (failed or not run yet)\n";
  if (!o.quiet) {
    out << "merge " << plan.name << ": " << o.inputs.size() << " inputs, " << plan.runs.size()
        << " runs, " << copied << " copied, " << missing.size() << " missing; "
        << agg.row_count << " aggregate rows in " << (out_dir / "aggregate.csv").string()
        << "\n";
  }
  return missing.empty() ? kExitOk : kExitRunsFailed;
}

}  // namespace fdsim::sweep
