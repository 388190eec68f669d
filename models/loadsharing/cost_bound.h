#pragma once
// Upper bounds of what one load-sharing simulation costs beyond its event sources' rates, for
// the cost estimate (sim/scenario/cost_estimate.h; the loader adds them once the horizon is
// known).
//
// Contract (bounds, not averages; docs/scenario-format.md, "Cost estimate"):
// - Per task, at most kEventsPerTask events of its own (arrival, service start and end, the
//   deadline's timer, a transfer's send, delivery and guard) plus 2 load broadcasts (a region
//   change at its arrival and one at its departure), each a send and a delivery to every
//   buddy: events per second <= tasks x (kEventsPerTask + 4 x b), b = min(buddy_size, n - 1);
//   plus one initial broadcast to every buddy (n x b) over the horizon.
// - A node's queue holds at most the tasks that arrive within its longest wait W (the largest
//   relative deadline; the horizon when deadlines are unbounded, or when late tasks finish
//   instead of aborting): a Poisson count's tail bound m + 4 sqrt(m) + 4 with m = rate x W,
//   or for batch arrivals batch x that bound with m = batch rate x W. Every queue operation walks or
//   moves the waiting tasks (local_queue.h charges one work unit per 64 entries): scan work
//   per second <= sum over nodes of rate x queue / 64 x kQueueOpsPerTask.
// - Memory: the queued tasks (kBytesPerQueuedTask each) and, per (node, buddy) pair, the
//   buddy lists, load tables and per-buddy estimators (kBytesPerBuddyEntry, measured at
//   184 B without diagnosis to 411 B with hou_shin arms, n = 1 000, b = 999).
// - T_out work (chains of 64 states or more, e.g. the CET load index with a large estimated
//   mu): computations per second ~ tasks x 2 broadcasts x loss values x 2 (a traced run's
//   records compute them once more), each at most
//   kPoissonTerms x (S + kTOutEvaluations) + S^2 + kTOutEvaluations x S operations / 64 units
//   (the Poisson and spectral paths) plus the exact fallback within the run span
//   (timeout/capped_quantile.h), at the rates the estimators may report (cost_bound.cpp).
#include <string>

#include "models/loadsharing/config.h"

namespace fdsim::loadsharing {

inline constexpr double kEventsPerTask = 8.0;
// Queue operations per task: at its arrival a guarantee test and an insertion, the same at a
// transfer's receiver, the erase at its service start, and a load-index computation at each of
// its three load changes (arrival, start, end).
inline constexpr double kQueueOpsPerTask = 8.0;
// A queued task: its queue entry, its ledger record, its deadline's pending event and the
// vector's slack (measured about 390 B with batch arrivals, 15 nodes).
inline constexpr double kBytesPerQueuedTask = 512.0;
inline constexpr double kBytesPerBuddyEntry = 480.0;
inline constexpr double kBytesPerLoadSharingNode = 4e3;
// Series terms of one Poisson-mixture evaluation at most (poisson_survival.h: kMaxMass, its
// 10 sqrt upper spread and the tail).
inline constexpr double kPoissonTerms = 5000.0 + 10.0 * 71.0 + 64.0;
// Survival evaluations of one quantile at most (doubling to the bracket, then Newton).
inline constexpr double kTOutEvaluations = 200.0;

struct LoadSharingCost {
  double events_per_s = 0;      // events per simulated second
  double work_per_s = 0;        // queue-scan and T_out work units per simulated second
  double t_out_work_per_s = 0;  // of which T_out computations (0 without chains of 64+ states)
  double t_out_states = 0;      // the T_out chains' states S when charged (S >= 64), else 0
  // Work units one T_out computation may charge in the exact fallback within the run span
  // (timeout/capped_quantile.h), counted in t_out_work_per_s; 0 without.
  double t_out_fallback_units = 0;
  std::string t_out_work_formula;
  std::string events_formula;
  double t_out_bytes = 0;       // one T_out computation's transient memory (0 without)
  std::string t_out_bytes_formula;
  double queue_bytes = 0;       // the queues at their bound
  std::string queue_formula;
  double buddy_bytes = 0;       // buddy sets and per-buddy state
  std::string buddy_formula;
};

// `loss_values`: how many distinct loss probabilities the links may have (1 + the network's
// overrides that set a loss).
// `max_loss`: the largest loss probability of a link; `max_allowance_s`: the largest delay
// allowance a link's latency law implies (q99 - min, at most 1e6 s). Both only size the
// extra-broadcast senders' T_out term.
LoadSharingCost load_sharing_cost_bound(const LoadSharingConfig& cfg, double horizon_s,
                                        double loss_values = 1.0, double max_loss = 0.0,
                                        double max_allowance_s = 0.0);

}  // namespace fdsim::loadsharing
