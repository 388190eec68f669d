#include "sim/sweep/aggregate.h"

#include <algorithm>
#include <set>

#include "sim/run/trace_output.h"
#include "sim/sweep/atomic_file.h"
#include "sim/sweep/plan.h"
#include "sim/sweep/run_store.h"

namespace fdsim::sweep {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

void flatten_into(const json& v, const std::string& name, FlatMetrics& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      flatten_into(it.value(), name.empty() ? it.key() : name + "." + it.key(), out);
  } else if (v.is_array()) {
    // Per-run sample lists (a key starting "samples": one element per event) are not
    // metrics to average element by element over replications.
    const size_t dot = name.rfind('.');
    if (name.compare(dot == std::string::npos ? 0 : dot + 1, 7, "samples") == 0) return;
    for (size_t i = 0; i < v.size(); ++i)
      flatten_into(v[i], name + "[" + std::to_string(i) + "]", out);
  } else if (v.is_number()) {
    out[name] = v.get<double>();
  } else if (v.is_null() && !name.empty()) {
    out.emplace(name, std::nullopt);
  }
}

void append_unique(std::vector<std::string>& order, const std::string& s) {
  if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
}

// A run's flattened metrics by arm.
using RunMetrics = std::map<std::string, FlatMetrics>;

// Per point: its arms in order, and each replication's metrics (nullptr: no result).
struct PointData {
  std::vector<std::string> arms;
  std::vector<const RunMetrics*> reps;
};

std::string number_text(const std::optional<double>& v) { return v ? json(*v).dump() : ""; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

ordered_json opt_json(const std::optional<double>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

}  // namespace

FlatMetrics flatten_metrics(const json& arm_metrics) {
  FlatMetrics out;
  flatten_into(arm_metrics, "", out);
  return out;
}

std::vector<std::string> arm_order(const json& result) {
  std::vector<std::string> order;
  if (result.contains("manifest") && result["manifest"].is_object() &&
      result["manifest"].contains("arm_order") && result["manifest"]["arm_order"].is_array()) {
    for (const auto& a : result["manifest"]["arm_order"]) {
      if (a.is_string() && result["metrics"].contains(a.get<std::string>()))
        append_unique(order, a.get<std::string>());
    }
  }
  for (auto it = result["metrics"].begin(); it != result["metrics"].end(); ++it)
    append_unique(order, it.key());
  return order;
}

namespace {

// One point's replications, loaded (each distinct run once within the point); `counted` keeps
// the ids already counted in runs_found / runs_missing across points (ids only, not results).
void load_point(const PlannedPoint& point, const LoadResultFn& load, std::set<std::string>& counted,
                Aggregation& agg, std::map<std::string, std::optional<RunMetrics>>& cache,
                PointData& pd) {
  std::map<std::string, std::vector<std::string>> arm_orders;
  for (const auto& id : point.run_ids) {
    auto it = cache.find(id);
    if (it == cache.end()) {
      std::optional<RunMetrics> flat;
      const bool first_time = counted.insert(id).second;
      if (auto result = load(id)) {
        flat.emplace();
        std::vector<std::string> order = arm_order(*result);
        for (const auto& arm : order) (*flat)[arm] = flatten_metrics((*result)["metrics"][arm]);
        arm_orders[id] = std::move(order);
        if (first_time) ++agg.runs_found;
      } else if (first_time) {
        ++agg.runs_missing;
      }
      it = cache.emplace(id, std::move(flat)).first;
    }
    pd.reps.push_back(it->second ? &*it->second : nullptr);
    if (it->second)
      for (const auto& arm : arm_orders[id]) append_unique(pd.arms, arm);
  }
}

// The rows of one point, in row order.
void point_rows(size_t p, const PointData& pd, const std::optional<std::string>& reference_arm,
                const RowSink& sink, Aggregation& agg) {
  std::string ref;
  if (reference_arm) {
    if (std::find(pd.arms.begin(), pd.arms.end(), *reference_arm) != pd.arms.end())
      ref = *reference_arm;
  } else if (!pd.arms.empty()) {
    ref = pd.arms.front();
  }
  for (const auto& arm : pd.arms) {
    std::set<std::string> names;
    for (const auto& rep : pd.reps) {
      if (!rep) continue;
      auto a = rep->find(arm);
      if (a == rep->end()) continue;
      for (const auto& [name, v] : a->second) names.insert(name);
    }
    for (const auto& name : names) {
      std::vector<double> values, diffs;
      for (const auto& rep : pd.reps) {
        if (!rep) continue;
        auto a = rep->find(arm);
        if (a == rep->end()) continue;
        auto m = a->second.find(name);
        if (m == a->second.end() || !m->second) continue;
        values.push_back(*m->second);
        if (ref.empty() || arm == ref) continue;
        auto r = rep->find(ref);
        if (r == rep->end()) continue;
        auto rm = r->second.find(name);
        if (rm == r->second.end() || !rm->second) continue;
        diffs.push_back(*m->second - *rm->second);
      }
      AggregateRow row;
      row.point = p;
      row.arm = arm;
      row.metric = name;
      row.stats = summarize(values);
      row.reference_arm = ref;
      if (!ref.empty() && arm != ref) row.diff = summarize(diffs);
      ++agg.row_count;
      sink(row);
    }
  }
}

}  // namespace

Aggregation aggregate_streaming(const SweepPlan& plan, const LoadResultFn& load,
                                const std::optional<std::string>& reference_arm,
                                const RowSink& sink) {
  Aggregation agg;
  std::set<std::string> counted;
  std::set<std::string> all_arms;  // for the message on an unknown reference arm
  bool reference_seen = false;
  std::optional<size_t> missing_at;  // the first point with results but without the reference
  for (size_t p = 0; p < plan.points.size(); ++p) {
    std::map<std::string, std::optional<RunMetrics>> cache;  // this point's runs only
    PointData pd;
    load_point(plan.points[p], load, counted, agg, cache, pd);
    all_arms.insert(pd.arms.begin(), pd.arms.end());
    if (reference_arm &&
        std::find(pd.arms.begin(), pd.arms.end(), *reference_arm) != pd.arms.end())
      reference_seen = true;
    else if (reference_arm && !pd.arms.empty() && !missing_at)
      missing_at = p;
    point_rows(p, pd, reference_arm, sink, agg);
  }
  // Issue 24: a reference arm present at some points only gave differences at those points and
  // silently none at the others.
  if (reference_arm && reference_seen && missing_at) {
    agg.bad_reference = true;
    agg.error = "reference arm '" + *reference_arm + "' is not an arm at point " +
                std::to_string(*missing_at) + " (" + describe_params(plan, *missing_at) +
                "); a reference arm must be an arm of every point";
    return agg;
  }
  if (reference_arm && agg.runs_found > 0 && !reference_seen) {
    std::string list;
    for (const auto& a : all_arms) list += (list.empty() ? "" : ", ") + a;
    agg.bad_reference = true;
    agg.error = "reference arm '" + *reference_arm + "' is not an arm of this sweep (arms: " +
                list + ")";
  }
  return agg;
}

Aggregation aggregate(const SweepPlan& plan, const LoadResultFn& load,
                      const std::optional<std::string>& reference_arm) {
  std::vector<AggregateRow> rows;
  Aggregation agg = aggregate_streaming(plan, load, reference_arm,
                                        [&](const AggregateRow& r) { rows.push_back(r); });
  if (agg.error.empty()) agg.rows = std::move(rows);
  return agg;
}

std::string aggregate_csv_header(const SweepPlan& plan) {
  std::string out = "point";
  for (const auto& path : plan.axis_paths) out += "," + csv_field(path);
  out += ",arm,metric,n,mean,sd,ci95_half_width,reference_arm,diff_n,diff_mean,diff_sd,"
         "diff_ci95_half_width\n";
  return out;
}

std::string aggregate_csv_line(const SweepPlan& plan, const AggregateRow& row) {
  std::string out = std::to_string(row.point);
  for (const auto& v : plan.points[row.point].params)
    out += "," + csv_field(v.is_string() ? v.get<std::string>() : v.dump());
  out += "," + csv_field(row.arm) + "," + csv_field(row.metric) + "," +
         std::to_string(row.stats.n) + "," + number_text(row.stats.mean) + "," +
         number_text(row.stats.sd) + "," + number_text(row.stats.ci95_half_width) + "," +
         csv_field(row.reference_arm) + ",";
  if (row.diff) {
    out += std::to_string(row.diff->n) + "," + number_text(row.diff->mean) + "," +
           number_text(row.diff->sd) + "," + number_text(row.diff->ci95_half_width);
  } else {
    out += ",,,";
  }
  out += "\n";
  return out;
}

std::string aggregate_jsonl_line(const SweepPlan& plan, const AggregateRow& row) {
  ordered_json j;
  j["point"] = row.point;
  ordered_json params = ordered_json::object();
  for (size_t a = 0; a < plan.axis_paths.size(); ++a)
    params[plan.axis_paths[a]] = ordered_json::parse(plan.points[row.point].params[a].dump());
  j["params"] = std::move(params);
  j["arm"] = row.arm;
  j["metric"] = row.metric;
  j["n"] = row.stats.n;
  j["mean"] = opt_json(row.stats.mean);
  j["sd"] = opt_json(row.stats.sd);
  j["ci95_half_width"] = opt_json(row.stats.ci95_half_width);
  j["reference_arm"] =
      row.reference_arm.empty() ? ordered_json(nullptr) : ordered_json(row.reference_arm);
  j["diff_n"] = row.diff ? ordered_json(row.diff->n) : ordered_json(nullptr);
  j["diff_mean"] = row.diff ? opt_json(row.diff->mean) : ordered_json(nullptr);
  j["diff_sd"] = row.diff ? opt_json(row.diff->sd) : ordered_json(nullptr);
  j["diff_ci95_half_width"] =
      row.diff ? opt_json(row.diff->ci95_half_width) : ordered_json(nullptr);
  return j.dump() + "\n";
}

std::string aggregate_csv(const SweepPlan& plan, const std::vector<AggregateRow>& rows) {
  std::string out = aggregate_csv_header(plan);
  for (const auto& row : rows) out += aggregate_csv_line(plan, row);
  return out;
}

std::string aggregate_jsonl(const SweepPlan& plan, const std::vector<AggregateRow>& rows) {
  std::string out;
  for (const auto& row : rows) out += aggregate_jsonl_line(plan, row);
  return out;
}

Aggregation write_aggregate(const SweepPlan& plan, const std::filesystem::path& out_dir,
                            const std::optional<std::string>& reference_arm) {
  const RunStore store(out_dir / "runs");
  // Both files stream through temporaries (run::TraceFile: buffered, committed by an fsync and
  // a rename, removed if not committed), so neither the rows nor the text is ever held whole.
  std::string error;
  auto csv = run::TraceFile::open((out_dir / "aggregate.csv").string(), &error);
  auto jsonl = csv ? run::TraceFile::open((out_dir / "aggregate.jsonl").string(), &error)
                   : nullptr;
  if (!csv || !jsonl) {
    Aggregation agg;
    agg.error = error;
    return agg;
  }
  Aggregation agg;
  try {
    std::string header = aggregate_csv_header(plan);
    header.pop_back();  // write_line() adds the newline
    csv->write_line(header);
    agg = aggregate_streaming(
        plan, [&](const std::string& id) { return store.load_result(id); }, reference_arm,
        [&](const AggregateRow& row) {
          std::string line = aggregate_csv_line(plan, row);
          line.pop_back();
          csv->write_line(line);
          line = aggregate_jsonl_line(plan, row);
          line.pop_back();
          jsonl->write_line(line);
        });
  } catch (const std::exception& e) {  // a write error (TraceFile::write_line)
    agg.error = e.what();
    return agg;
  }
  if (!agg.error.empty()) return agg;  // the temporaries are removed, nothing is written
  if (std::string e = csv->commit(); !e.empty()) {
    agg.error = e;
  } else if (e = jsonl->commit(); !e.empty()) {
    agg.error = e;
  }
  return agg;
}

}  // namespace fdsim::sweep
