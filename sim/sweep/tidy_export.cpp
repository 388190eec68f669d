#include "sim/sweep/tidy_export.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/sweep/aggregate.h"
#include "sim/sweep/atomic_file.h"
#include "sim/sweep/json_path.h"
#include "sim/sweep/plan.h"
#include "sim/sweep/run_store.h"
#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

const std::vector<std::string> kFixedColumns = {"run_id", "point",  "seed", "replication",
                                                "arm",    "metric", "value"};

// The steps of a path as name parts, and the positions of its keys.
struct PathParts {
  std::vector<std::string> parts;
  std::vector<size_t> key_positions;
};

PathParts path_parts(const std::string& path) {
  PathParts pp;
  std::string error;
  auto parsed = JsonPath::parse(path, &error);
  if (!parsed) return pp;
  for (const auto& step : parsed->steps()) {
    if (!step.is_index) pp.key_positions.push_back(pp.parts.size());
    pp.parts.push_back(step.is_index ? std::to_string(step.index) : step.key);
  }
  return pp;
}

std::string join_from(const PathParts& pp, size_t start) {
  std::string s;
  for (size_t i = start; i < pp.parts.size(); ++i) s += (s.empty() ? "" : "_") + pp.parts[i];
  return s;
}

// The name of `pp` at `level` (1 = from its last key), or nullopt if it has fewer keys.
std::optional<std::string> name_at(const PathParts& pp, size_t level) {
  if (level == 0 || level > pp.key_positions.size()) return std::nullopt;
  return join_from(pp, pp.key_positions[pp.key_positions.size() - level]);
}

// Units that say nothing on their own as a column name (the last key of "$.gc.pause.ms").
const std::vector<std::string> kBareUnits = {"ms", "s", "us", "ns", "per_s", "ratio", "count",
                                             "bytes"};

bool is_fixed(const std::string& name) {
  return std::find(kFixedColumns.begin(), kFixedColumns.end(), name) != kFixedColumns.end();
}

bool is_bare_unit(const std::string& name) {
  return std::find(kBareUnits.begin(), kBareUnits.end(), name) != kBareUnits.end();
}

// Indices (of unnamed axes: given[i] empty) whose name equals another's, a fixed column or a
// given name, or is a bare unit.
std::set<size_t> clashing(const std::vector<std::string>& names,
                          const std::vector<std::string>& given) {
  std::map<std::string, size_t> count;
  for (const auto& n : names) ++count[n];
  std::set<size_t> out;
  for (size_t i = 0; i < names.size(); ++i)
    if (given[i].empty() && (count[names[i]] > 1 || is_fixed(names[i]) || is_bare_unit(names[i])))
      out.insert(i);
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return csv_field(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// Numeric and null leaves of one arm's metrics, by the dotted names of aggregate.h.
void leaves(const json& v, const std::string& name, std::map<std::string, json>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      leaves(it.value(), name.empty() ? it.key() : name + "." + it.key(), out);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) leaves(v[i], name + "[" + std::to_string(i) + "]", out);
  } else if ((v.is_number() || v.is_null()) && !name.empty()) {
    out.emplace(name, v);
  }
}

const json& manifest_field(const json& doc, const char* key) {
  static const json null_value;
  if (doc.contains("manifest") && doc["manifest"].is_object() && doc["manifest"].contains(key))
    return doc["manifest"][key];
  return null_value;
}

}  // namespace

std::vector<std::string> tidy_param_names(const std::vector<std::string>& axis_paths,
                                          const std::vector<std::string>& given_names) {
  std::vector<std::string> given = given_names;
  given.resize(axis_paths.size());
  std::vector<PathParts> parts;
  std::vector<size_t> level(axis_paths.size(), 1);
  std::vector<std::string> names;
  for (size_t i = 0; i < axis_paths.size(); ++i) {
    parts.push_back(path_parts(axis_paths[i]));
    names.push_back(!given[i].empty() ? given[i]
                                      : name_at(parts.back(), 1).value_or(axis_paths[i]));
  }
  for (;;) {
    bool grew = false;
    for (size_t i : clashing(names, given)) {
      if (auto n = name_at(parts[i], level[i] + 1)) {
        ++level[i];
        names[i] = *n;
        grew = true;
      }
    }
    if (!grew) break;
  }
  for (size_t i : clashing(names, given)) names[i] = "param_" + join_from(parts[i], 0);
  for (size_t i : clashing(names, given)) names[i] = axis_paths[i];
  return names;
}

ExportTables tidy_tables(const std::string& sweep_dir, bool any_build) {
  ExportTables t;
  const fs::path dir = sweep_dir;
  const fs::path manifest_path = dir / "sweep.json";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    t.problems.push_back(sweep_dir + ": not a directory (expected the output directory of "
                         "fdsim sweep or fdsim merge)");
    return t;
  }
  if (!fs::exists(manifest_path, ec)) {
    t.problems.push_back(manifest_path.string() +
                         ": missing; not a sweep output directory (fdsim sweep --out DIR writes it)");
    return t;
  }
  std::string error;
  auto doc = read_json_file(manifest_path.string(), &error);
  std::optional<ManifestPlan> mp;
  if (doc) mp = plan_from_manifest(*doc, &error);
  if (!mp) {
    t.problems.push_back(manifest_path.string() + ": not a sweep plan (" + error + ")");
    return t;
  }
  const SweepPlan& plan = mp->plan;
  t.axis_paths = plan.axis_paths;
  t.param_names = tidy_param_names(plan.axis_paths, plan.axis_names);

  // Load each distinct run once, in run-list order (deterministic), and check it.
  // Results of another build are reported once per distinct reason, not once per file.
  const RunStore store(dir / "runs");
  std::map<std::string, std::optional<json>> results;
  std::map<std::string, size_t> other_build;  // reason -> files
  for (const auto& run : plan.runs) {
    json result;
    const std::string why = store.verify_result(run.id, &result, !any_build);
    if (why == "absent") {
      ++t.runs_missing;
      results.emplace(run.id, std::nullopt);
    } else if (why.rfind("written by fdsim", 0) == 0) {
      ++other_build[why];
    } else if (!why.empty()) {
      t.problems.push_back(store.result_path(run.id).string() + ": not exported: " + why);
      if (t.problems.size() >= 20) {
        t.problems.push_back(sweep_dir + ": (stopping after 20 untrusted results)");
        return t;
      }
    } else {
      ++t.runs_found;
      results.emplace(run.id, std::move(result));
    }
  }
  for (const auto& [why, files] : other_build)
    t.problems.push_back((dir / "runs").string() + ": " + std::to_string(files) + " of " +
                         std::to_string(plan.runs.size()) + " results not exported: " + why +
                         " (--any-build exports them anyway)");
  if (!t.problems.empty()) return t;
  // Swapped or edited labels in sweep.json would export results under the wrong parameters.
  const std::string mislabelled = point_label_mismatch(plan, [&](const std::string& id) {
    const auto it = results.find(id);
    return it == results.end() ? std::nullopt : it->second;
  });
  if (!mislabelled.empty()) {
    t.problems.push_back(manifest_path.string() + ": " + mislabelled);
    return t;
  }
  if (t.runs_found == 0) {
    t.problems.push_back((dir / "runs").string() + ": no run results to export (" +
                         std::to_string(plan.runs.size()) + " runs planned, none finished)");
    return t;
  }

  // Header.
  t.csv = "run_id,point";
  for (const auto& n : t.param_names) t.csv += "," + csv_field(n);
  t.csv += ",seed,replication,arm,metric,value\n";

  for (size_t p = 0; p < plan.points.size(); ++p) {
    const PlannedPoint& point = plan.points[p];
    for (size_t r = 0; r < point.run_ids.size(); ++r) {
      const auto it = results.find(point.run_ids[r]);
      if (it == results.end() || !it->second) continue;
      const json& result = *it->second;
      const json& seed = manifest_field(result, "seed");
      const json& rep_field = manifest_field(result, "replication");
      const json replication = rep_field.is_number_integer() ? rep_field : json(r);
      std::string prefix = csv_field(point.run_ids[r]) + "," + std::to_string(p);
      for (const auto& v : point.params) prefix += "," + csv_value(v);
      prefix += "," + csv_value(seed) + "," + csv_value(replication);
      ordered_json row_head;
      row_head["run_id"] = point.run_ids[r];
      row_head["point"] = p;
      for (size_t a = 0; a < t.param_names.size(); ++a)
        row_head[t.param_names[a]] = ordered_json::parse(point.params[a].dump());
      row_head["seed"] = ordered_json::parse(seed.dump());
      row_head["replication"] = ordered_json::parse(replication.dump());
      for (const auto& arm : arm_order(result)) {
        std::map<std::string, json> metrics;
        leaves(result["metrics"][arm], "", metrics);
        for (const auto& [name, value] : metrics) {
          t.csv += prefix + "," + csv_field(arm) + "," + csv_field(name) + "," +
                   csv_value(value) + "\n";
          ordered_json row = row_head;
          row["arm"] = arm;
          row["metric"] = name;
          row["value"] = ordered_json::parse(value.dump());
          t.jsonl += row.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
          ++t.rows;
        }
      }
    }
  }
  return t;
}

int export_command(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.csv && !o.jsonl) {
    err << "export: nothing to write (choose --format csv, jsonl or both)\n";
    return 2;
  }
  ExportTables t = tidy_tables(o.sweep_dir, o.any_build);
  if (!t.problems.empty()) {
    for (const auto& p : t.problems) err << p << "\n";
    return 2;
  }
  const std::string prefix = o.prefix.empty() ? (fs::path(o.sweep_dir) / "tidy").string() : o.prefix;
  std::error_code ec;
  const fs::path parent = fs::path(prefix).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  std::vector<std::string> written;
  std::string error;
  if (o.csv) {
    if (!write_file_atomically(prefix + ".csv", t.csv, &error)) {
      err << error << "\n";
      return 1;
    }
    written.push_back(prefix + ".csv");
  }
  if (o.jsonl) {
    if (!write_file_atomically(prefix + ".jsonl", t.jsonl, &error)) {
      err << error << "\n";
      return 1;
    }
    written.push_back(prefix + ".jsonl");
  }
  if (!o.quiet) {
    out << "export: " << t.rows << " rows from " << t.runs_found << " runs";
    if (t.runs_missing > 0) out << " (" << t.runs_missing << " runs without a result skipped)";
    out << " ->";
    for (const auto& w : written) out << " " << w;
    out << "\n";
    for (size_t a = 0; a < t.param_names.size(); ++a)
      out << "  column " << t.param_names[a] << " = " << t.axis_paths[a] << "\n";
  }
  return 0;
}

}  // namespace fdsim::sweep
