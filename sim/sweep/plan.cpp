#include "sim/sweep/plan.h"

#include "sim/engine/budget.h"
#include "sim/run/run_budget.h"

#include <cstdio>
#include <algorithm>
#include <map>
#include <set>
#include <thread>
#include <unordered_set>

#include "sim/engine/hash.h"
#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/reader.h"
#include "sim/sweep/json_path.h"
#include "sim/sweep/parallel_for.h"
#include "sim/sweep/seed_memo.h"
#include "sim/scenario/event_rate.h"
#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION

namespace fdsim::sweep {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr size_t kMaxPoints = 1000000;
constexpr size_t kMaxManifestAxes = 1000;  // axes (zip members counted) of a sweep.json
constexpr size_t kMaxPointProblems = 20;
// The plan's own memory (measured order of magnitude): a point's parameters and run-id vector,
// its copy of the base scenario as an nlohmann::json tree (about 8 bytes of tree per byte of
// its text), and one run's identity and PlannedRun entry.
constexpr double kBytesPerPoint = 256.0;
constexpr double kJsonBytesPerTextByte = 8.0;
constexpr double kBytesPerRun = 160.0;
// The seed memo's stored text (seed_memo.h): enough for 10^4 distinct other-axis combinations of
// a scenario whose resolution is 6 kB; past it points are resolved in full.
constexpr size_t kSeedMemoBytes = size_t(64) << 20;
// Points resolved per round of worker threads: about 30 ms of work on 2 cores, so an interrupt
// (polled between rounds and inside long resolves) is seen quickly.
constexpr size_t kResolveChunk = 1024;

// nullopt: the comparison holds or fails as returned; else a type problem.
std::optional<std::string> compare(const json& lhs, const std::string& op, const json& rhs,
                                   bool* holds) {
  if (op == "==") {
    *holds = lhs == rhs;
    return std::nullopt;
  }
  if (op == "!=") {
    *holds = lhs != rhs;
    return std::nullopt;
  }
  int c = 0;
  if (lhs.is_number() && rhs.is_number()) {
    const double a = lhs.get<double>(), b = rhs.get<double>();
    c = a < b ? -1 : (a > b ? 1 : 0);
  } else if (lhs.is_string() && rhs.is_string()) {
    const int s = lhs.get<std::string>().compare(rhs.get<std::string>());
    c = s < 0 ? -1 : (s > 0 ? 1 : 0);
  } else {
    return "cannot order " + lhs.dump() + " and " + rhs.dump() + " with '" + op +
           "' (both must be numbers or both strings)";
  }
  if (op == "<") *holds = c < 0;
  if (op == "<=") *holds = c <= 0;
  if (op == ">") *holds = c > 0;
  if (op == ">=") *holds = c >= 0;
  return std::nullopt;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string params_text(const std::vector<std::string>& paths, const std::vector<json>& params) {
  std::string s;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i) s += ", ";
    s += paths[i] + " = " + params[i].dump();
  }
  return s;
}

// "0-3, 5, 7-8" (sorted indices).
std::string index_ranges(const std::vector<size_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(v[i]);
    if (j > i) s += (j == i + 1 ? ", " : "-") + std::to_string(v[j]);
    i = j + 1;
  }
  return s;
}

// A sweep point's resolution as make_plan applies it: its problems (resolve's, or a sweep's
// own rule), else its run-identity hash, replications and cost, and the seed memo's entry.
struct PointResolution {
  std::vector<std::string> problems;
  uint64_t hash = 0;
  int64_t resolved_reps = 1;  // the resolved scenario's replications (the sweep's may override)
  double events_per_replication = 0;
  double memory_bytes = 0;
  std::optional<SeedMemo::Entry> memo_entry;
};

// Safe to run on several threads at once: reads spec, point and memo, calls resolve (which
// must be safe so too: run::resolve is, as sweeps execute runs concurrently).
PointResolution resolve_point(const SweepSpec& spec, const PlannedPoint& point,
                              const std::string& source, const ResolveFn& resolve,
                              bool keep_scenarios, const SeedMemo* memo) {
  PointResolution out;
  json rebuilt;
  if (!keep_scenarios) {
    rebuilt = spec.base;
    size_t k = 0;
    for (const auto& g : spec.groups)
      for (const auto& axis : g.axes) axis.path.set(rebuilt, point.params[k++]);
  }
  run::ResolveOutcome res = resolve(keep_scenarios ? point.scenario : rebuilt, source);
  if (!res.ok) {
    out.problems = std::move(res.problems);
    if (out.problems.empty()) out.problems.push_back("the scenario is not valid");
    return out;
  }
  // A sweep writes no trace (sim/run/run.h, RunOptions::trace_dir), so output.trace would
  // be ignored while still changing the run identity (issue 24): refuse it.
  if (res.resolved.is_object() && res.resolved.contains("output") &&
      res.resolved["output"].is_object() && res.resolved["output"].value("trace", false) == true) {
    out.problems.push_back(
        "$.output.trace: a sweep writes no traces; set it to false (trace one run with "
        "fdsim run --trace)");
    return out;
  }
  if (res.resolved.is_object() && res.resolved.contains("replications") &&
      res.resolved["replications"].is_number_integer() &&
      res.resolved["replications"].get<int64_t>() >= 1) {
    out.resolved_reps = res.resolved["replications"].get<int64_t>();
  }
  out.events_per_replication = res.events_per_replication;
  out.memory_bytes = res.memory_bytes;
  if (memo != nullptr)
    out.memo_entry = memo->prepare(point.params, res.resolved, res.events_per_replication,
                                   res.memory_bytes, out.resolved_reps);
  // Moved, not copied: the copy was a tenth of a large grid's validation.
  out.hash = fnv1a64(canonical_scenario_text(std::move(res.resolved)));
  return out;
}

// Worker threads for resolving a plan's points: none below a few hundred points (a thread
// costs more than it saves there), else the machine's cores, at most 8.
size_t resolve_threads(size_t points) {
  if (points < 256) return 1;
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
}

}  // namespace

// Distinct runs, replication-major.
std::vector<PlannedRun> list_runs(const std::vector<PlannedPoint>& points) {
  size_t max_reps = 0;
  for (const auto& point : points) max_reps = std::max(max_reps, point.run_ids.size());
  std::vector<PlannedRun> runs;
  std::set<std::string> seen;
  for (size_t r = 0; r < max_reps; ++r) {
    for (size_t p = 0; p < points.size(); ++p) {
      if (r >= points[p].run_ids.size()) continue;
      const std::string& id = points[p].run_ids[r];
      if (seen.insert(id).second) runs.push_back(PlannedRun{p, r, id});
    }
  }
  return runs;
}

std::string canonical_scenario_text(json resolved_scenario) {
  if (resolved_scenario.is_object()) resolved_scenario.erase("replications");
  return resolved_scenario.dump();
}

namespace {
uint64_t scenario_hash(const json& resolved_scenario) {
  return fnv1a64(canonical_scenario_text(resolved_scenario));
}
}  // namespace

std::string run_identity(const json& resolved_scenario, uint64_t replication) {
  return hex16(hash_combine(scenario_hash(resolved_scenario), replication));
}

std::string describe_params(const SweepPlan& plan, size_t point) {
  return params_text(plan.axis_paths, plan.points[point].params);
}

PlanOutcome make_plan(const SweepSpec& spec, const ResolveFn& resolve, bool keep_scenarios) {
  PlanOutcome out;
  SweepPlan& plan = out.plan;
  plan.name = spec.name;
  plan.source = spec.source;
  plan.scenario_source = spec.scenario_source;
  plan.sweep_doc = spec.doc;
  for (const auto& g : spec.groups)
    for (const auto& a : g.axes) {
      plan.axis_paths.push_back(a.path.text());
      plan.axis_names.push_back(a.name);
    }
  auto problem = [&](const std::string& msg) { out.problems.push_back(spec.source + ": " + msg); };

  size_t total = 1;
  for (const auto& g : spec.groups) {
    if (g.size() == 0) return out;
    if (total > kMaxPoints / g.size()) {
      problem("$.axes: the grid has more than " + std::to_string(kMaxPoints) + " points");
      return out;
    }
    total *= g.size();
  }
  // The cost of the plan itself, counted before the grid is expanded (issue 24): every point
  // holds a copy of the base scenario and every run an identity; the replication count is the
  // sweep's, or the base scenario's as written.
  {
    int64_t reps = 1;
    if (spec.replications) {
      reps = *spec.replications;
    } else if (spec.base.is_object() && spec.base.contains("replications") &&
               spec.base["replications"].is_number_integer()) {
      reps = std::max<int64_t>(1, spec.base["replications"].get<int64_t>());
    }
    const double base_bytes = double(spec.base.dump().size());
    const double bytes = double(total) * (kBytesPerPoint + kJsonBytesPerTextByte * base_bytes) +
                         double(total) * double(reps) * kBytesPerRun;
    const double limit =
        std::min(scenario::cost_limits().memory_bytes, run::environment_share_bytes());
    if (!(bytes <= limit)) {
      problem("$.axes: the plan of " + std::to_string(total) + " points x " +
              std::to_string(reps) + " replications needs about " + scenario::bytes_text(bytes) +
              " before any run (" + scenario::rate_text(kJsonBytesPerTextByte) + " x " +
              scenario::rate_text(base_bytes) + " B of base scenario per point, " +
              scenario::rate_text(kBytesPerRun) + " B per run); the limit is " +
              scenario::bytes_text(limit) +
              (limit < scenario::cost_limits().memory_bytes
                   ? " (3/4 of what the environment's address-space or cgroup limit leaves)"
                   : " (raise with --max-memory-gb / --max-events)"));
      return out;
    }
  }

  // Grid in nested-loop order, filtered by the constraint. A point's scenario is built here
  // only when it is kept or a constraint reads it (validate of a large grid: issue 37).
  const bool build_scenarios = keep_scenarios || !spec.constraint.empty();
  std::set<std::string> reported;  // one message per condition problem
  std::vector<size_t> idx(spec.groups.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    charge_work(1);  // SIGINT/SIGTERM and the command's memory budget (sim/engine/budget.h)
    PlannedPoint point;
    if (build_scenarios) point.scenario = spec.base;
    for (size_t g = 0; g < spec.groups.size(); ++g) {
      for (const auto& axis : spec.groups[g].axes) {
        if (build_scenarios) axis.path.set(point.scenario, axis.values[idx[g]]);
        point.params.push_back(axis.values[idx[g]]);
      }
    }
    bool keep = true;
    for (const auto& cond : spec.constraint) {
      const json* lhs = cond.path.find(point.scenario);
      const json* rhs = cond.other_path ? cond.other_path->find(point.scenario) : &cond.value;
      std::string why;
      if (lhs == nullptr) {
        why = cond.where + ".path: " + cond.path.text() + " does not exist in the scenario of " +
              params_text(plan.axis_paths, point.params);
      } else if (rhs == nullptr) {
        why = cond.where + ".other_path: " + cond.other_path->text() +
              " does not exist in the scenario of " + params_text(plan.axis_paths, point.params);
      } else {
        bool holds = false;
        if (auto type_problem = compare(*lhs, cond.op, *rhs, &holds)) {
          why = cond.where + ": " + *type_problem;
        } else if (!holds) {
          keep = false;
        }
      }
      if (!why.empty()) {
        keep = false;
        if (reported.insert(cond.where).second) problem(why);
      }
    }
    if (!keep_scenarios) point.scenario = nullptr;  // rebuilt from the parameters below
    if (keep) plan.points.push_back(std::move(point));
    for (size_t g = spec.groups.size(); g-- > 0;) {
      if (++idx[g] < spec.groups[g].size()) break;
      idx[g] = 0;
    }
  }
  if (!out.problems.empty()) return out;
  if (plan.points.empty()) {
    problem("$.constraint: no point of the grid satisfies the constraint");
    return out;
  }

  // Validate every point and derive the run identities. A problem that several points share
  // (a bad base field, the same misspelt key) is reported once, with the list of its points.
  double events = 0;          // every run of the sweep (cost_estimate.h)
  double largest_memory = 0;  // of one simulation, at the costliest point
  std::vector<std::string> distinct;                 // problems in first-seen order
  std::map<std::string, std::vector<size_t>> where;  // problem -> its points
  // A $.seed axis: points that differ only in their seed are resolved once (seed_memo.h).
  std::optional<SeedMemo> memo;
  for (size_t k = 0, g = 0; g < spec.groups.size(); ++g)
    for (const auto& axis : spec.groups[g].axes) {
      if (plan.axis_paths[k] == "$.seed" && axis.values.size() >= 2)
        memo.emplace(k, kSeedMemoBytes);
      ++k;
    }
  auto add_problem = [&](const std::string& pr, size_t p) {
    auto& points = where[pr];
    if (points.empty()) distinct.push_back(pr);
    if (points.empty() || points.back() != p) points.push_back(p);
  };
  auto add_runs = [&](PlannedPoint& point, uint64_t hash, int64_t resolved_reps,
                      double events_per_replication, double memory_bytes) {
    const int64_t reps = spec.replications ? *spec.replications : resolved_reps;
    events += events_per_replication * double(reps);
    if (memory_bytes > largest_memory) largest_memory = memory_bytes;
    for (int64_t r = 0; r < reps; ++r)
      point.run_ids.push_back(hex16(hash_combine(hash, uint64_t(r))));
  };
  // Points are resolved in chunks on worker threads (parallel_for.h) and the outcomes applied
  // in point order, so the plan and every message are those of a sequential pass. With a seed
  // memo, a point whose other parameters are being resolved in this chunk, and whose seed is
  // known or being resolved too, waits for a second round, where the memo answers it.
  const size_t threads = resolve_threads(plan.points.size());
  struct Slot {
    std::optional<SeedMemo::Hit> hit;
    PointResolution res;
  };
  std::vector<Slot> slots;
  std::vector<size_t> round, deferred;
  std::unordered_set<std::string> pending_rest, pending_seed;
  auto resolve_round = [&](size_t first_point) {
    parallel_for(round.size(), threads, [&](size_t i) {
      slots[round[i] - first_point].res =
          resolve_point(spec, plan.points[round[i]], plan.scenario_source, resolve,
                        keep_scenarios, memo ? &*memo : nullptr);
    });
    charge_work(round.size() * kChargeCheckEvery);  // interrupts and the command's budget
    if (memo)
      for (const size_t p : round)
        if (auto& entry = slots[p - first_point].res.memo_entry) memo->remember(std::move(*entry));
  };
  for (size_t a = 0; a < plan.points.size(); a += kResolveChunk) {
    const size_t b = std::min(plan.points.size(), a + kResolveChunk);
    charge_work(b - a);
    slots.assign(b - a, Slot{});
    round.clear();
    deferred.clear();
    pending_rest.clear();
    pending_seed.clear();
    for (size_t p = a; p < b; ++p) {
      if (!memo) {
        round.push_back(p);
        continue;
      }
      SeedMemo::Keys keys = memo->keys(plan.points[p].params);
      if ((slots[p - a].hit = memo->find(keys))) continue;
      if (pending_rest.count(keys.rest) != 0 &&
          (memo->knows_seed(keys.seed) || pending_seed.count(keys.seed) != 0)) {
        deferred.push_back(p);
        continue;
      }
      round.push_back(p);
      pending_rest.insert(std::move(keys.rest));
      pending_seed.insert(std::move(keys.seed));
    }
    resolve_round(a);
    round.clear();
    for (const size_t p : deferred)
      if (!(slots[p - a].hit = memo->find(plan.points[p].params))) round.push_back(p);
    resolve_round(a);
    for (size_t p = a; p < b; ++p) {
      const Slot& slot = slots[p - a];
      if (slot.hit) {
        add_runs(plan.points[p], slot.hit->scenario_hash, slot.hit->replications,
                 slot.hit->events_per_replication, slot.hit->memory_bytes);
      } else if (!slot.res.problems.empty()) {
        for (const auto& pr : slot.res.problems) add_problem(pr, p);
      } else {
        add_runs(plan.points[p], slot.res.hash, slot.res.resolved_reps,
                 slot.res.events_per_replication, slot.res.memory_bytes);
      }
    }
  }
  for (size_t i = 0; i < distinct.size() && i < kMaxPointProblems; ++i) {
    const std::string& pr = distinct[i];
    const std::vector<size_t>& points = where[pr];
    if (points.size() == 1) {
      problem("point " + std::to_string(points[0]) + " (" + describe_params(plan, points[0]) +
              "): " + pr);
      continue;
    }
    // The problem usually names the sweep file itself (an inline base): not twice.
    const std::string own = spec.source + ": ";
    const std::string text = pr.rfind(own, 0) == 0 ? pr.substr(own.size()) : pr;
    problem(text + (points.size() == plan.points.size()
                        ? " (at every point: " + index_ranges(points) + ")"
                        : " (at points " + index_ranges(points) + ")"));
  }
  if (distinct.size() > kMaxPointProblems)
    problem("... and " + std::to_string(distinct.size() - kMaxPointProblems) +
            " more problems at other points");
  if (!out.problems.empty()) return out;
  if (!(events <= scenario::cost_limits().events)) {
    problem("$.axes: the sweep needs about " + scenario::rate_text(events) + " events over " +
            std::to_string(plan.points.size()) +
            " points and their replications (one simulation needs up to " +
            scenario::bytes_text(largest_memory) + "); the limit is " +
            scenario::bytes_text(scenario::cost_limits().memory_bytes) + " / " +
            scenario::rate_text(scenario::cost_limits().events) +
            " events (raise with --max-memory-gb / --max-events)");
    return out;
  }
  plan.total_events = events;
  plan.largest_memory_bytes = largest_memory;

  plan.runs = list_runs(plan.points);
  return out;
}

// OUT/sweep.json is not trusted (issue 24: swapped point labels were merged silently): every
// point's label values must be what its runs' result files hold at the axis paths of their
// resolved configurations. Returns "" or the first mismatch. $.replications is skipped (it is
// not part of a run's identity: points differing only in it share runs).
namespace {

// False only if the point's label `label` definitely contradicts the value `got` the run's
// resolved configuration holds. The loader normalizes some values (a node set "even" becomes
// its list of nodes, defaults are added to objects, 60 becomes 60.0), so only scalars of one
// kind are compared (numbers by value), objects key by key where both have the key, arrays
// element by element; anything else (a string against the list it stands for) is not a
// contradiction.
bool label_consistent(const json& label, const json& got) {
  if (label.is_number() && got.is_number()) return label.get<double>() == got.get<double>();
  if (label.is_string() && got.is_string()) return label == got;
  if (label.is_boolean() && got.is_boolean()) return label == got;
  if (label.is_object() && got.is_object()) {
    for (auto it = label.begin(); it != label.end(); ++it)
      if (got.contains(it.key()) && !label_consistent(it.value(), got[it.key()])) return false;
    return true;
  }
  if (label.is_array() && got.is_array()) {
    if (label.size() != got.size()) return false;
    for (size_t i = 0; i < label.size(); ++i)
      if (!label_consistent(label[i], got[i])) return false;
    return true;
  }
  return true;
}

}  // namespace

std::string point_label_mismatch(
    const SweepPlan& plan,
    const std::function<std::optional<json>(const std::string& id)>& result_of) {
  std::vector<std::optional<JsonPath>> paths;
  for (const auto& text : plan.axis_paths) {
    std::string error;
    paths.push_back(text == "$.replications" ? std::nullopt : JsonPath::parse(text, &error));
  }
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const PlannedPoint& point = plan.points[p];
    for (const auto& id : point.run_ids) {
      const auto result = result_of(id);
      if (!result || !result->contains("manifest") || !(*result)["manifest"].is_object() ||
          !(*result)["manifest"].contains("resolved_config"))
        continue;
      const json& cfg = (*result)["manifest"]["resolved_config"];
      for (size_t i = 0; i < paths.size() && i < point.params.size(); ++i) {
        if (!paths[i]) continue;
        const json* v = paths[i]->find(cfg);
        if (v == nullptr || !label_consistent(point.params[i], *v))
          return "point " + std::to_string(p) + " is labelled " + plan.axis_paths[i] + " = " +
                 scenario::describe(point.params[i]) + " but run " + id + " ran with " +
                 (v == nullptr ? std::string("no such field") : scenario::describe(*v)) +
                 ": sweep.json does not describe these runs";
      }
    }
  }
  return {};
}

std::string plan_cost_summary(const SweepPlan& plan) {
  return "about " + scenario::bytes_text(plan.largest_memory_bytes) +
         " per simulation (the costliest point) and " + scenario::rate_text(plan.total_events) +
         " events over " + std::to_string(plan.points.size()) +
         (plan.points.size() == 1 ? " point and " : " points and ") +
         std::to_string(plan.runs.size()) + (plan.runs.size() == 1 ? " run" : " runs") +
         " (limits " +
         scenario::bytes_text(scenario::cost_limits().memory_bytes) + " / " +
         scenario::rate_text(scenario::cost_limits().events) + " events)";
}

ordered_json plan_manifest(const SweepPlan& plan, const std::optional<std::string>& reference_arm) {
  ordered_json m;
  m["fdsim_version"] = FDSIM_VERSION;
  m["fdsim_git_revision"] = FDSIM_GIT_REVISION;
  m["name"] = plan.name;
  m["source"] = plan.source;
  m["scenario_source"] = plan.scenario_source;
  m["reference_arm"] = reference_arm ? ordered_json(*reference_arm) : ordered_json(nullptr);
  m["axes"] = plan.axis_paths;
  if (std::any_of(plan.axis_names.begin(), plan.axis_names.end(),
                  [](const std::string& n) { return !n.empty(); })) {
    ordered_json names = ordered_json::object();
    for (size_t a = 0; a < plan.axis_paths.size() && a < plan.axis_names.size(); ++a)
      if (!plan.axis_names[a].empty()) names[plan.axis_paths[a]] = plan.axis_names[a];
    m["axis_names"] = std::move(names);
  }
  ordered_json points = ordered_json::array();
  for (size_t p = 0; p < plan.points.size(); ++p) {
    ordered_json params = ordered_json::object();
    for (size_t a = 0; a < plan.axis_paths.size(); ++a)
      params[plan.axis_paths[a]] = ordered_json::parse(plan.points[p].params[a].dump());
    ordered_json point;
    point["index"] = p;
    point["params"] = std::move(params);
    point["run_ids"] = plan.points[p].run_ids;
    points.push_back(std::move(point));
  }
  m["points"] = std::move(points);
  m["distinct_runs"] = plan.runs.size();
  if (!plan.calibration.is_null()) m["calibration"] = ordered_json::parse(plan.calibration.dump());
  m["sweep"] = ordered_json::parse(plan.sweep_doc.dump());
  return m;
}

std::optional<ManifestPlan> plan_from_manifest(const json& m, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<ManifestPlan> {
    *error = why;
    return std::nullopt;
  };
  if (!m.is_object()) return fail("not a JSON object");
  for (const char* key : {"name", "source", "scenario_source"})
    if (!m.contains(key) || !m[key].is_string())
      return fail(std::string("missing string field \"") + key + "\"");
  if (!m.contains("axes") || !m["axes"].is_array()) return fail("missing array \"axes\"");
  if (!m.contains("points") || !m["points"].is_array()) return fail("missing array \"points\"");
  ManifestPlan mp;
  SweepPlan& plan = mp.plan;
  plan.name = m["name"].get<std::string>();
  plan.source = m["source"].get<std::string>();
  plan.scenario_source = m["scenario_source"].get<std::string>();
  plan.sweep_doc = m.value("sweep", json());
  if (m.contains("reference_arm") && m["reference_arm"].is_string())
    mp.reference_arm = m["reference_arm"].get<std::string>();
  // A hand-made sweep.json with 100 000 axes exhausted memory in export (issue 24).
  if (m["axes"].size() > kMaxManifestAxes)
    return fail("more than " + std::to_string(kMaxManifestAxes) + " axes");
  for (const auto& a : m["axes"]) {
    if (!a.is_string()) return fail("\"axes\" must hold strings");
    plan.axis_paths.push_back(a.get<std::string>());
  }
  // Optional (sweeps with named axes): {path: name}; a name of another path is ignored.
  plan.axis_names.assign(plan.axis_paths.size(), "");
  if (m.contains("axis_names")) {
    if (!m["axis_names"].is_object()) return fail("\"axis_names\" must be an object");
    for (size_t a = 0; a < plan.axis_paths.size(); ++a) {
      if (!m["axis_names"].contains(plan.axis_paths[a])) continue;
      const json& n = m["axis_names"][plan.axis_paths[a]];
      if (!n.is_string() || n.get<std::string>().size() > kMaxAxisNameLength)
        return fail("\"axis_names\" must map axis paths to names (strings of at most " +
                    std::to_string(kMaxAxisNameLength) + " characters)");
      plan.axis_names[a] = n.get<std::string>();
      for (size_t b = 0; b < a; ++b)
        if (!plan.axis_names[a].empty() && plan.axis_names[b] == plan.axis_names[a])
          return fail("\"axis_names\" gives " + plan.axis_paths[b] + " and " +
                      plan.axis_paths[a] + " the same name");
    }
  }
  for (size_t p = 0; p < m["points"].size(); ++p) {
    const json& jp = m["points"][p];
    const std::string where = "points[" + std::to_string(p) + "]";
    if (!jp.is_object() || !jp.contains("params") || !jp["params"].is_object() ||
        !jp.contains("run_ids") || !jp["run_ids"].is_array())
      return fail(where + " needs \"params\" (object) and \"run_ids\" (array)");
    PlannedPoint point;
    for (const auto& path : plan.axis_paths) {
      if (!jp["params"].contains(path)) return fail(where + ".params lacks " + path);
      point.params.push_back(jp["params"][path]);
    }
    for (const auto& id : jp["run_ids"]) {
      if (!id.is_string() || id.get<std::string>().size() != 16 ||
          id.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
        return fail(where + ".run_ids holds something that is not a run id");
      point.run_ids.push_back(id.get<std::string>());
    }
    plan.points.push_back(std::move(point));
  }
  plan.runs = list_runs(plan.points);
  plan.calibration = m.value("calibration", json());
  return mp;
}

}  // namespace fdsim::sweep
