#pragma once
// Solves the calibrated axes of a sweep plan (sim/sweep/calibration_spec.h, docs/sweeps.md
// "Calibrated axes") before its runs, and writes the solved values into the plan.
//
// Contract:
// - Per point, each calibrated axis's value x is solved so that g(x) = mean_arm(x) -
//   target(x) is within tolerance_rel x |target(x)| of 0, where the means are over the pilot
//   replications: replications kPilotReplicationBase + k, k < pilot_replications (the largest
//   pilot_replications of the sweep's calibrated axes), of the point's scenario with the
//   candidate value(s) set. The same pilot replications at every candidate (common random
//   numbers) make the pilot mean a smooth function of x.
// - The solve: the two bracket ends, then the Illinois variant of false position, safeguarded
//   (a candidate is kept at least 1/16 of the bracket away from its ends, and the step is a
//   bisection when the bracket has not halved over the last two steps), at most
//   max_iterations evaluations after the ends. Candidates are rounded to 12 significant digits.
//   When the bracket and the pilot means and targets at both ends are > 0, the false position
//   and the bisections work in (log x, log(mean / target)): a power law (a rate c / period) is
//   then solved in one step.
// - All calibrated axes of a point are solved together (each evaluation runs the point's
//   scenario once per pilot replication and reads every axis's arm from those runs); they are
//   meant for different arms. The point's final values are evaluated together once more
//   (nothing is run again when the last evaluation already was at them) and every axis must
//   still be within its tolerance there, else the axes interact (a problem).
// - Problems (returned, exit code 2, each "<sweep file>: <$.axes[i].calibrate...>: point p
//   (params): why"): target not bracketed by the bracket's ends; metric not monotone over the
//   evaluations (a reversal larger than the tolerance); no convergence within max_iterations
//   or the bracket collapsing to adjacent representable candidates; an unknown arm or metric,
//   a null metric; a scenario invalid at a candidate value. A pilot's internal error gives
//   exit code 1; SIGINT/SIGTERM gives 128 + signal, nothing half-written.
// - Deterministic and resumable: candidates depend only on the pilot results, pilot results
//   only on the scenario and replication (run.h), so every invocation, every -j and every
//   shard solves the same values. Pilot results are stored in `pilot_dir` (a RunStore: the
//   same integrity checks as runs/) as they finish, and reused when trusted.
// - On success the plan's points carry the solved values (params and scenario), their run ids
//   are those of the solved scenarios, plan.runs is re-listed, the cost totals recomputed, and
//   plan.calibration holds the record written to sweep.json (pilot figures per evaluation,
//   solved values, achieved means). The record depends only on the sweep and the code.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/sweep/plan.h"
#include "sim/sweep/run_api.h"
#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

bool has_calibrated_axes(const SweepSpec& spec);

struct CalibrateOptions {
  size_t jobs = 1;
  // false: use only stored pilot results (`--aggregate-only`); a missing one is a problem.
  bool run_pilots = true;
};

struct CalibrateReport {
  int exit_code = 0;  // 0 solved; 2 problems; 1 a pilot's internal error; 128 + signal
  std::vector<std::string> problems;
  size_t evaluations = 0;     // (point, candidate) evaluations
  size_t pilots_executed = 0;
  size_t pilots_reused = 0;
  double pilot_cpu_s = 0;     // CPU time of the pilots executed now (machine-dependent)
  double largest_relative_error = 0;  // over points and axes, |mean - target| / |target|
};

CalibrateReport calibrate_plan(const SweepSpec& spec, SweepPlan* plan, const RunApi& api,
                               const std::filesystem::path& pilot_dir,
                               const CalibrateOptions& options);

// For `fdsim validate`: every point's scenario must also be valid at the high end of each
// calibrated axis's bracket (make_plan validated the low end). Problems as make_plan's.
std::vector<std::string> check_calibration_brackets(const SweepSpec& spec, const SweepPlan& plan,
                                                    const ResolveFn& resolve);

// Before make_plan(): sets each linked leaf (calibration_spec.h) in spec->base to its value at
// the bracket's low end, where make_plan() validates every point (the placeholder value of a
// calibrated axis). Changes no result: the solve sets every linked leaf at every candidate.
void set_calibration_placeholders(SweepSpec* spec);

// For `fdsim validate`: the most the calibration may cost, "; calibration: at most 84 pilot
// runs (2 points x 2 pilot replications x (2 + 40 + 1) evaluations, about 2.0e+06 events)";
// "" without calibrated axes. Events are estimated at the plan's mean per run.
std::string calibration_cost_summary(const SweepSpec& spec, const SweepPlan& plan);

// The calibration summary printed after a sweep: "calibration: 3 points x 1 axis solved in 27
// evaluations, 108 pilot runs (108 executed, 0 reused, 4.1 CPU-s); largest |relative error|
// 0.0012".
std::string calibration_summary(const SweepPlan& plan, const CalibrateReport& report);

}  // namespace fdsim::sweep
