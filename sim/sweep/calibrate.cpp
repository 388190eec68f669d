#include "sim/sweep/calibrate.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <thread>

#include "sim/engine/interrupt.h"
#include "sim/scenario/reader.h"
#include "sim/sweep/run_store.h"

namespace fdsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// The arm's metric under its dotted aggregate name ("traffic.messages_per_node_s",
// "hosts_per_node[3].up_time_s"). Keys may themselves hold dots: every key that is a prefix of
// the rest of the name is tried. nullopt when absent or not a number.
std::optional<double> metric_at(const json& node, std::string_view name) {
  if (name.empty()) {
    if (node.is_number()) return node.get<double>();
    return std::nullopt;
  }
  if (name.front() == '[') {
    const size_t close = name.find(']');
    if (close == std::string_view::npos || !node.is_array()) return std::nullopt;
    size_t index = 0;
    for (size_t i = 1; i < close; ++i) {
      if (name[i] < '0' || name[i] > '9') return std::nullopt;
      index = index * 10 + size_t(name[i] - '0');
      if (index > node.size()) return std::nullopt;
    }
    if (index >= node.size()) return std::nullopt;
    std::string_view rest = name.substr(close + 1);
    if (!rest.empty() && rest.front() == '.') rest.remove_prefix(1);
    return metric_at(node[index], rest);
  }
  if (!node.is_object()) return std::nullopt;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string& key = it.key();
    if (name.substr(0, key.size()) != key) continue;
    std::string_view rest = name.substr(key.size());
    if (rest.empty()) return metric_at(it.value(), rest);
    if (rest.front() == '[') {
      if (auto v = metric_at(it.value(), rest)) return v;
    } else if (rest.front() == '.') {
      if (auto v = metric_at(it.value(), rest.substr(1))) return v;
    }
  }
  return std::nullopt;
}

struct Evaluation {
  double x = 0, mean = 0, target = 0;
  double g() const { return mean - target; }
};

// The solve of one calibrated axis at one point.
struct AxisSolve {
  const CalibrationSpec* cal = nullptr;
  size_t flat = 0;  // index in plan.axis_paths
  const JsonPath* path = nullptr;
  std::vector<Evaluation> evals;
  double x = 0;  // the candidate of the next evaluation (the solved value once done)
  double a = 0, ga = 0, b = 0, gb = 0;  // the bracket, g values possibly halved (Illinois)
  int last_side = 0;                    // -1: b was replaced last, +1: a was
  // Log mode (bracket > 0, means and targets > 0): the false position works on (log x,
  // log(mean / target)), exact for a power law such as a message rate c / period, and
  // bisections are geometric. ga, gb are then log ratios.
  bool log_mode = false;
  double u(double x) const { return log_mode ? std::log(x) : x; }
  double h(double mean, double target) const {
    return log_mode ? std::log(mean / target) : mean - target;
  }
  std::vector<double> widths;           // bracket width after each step
  bool done = false;
  int stage = 0;  // 0: evaluating lo, 1: hi, 2: iterating
};

struct PointSolve {
  std::vector<AxisSolve> axes;
  std::vector<double> last_values;  // values of the last evaluation
  std::vector<double> last_means, last_targets;
  bool verified = false;
  bool failed = false;
};

double tolerance_abs(const AxisSolve& s, double target) {
  return s.cal->tolerance_rel * std::fabs(target);
}

std::string target_text(const CalibrationSpec& c) {
  return c.target_arm.empty() ? fmt(*c.target_value) : "the mean of arm \"" + c.target_arm + "\"";
}

}  // namespace

bool has_calibrated_axes(const SweepSpec& spec) {
  for (const auto& g : spec.groups)
    for (const auto& a : g.axes)
      if (a.calibrate) return true;
  return false;
}

std::vector<std::string> check_calibration_brackets(const SweepSpec& spec, const SweepPlan& plan,
                                                    const ResolveFn& resolve) {
  std::vector<std::string> problems;
  std::vector<const Axis*> calibrated;
  for (const auto& g : spec.groups)
    for (const auto& a : g.axes)
      if (a.calibrate) calibrated.push_back(&a);
  if (calibrated.empty()) return problems;
  // Linked leaves: settable in the base, and set by nothing else.
  for (const Axis* a : calibrated)
    for (const auto& l : a->calibrate->linked) {
      const std::string why = l.path.settable(spec.base, "the base scenario");
      if (!why.empty()) problems.push_back(spec.source + ": " + l.where + ".path: " + why);
      for (const auto& g : spec.groups)
        for (const auto& other : g.axes)
          if (other.path.is_prefix_of(l.path) || l.path.is_prefix_of(other.path))
            problems.push_back(spec.source + ": " + l.where + ".path: " + l.path.text() +
                               " overlaps the axis " + other.path.text() +
                               ": each place may be set by one axis or link only");
    }
  if (!problems.empty()) return problems;
  std::map<std::string, std::vector<size_t>> where;
  std::vector<std::string> distinct;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    json scenario = plan.points[p].scenario;
    for (const Axis* a : calibrated) set_calibrated_value(*a->calibrate, a->path, scenario, a->calibrate->hi);
    const run::ResolveOutcome res = resolve(scenario, plan.scenario_source);
    if (res.ok) continue;
    for (const auto& pr : res.problems) {
      auto& pts = where[pr];
      if (pts.empty()) distinct.push_back(pr);
      pts.push_back(p);
    }
  }
  for (const auto& pr : distinct) {
    const auto& pts = where[pr];
    problems.push_back(spec.source + ": " + calibrated.front()->calibrate->where +
                       ".bracket: at the high end of the bracket, point " +
                       std::to_string(pts.front()) +
                       (pts.size() > 1 ? " (and " + std::to_string(pts.size() - 1) + " more)" : "") +
                       ": " + pr);
    if (problems.size() >= 20) break;
  }
  return problems;
}

CalibrateReport calibrate_plan(const SweepSpec& spec, SweepPlan* plan, const RunApi& api,
                               const fs::path& pilot_dir, const CalibrateOptions& options) {
  CalibrateReport report;
  // The calibrated axes, with their flat index in plan.axis_paths.
  std::vector<std::pair<size_t, const Axis*>> calibrated;
  {
    size_t flat = 0;
    for (const auto& g : spec.groups)
      for (const auto& a : g.axes) {
        if (a.calibrate) calibrated.emplace_back(flat, &a);
        ++flat;
      }
  }
  if (calibrated.empty()) return report;
  int64_t pilots = 1;
  for (const auto& [flat, a] : calibrated) pilots = std::max(pilots, a->calibrate->pilot_replications);

  auto fail = [&](int code, const std::string& msg) {
    report.exit_code = (report.exit_code == 1 || code == 1) ? 1 : code;  // internal errors first
    report.problems.push_back(msg);
  };
  auto point_text = [&](size_t p) {
    // The point's non-calibrated parameters (the calibrated ones are being solved).
    std::string s;
    for (size_t i = 0; i < plan->axis_paths.size(); ++i) {
      bool is_cal = false;
      for (const auto& c : calibrated) is_cal |= c.first == i;
      if (is_cal) continue;
      if (!s.empty()) s += ", ";
      s += plan->axis_paths[i] + " = " + plan->points[p].params[i].dump();
    }
    return "point " + std::to_string(p) + (s.empty() ? "" : " (" + s + ")");
  };

  std::error_code ec;
  fs::create_directories(pilot_dir, ec);
  RunStore store(pilot_dir);
  {
    std::string error;
    if (!store.ensure_key(&error)) {
      fail(2, error);
      return report;
    }
  }

  std::vector<PointSolve> solves(plan->points.size());
  for (auto& ps : solves) {
    for (const auto& [flat, a] : calibrated) {
      AxisSolve s;
      s.cal = &*a->calibrate;
      s.flat = flat;
      s.path = &a->path;
      s.x = s.cal->lo;
      ps.axes.push_back(s);
    }
  }

  // One evaluation task: a point's scenario at its candidates, pilot replication k.
  struct Task {
    size_t point = 0;
    uint64_t replication = 0;
    json scenario;
    std::string id;
    std::optional<json> result;
    std::string problem;   // bad input
    std::string internal;  // internal error
    bool executed = false;
    double cpu_s = 0;
  };

  for (int round = 0; round < int(kMaxCalibrationIterations) + 4; ++round) {
    // The points still to evaluate, with their candidate scenarios.
    std::vector<Task> tasks;
    std::vector<size_t> active;
    for (size_t p = 0; p < solves.size(); ++p) {
      PointSolve& ps = solves[p];
      if (ps.failed || ps.verified) continue;
      json scenario = plan->points[p].scenario;
      for (const auto& s : ps.axes) set_calibrated_value(*s.cal, *s.path, scenario, s.x);
      const run::ResolveOutcome res = api.resolve(scenario, plan->scenario_source);
      if (!res.ok) {
        std::string why = res.problems.empty() ? "the scenario is not valid" : res.problems.front();
        std::string values;
        for (const auto& s : ps.axes) values += (values.empty() ? "" : ", ") + s.path->text() + " = " + fmt(s.x);
        fail(2, spec.source + ": " + ps.axes.front().cal->where + ": " + point_text(p) +
                    ": the scenario is not valid at " + values + ": " + why);
        ps.failed = true;
        continue;
      }
      active.push_back(p);
      for (int64_t k = 0; k < pilots; ++k) {
        Task t;
        t.point = p;
        t.replication = kPilotReplicationBase + uint64_t(k);
        t.scenario = scenario;
        t.id = run_identity(res.resolved, t.replication);
        tasks.push_back(std::move(t));
      }
    }
    if (active.empty()) break;

    // Stored pilots first, then the rest on `jobs` threads.
    std::vector<size_t> to_run;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (auto r = store.load_result(tasks[i].id)) {
        tasks[i].result = std::move(*r);
        ++report.pilots_reused;
      } else {
        to_run.push_back(i);
      }
    }
    if (!to_run.empty() && !options.run_pilots) {
      fail(2, spec.source + ": " + calibrated.front().second->calibrate->where + ": " +
                  std::to_string(to_run.size()) +
                  " calibration pilot runs are not stored in " + pilot_dir.string() +
                  ": run the sweep without --aggregate-only to solve the calibration");
      return report;
    }
    std::atomic<size_t> next{0};
    auto worker = [&]() {
      for (;;) {
        const size_t n = next.fetch_add(1);
        if (n >= to_run.size() || interrupt_signal() != 0) return;
        Task& t = tasks[to_run[n]];
        run::RunOutcome out;
        try {
          out = api.execute(t.scenario, plan->scenario_source, t.replication, {});
        } catch (const Interrupted&) {
          return;
        } catch (const std::exception& e) {
          t.internal = e.what();
          continue;
        }
        if (!out.ok) {
          if (interrupt_signal() != 0) return;
          if (!out.problems.empty()) t.problem = out.problems.front();
          else t.internal = out.internal_error.empty() ? "the run failed" : out.internal_error;
          continue;
        }
        std::string error;
        if (!store.write_result(t.id, out.result, out.run_stats, &error)) {
          t.internal = error;
          continue;
        }
        t.executed = true;
        t.cpu_s = out.run_stats.value("cpu_time_s", 0.0);
        t.result = std::move(out.result);  // each task is written by one thread only
      }
    };
    {
      const size_t n = std::max<size_t>(1, std::min(options.jobs, to_run.size()));
      std::vector<std::thread> threads;
      for (size_t i = 1; i < n; ++i) threads.emplace_back(worker);
      worker();
      for (auto& th : threads) th.join();
    }
    if (interrupt_signal() != 0) {
      report.exit_code = 128 + interrupt_signal();
      return report;
    }
    for (const Task& t : tasks) {
      if (t.executed) {
        ++report.pilots_executed;
        report.pilot_cpu_s += t.cpu_s;
      }
      if (!t.internal.empty()) {
        fail(1, spec.source + ": calibration pilot " + t.id + " of " + point_text(t.point) +
                    ", replication " + std::to_string(t.replication) + ": " + t.internal);
        solves[t.point].failed = true;
      } else if (!t.problem.empty() && !solves[t.point].failed) {
        fail(2, spec.source + ": " + calibrated.front().second->calibrate->where + ": " +
                    point_text(t.point) + ": " + t.problem);
        solves[t.point].failed = true;
      }
    }

    // Pilot means per point and axis; then each axis's next step.
    for (size_t p : active) {
      PointSolve& ps = solves[p];
      if (ps.failed) continue;
      ++report.evaluations;
      ps.last_values.clear();
      ps.last_means.clear();
      ps.last_targets.clear();
      for (AxisSolve& s : ps.axes) {
        const CalibrationSpec& c = *s.cal;
        const std::string where = spec.source + ": " + c.where;
        double sum = 0, target_sum = 0;
        std::string problem;
        for (const Task& t : tasks) {
          if (t.point != p || !problem.empty()) continue;
          const json& metrics = (*t.result)["metrics"];
          std::vector<std::string> arms;
          if (t.result->contains("manifest") && (*t.result)["manifest"].contains("arm_order"))
            for (const auto& a : (*t.result)["manifest"]["arm_order"])
              if (a.is_string()) arms.push_back(a.get<std::string>());
          auto arm_list = [&] {
            std::string l;
            for (const auto& a : arms) l += (l.empty() ? "" : ", ") + a;
            return l;
          };
          std::string arm = c.arm;
          if (arm.empty()) {
            if (arms.size() != 1) {
              problem = where + ": the results have " + std::to_string(arms.size()) +
                        " arms (" + arm_list() + "): name the calibrated one with \"arm\"";
              continue;
            }
            arm = arms.front();
          }
          for (const std::string& which : {arm, c.target_arm}) {
            if (which.empty() || !problem.empty()) continue;
            if (!metrics.contains(which)) {
              problem = where + (which == arm ? ".arm" : ".target") + ": no arm \"" + which +
                        "\" in the results (arms: " + arm_list() + ")";
              break;
            }
            const auto v = metric_at(metrics[which], c.metric);
            if (!v) {
              problem = where + ".metric: arm \"" + which + "\" has no numeric metric \"" +
                        c.metric + "\" at " + point_text(p) + " (absent or null in pilot " +
                        t.id + ")";
              break;
            }
            (which == arm ? sum : target_sum) += *v;
          }
        }
        if (!problem.empty()) {
          fail(2, problem);
          ps.failed = true;
          break;
        }
        const double mean = sum / double(pilots);
        const double target = c.target_arm.empty() ? *c.target_value : target_sum / double(pilots);
        ps.last_values.push_back(s.x);
        ps.last_means.push_back(mean);
        ps.last_targets.push_back(target);
        if (s.done) continue;
        if (target == 0) {
          fail(2, where + ".target: " + point_text(p) + ": the target (" + target_text(c) +
                      ") is 0 at " + s.path->text() + " = " + fmt(s.x) +
                      "; the tolerance is relative to it");
          ps.failed = true;
          break;
        }
        s.evals.push_back({s.x, mean, target});
        const double tol = tolerance_abs(s, target);
        const double g = mean - target;
        auto describe_evals = [&] {
          std::vector<Evaluation> sorted = s.evals;
          std::sort(sorted.begin(), sorted.end(),
                    [](const Evaluation& l, const Evaluation& r) { return l.x < r.x; });
          std::string text;
          for (const auto& e : sorted)
            text += (text.empty() ? "" : ", ") + fmt(e.mean) + " at " + fmt(e.x);
          return text;
        };
        if (std::fabs(g) <= tol && s.stage != 0) {
          s.done = true;  // (at lo, the high end is still evaluated: see stage 0 below)
          continue;
        }
        if (s.stage == 0) {
          s.a = s.x;
          s.ga = g;
          s.stage = 1;
          s.x = c.hi;
          continue;
        }
        if (s.stage == 1) {
          if (std::fabs(s.ga) <= tolerance_abs(s, s.evals.front().target)) {
            // The low end already hits the target.
            s.x = c.lo;
            s.done = true;
            continue;
          }
          if ((s.ga > 0) == (g > 0)) {
            fail(2, where + ".bracket: " + point_text(p) + ": the target is not bracketed: arm " +
                        "mean of " + c.metric + " is " + fmt(s.evals[0].mean) + " at " +
                        s.path->text() + " = " + fmt(c.lo) + " and " + fmt(mean) + " at " +
                        fmt(c.hi) + ", target " + fmt(target) +
                        (c.target_arm.empty() ? "" : " (" + target_text(c) + ")") +
                        ": widen the bracket");
            ps.failed = true;
            break;
          }
          s.b = s.x;
          s.gb = g;
          s.stage = 2;
          const Evaluation& e0 = s.evals.front();
          s.log_mode = c.lo > 0 && e0.mean > 0 && e0.target > 0 && mean > 0 && target > 0;
          if (s.log_mode) {
            s.ga = s.h(e0.mean, e0.target);
            s.gb = s.h(mean, target);
          }
          s.widths.push_back(std::fabs(s.u(s.b) - s.u(s.a)));
        } else {
          // Monotone over every evaluation so far, in the direction of the two ends.
          const double direction = s.evals[1].g() > s.evals[0].g() ? 1.0 : -1.0;
          std::vector<Evaluation> sorted = s.evals;
          std::sort(sorted.begin(), sorted.end(),
                    [](const Evaluation& l, const Evaluation& r) { return l.x < r.x; });
          bool monotone = true;
          for (size_t i = 1; i < sorted.size(); ++i)
            if (direction * (sorted[i].g() - sorted[i - 1].g()) < -tol) monotone = false;
          if (!monotone) {
            fail(2, where + ".bracket: " + point_text(p) + ": arm mean of " + c.metric +
                        " minus its target is not monotone in " + s.path->text() +
                        " over the bracket (" + describe_evals() +
                        "): narrow the bracket to a monotone part");
            ps.failed = true;
            break;
          }
          // Illinois update of the bracket (in log mode on log ratios, same signs as g).
          if (s.log_mode && !(mean > 0 && target > 0)) {
            // A non-positive mean: back to plain differences, from the bracket's evaluations.
            s.log_mode = false;
            for (const auto& e : s.evals) {
              if (e.x == s.a) s.ga = e.g();
              if (e.x == s.b) s.gb = e.g();
            }
          }
          const double hg = s.h(mean, target);
          if ((g > 0) == (s.gb > 0)) {
            s.b = s.x;
            s.gb = hg;
            if (s.last_side == -1) s.ga /= 2;
            s.last_side = -1;
          } else {
            s.a = s.x;
            s.ga = hg;
            if (s.last_side == +1) s.gb /= 2;
            s.last_side = +1;
          }
          s.widths.push_back(std::fabs(s.u(s.b) - s.u(s.a)));
        }
        if (int64_t(s.evals.size()) - 2 >= c.max_iterations) {
          fail(2, where + ".max_iterations: " + point_text(p) + ": no value within the tolerance " +
                      "after " + std::to_string(c.max_iterations) + " iterations (" +
                      describe_evals() + "; target " + fmt(target) + ")");
          ps.failed = true;
          break;
        }
        // The next candidate: false position, kept 1/16 of the bracket from its ends; a
        // bisection when the bracket has not halved over the last two steps. In log mode all
        // of it in log x.
        const double lo = std::min(s.a, s.b), hi = std::max(s.a, s.b);
        const double ulo = s.u(lo), uhi = s.u(hi), w = uhi - ulo;
        double un = (s.u(s.a) * s.gb - s.u(s.b) * s.ga) / (s.gb - s.ga);
        const size_t nw = s.widths.size();
        if (nw >= 3 && s.widths[nw - 1] > 0.5 * s.widths[nw - 3]) un = 0.5 * (ulo + uhi);
        if (!std::isfinite(un)) un = 0.5 * (ulo + uhi);
        un = std::clamp(un, ulo + w / 16, uhi - w / 16);
        double next = round12(s.log_mode ? std::exp(un) : un);
        if (!(next > lo && next < hi)) {
          fail(2, where + ".tolerance_rel: " + point_text(p) + ": the metric jumps across the " +
                      "target between " + s.path->text() + " = " + fmt(lo) + " and " + fmt(hi) +
                      " (" + describe_evals() + "; target " + fmt(target) +
                      "): no value reaches the tolerance");
          ps.failed = true;
          break;
        }
        s.x = next;
      }
      if (ps.failed) continue;
      // Every axis solved: the last evaluation must have been at the solved values, with every
      // axis within its tolerance there; else evaluate the solved values together.
      bool all_done = true;
      for (const auto& s : ps.axes) all_done &= s.done;
      if (!all_done) continue;
      bool at_solved = true;
      for (size_t i = 0; i < ps.axes.size(); ++i) at_solved &= ps.last_values[i] == ps.axes[i].x;
      if (!at_solved) continue;  // evaluated in the next round
      for (size_t i = 0; i < ps.axes.size(); ++i) {
        const AxisSolve& s = ps.axes[i];
        if (std::fabs(ps.last_means[i] - ps.last_targets[i]) > tolerance_abs(s, ps.last_targets[i])) {
          fail(2, spec.source + ": " + s.cal->where + ": " + point_text(p) +
                      ": the calibrated axes interact: with every axis at its solved value, arm " +
                      "mean " + fmt(ps.last_means[i]) + " misses its target " +
                      fmt(ps.last_targets[i]) + " (calibrate axes of different arms, or one "
                      "axis per sweep)");
          ps.failed = true;
        }
      }
      ps.verified = !ps.failed;
    }
  }
  if (!report.problems.empty()) return report;
  for (size_t p = 0; p < solves.size(); ++p)
    if (!solves[p].verified) {
      fail(1, spec.source + ": calibration of " + point_text(p) + " did not end");
      return report;
    }

  // Write the solved values into the plan, with the run ids of the solved scenarios.
  json axes_record = json::array();
  for (const auto& [flat, a] : calibrated) {
    const CalibrationSpec& c = *a->calibrate;
    json target = c.target_arm.empty() ? json(*c.target_value) : json{{"arm", c.target_arm}};
    json linked = json::array();
    for (const auto& l : c.linked)
      linked.push_back({{"path", l.path.text()}, {"scale", l.scale}, {"offset", l.offset}});
    axes_record.push_back({{"where", c.where},
                           {"linked", linked},
                           {"path", a->path.text()},
                           {"arm", c.arm},
                           {"metric", c.metric},
                           {"target", target},
                           {"tolerance_rel", c.tolerance_rel},
                           {"bracket", {c.lo, c.hi}},
                           {"max_iterations", c.max_iterations}});
  }
  json points_record = json::array();
  double events = 0;
  for (size_t p = 0; p < solves.size(); ++p) {
    PlannedPoint& point = plan->points[p];
    const PointSolve& ps = solves[p];
    json axes = json::array();
    for (size_t i = 0; i < ps.axes.size(); ++i) {
      const AxisSolve& s = ps.axes[i];
      point.params[s.flat] = json(s.x);
      set_calibrated_value(*s.cal, *s.path, point.scenario, s.x);
      const double rel = (ps.last_means[i] - ps.last_targets[i]) / std::fabs(ps.last_targets[i]);
      report.largest_relative_error = std::max(report.largest_relative_error, std::fabs(rel));
      json evals = json::array();
      for (const auto& e : s.evals)
        evals.push_back({{"value", e.x}, {"arm_mean", e.mean}, {"target_mean", e.target}});
      axes.push_back({{"path", s.path->text()},
                      {"solved", s.x},
                      {"achieved_mean", ps.last_means[i]},
                      {"target_mean", ps.last_targets[i]},
                      {"relative_error", rel},
                      {"evaluations", evals}});
    }
    const run::ResolveOutcome res = api.resolve(point.scenario, plan->scenario_source);
    if (!res.ok) {
      fail(2, spec.source + ": " + point_text(p) + ": not valid at the solved values: " +
                  (res.problems.empty() ? std::string("?") : res.problems.front()));
      return report;
    }
    for (size_t r = 0; r < point.run_ids.size(); ++r)
      point.run_ids[r] = run_identity(res.resolved, uint64_t(r));
    events += res.events_per_replication * double(point.run_ids.size());
    points_record.push_back({{"point", p}, {"axes", axes}});
  }
  plan->total_events = events;
  plan->runs = list_runs(plan->points);
  plan->calibration = {{"pilot_replications", pilots},
                       {"pilot_replication_base", kPilotReplicationBase},
                       {"axes", axes_record},
                       {"points", points_record}};
  return report;
}

void set_calibration_placeholders(SweepSpec* spec) {
  for (const auto& g : spec->groups)
    for (const auto& a : g.axes)
      if (a.calibrate)
        for (const auto& l : a.calibrate->linked)
          if (l.path.settable(spec->base, "").empty())
            l.path.set(spec->base, json(round12(l.scale * a.calibrate->lo + l.offset)));
}

std::string calibration_cost_summary(const SweepSpec& spec, const SweepPlan& plan) {
  int64_t pilots = 0, iterations = 0;
  for (const auto& g : spec.groups)
    for (const auto& a : g.axes)
      if (a.calibrate) {
        pilots = std::max(pilots, a.calibrate->pilot_replications);
        iterations = std::max(iterations, a.calibrate->max_iterations);
      }
  if (pilots == 0) return "";
  const double evaluations = double(2 + iterations + 1);
  const double runs = double(plan.points.size()) * double(pilots) * evaluations;
  const double events_per_run = plan.runs.empty() ? 0 : plan.total_events / double(plan.runs.size());
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "; calibration: at most %.0f pilot runs (%zu points x %lld pilot replications x "
                "(2 + %lld + 1) evaluations, about %.2g events)",
                runs, plan.points.size(), static_cast<long long>(pilots),
                static_cast<long long>(iterations), runs * events_per_run);
  return buf;
}

std::string calibration_summary(const SweepPlan& plan, const CalibrateReport& report) {
  size_t axes = 0;
  if (plan.calibration.is_object() && plan.calibration.contains("axes"))
    axes = plan.calibration["axes"].size();
  char cpu[32];
  std::snprintf(cpu, sizeof cpu, "%.1f", report.pilot_cpu_s);
  return "calibration: " + std::to_string(plan.points.size()) + " points x " +
         std::to_string(axes) + (axes == 1 ? " axis" : " axes") + " solved in " +
         std::to_string(report.evaluations) + " evaluations, " +
         std::to_string(report.pilots_executed + report.pilots_reused) + " pilot runs (" +
         std::to_string(report.pilots_executed) + " executed, " +
         std::to_string(report.pilots_reused) + " reused, " + cpu +
         " CPU-s); largest |relative error| " + fmt(report.largest_relative_error);
}

}  // namespace fdsim::sweep
