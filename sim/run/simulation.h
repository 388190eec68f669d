#pragma once
// One simulation of a loaded scenario: the world (simulator, hosts, network, RNG factory),
// the fault injector and the models of one arm (or of every arm, for the heartbeat study,
// whose arms all watch the same heartbeat stream), run from t = 0 to the horizon.
//
// Contract: the output depends only on (scenario, seed, replication, plan): two calls give
// identical metrics, fingerprint and trace. Order at t = 0: the fault injector schedules its
// faults first (so a fault and a model event at the same instant see the fault first, as
// sim/faults/injector.h asks), then the models start (membership first, then load sharing).
// Exceptions from models propagate to the caller (internal errors, not input errors).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/scenario_loader.h"
#include "sim/run/trace_output.h"

namespace fdsim::run {

struct SimulationPlan {
  std::vector<std::string> arms;  // the arms this simulation produces metrics for
  size_t arm_index = 0;           // the model's arm index (ignored for the heartbeat study)
  std::string trace_label;        // "arm" field of trace lines ("" = none)
};

struct SimulationOutput {
  nlohmann::json metrics;  // {arm: {...}} for every arm of the plan
  uint64_t fingerprint = 0;
  uint64_t events_dispatched = 0;
  size_t peak_queue_size = 0;
  nlohmann::json events_by_kind;  // {"kind name": dispatched count}
  double wall_s = 0.0;            // machine-dependent: goes to run_stats only
  double cpu_s = 0.0;             // CPU time of the thread that ran it (same): unlike the wall
                                  // time, it does not count waiting for a core on a busy machine
  // The budget's figures (sim/engine/budget.h): events plus charged work units, and the peak
  // heap bytes the simulation held (-1 when the program does not count its heap).
  double work_units = 0.0;
  int64_t peak_heap_bytes = -1;
};

// The simulations a scenario needs: one per arm, or one for every arm of the heartbeat study.
std::vector<SimulationPlan> plan_simulations(const Scenario& s);

// `progress(simulated seconds reached, events dispatched)` is called now and then; may be null.
SimulationOutput run_simulation(const Scenario& s, uint64_t replication,
                                const SimulationPlan& plan, TraceOutput* trace_out,
                                const std::function<void(double, uint64_t)>& progress);

}  // namespace fdsim::run
