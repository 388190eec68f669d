#pragma once
// The budget of one simulation (sim/engine/budget.h), from the scenario's cost estimate.
//
// Contract (docs/scenario-format.md, "Run budgets"):
// - Memory budget of one simulation = the smallest of
//   - kMemorySlack x the estimate + kMemoryFloorBytes (the estimate is an upper bound up to
//     that constant: tests/run/cost_bound_property_test.cpp), or --max-memory-gb when given;
//   - the validation limit (16 GB by default);
//   - the environment's share: 3/4 of what an address-space limit (RLIMIT_AS) or the cgroup's
//     memory limit leaves above the process's size when the command starts, divided by the
//     simulations that run at once (a sweep's -j), so the budget, not the kernel, stops a run.
// - Work budget of one simulation = kWorkSlack x the estimated events + kWorkFloorUnits, or
//   --max-events when given, at most the validation limit.
// - Pure functions of the scenario and the process-wide settings (cost_limits(), the
//   environment read once, set_concurrent_simulations()): never part of a result or of a run's
//   identity, so a budget changes no result, it only stops runs that break it.

#include "sim/engine/budget.h"
#include "sim/run/scenario_loader.h"

namespace fdsim::run {

inline constexpr double kMemorySlack = 2.0;
inline constexpr double kMemoryFloorBytes = 64e6;
inline constexpr double kWorkSlack = 2.0;
inline constexpr double kWorkFloorUnits = 1e6;

// What the estimate says one simulation of `s` costs (memory of one simulation, events of one
// simulation).
BudgetEstimate simulation_estimate(const Scenario& s);
BudgetLimits simulation_budget(const Scenario& s);

// Bytes the environment lets this process hold in all (RLIMIT_AS or the cgroup memory limit,
// minus the process's size when first called); +inf when neither is set. Read once.
double environment_memory_bytes();
// The memory budget's environment share (environment_memory_bytes() x 3/4 / concurrent
// simulations).
double environment_share_bytes();
// How many simulations run at once in this process (a sweep's -j; 1 by default).
void set_concurrent_simulations(unsigned n);

}  // namespace fdsim::run
