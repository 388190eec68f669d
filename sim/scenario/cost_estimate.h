#pragma once
// The cost estimate of a scenario (issue 24, items 5 and 6): before any model state is built
// (and before monitoring pairs or sweep grids are expanded), validation estimates the peak
// memory of one simulation and the total number of events a command will dispatch, and refuses
// a scenario over the limits (exit 2) with the estimate, instead of a run that ends in the
// kernel's OOM killer or takes a month.
//
// Contract:
// - The readers of each section record memory terms next to the key that sets them
//   (add_memory: "bytes of state this key makes the run hold", with the formula) and every
//   event source's rate (check_event_rate() in event_rate.h records it here too). The loader
//   then adds the terms it alone can compute (messages in flight = total event rate x the
//   largest mean one-way delay x kBytesPerPendingEvent) and calls check_cost_estimate().
// - The estimate is an order of magnitude, not a bound: the constants below were measured on
//   the shipped models (docs/scenario-format.md, "Cost estimate"). Memory is per simulation
//   (one arm of one replication: a sweep with -j N holds N of them); events are the whole
//   command: rate x horizon x simulations per replication x replications (x points in a sweep).
// - Refusal names the path of the largest memory term (or of the largest event source) and
//   reads "needs about 41.2 GB and 3.1e+11 events; the limit is 16.0 GB / 1e+11 events (raise
//   with --max-memory-gb / --max-events)".
// - The limits are process-wide, set once by the command line (set_cost_limits) before any
//   scenario is loaded, and only read afterwards (loads on worker threads see the same values).
//   They change no result and are not part of any run identity.
// - Never throws; non-finite or negative figures count as over the limit.

#include <string>
#include <string_view>

#include "sim/scenario/reader.h"

namespace fdsim::scenario {

struct CostLimits {
  double memory_bytes = 16e9;  // --max-memory-gb 16
  double events = 1e11;        // --max-events 1e11
  // Set when the command line gave the limit: it is then also the run budget of every
  // simulation (sim/run/run_budget.h), instead of a multiple of the estimate.
  bool memory_explicit = false;
  bool events_explicit = false;
};

// The process-wide limits (defaults above until set_cost_limits is called).
const CostLimits& cost_limits();
void set_cost_limits(const CostLimits& limits);

// Bytes of one pending engine event with its callback (the pooled slot, the queue entry and a
// std::function with its captures): what a message in flight or an armed timer costs.
inline constexpr double kBytesPerPendingEvent = 160.0;

struct CostEstimate {
  double memory_bytes = 0;     // peak state of one simulation
  std::string memory_path;     // JSON path of the largest memory term
  std::string memory_formula;  // how that term was computed
  double memory_largest = 0;
  double events_per_s = 0;     // sum of every source's events per simulated second
  // Work units inside events per simulated second (queue scans and the like, budget.h): they
  // count with the events but are no message in flight.
  double work_per_s = 0;
  std::string events_path;     // JSON path of the largest event source
  double events_largest = 0;
  // Samples kept for the metrics that grow with simulated time (bytes per simulated second);
  // the loader turns them into a memory term over the horizon.
  double stored_bytes_per_s = 0;
  std::string stored_path;
  std::string stored_formula;
  double horizon_s = 0;
  double simulations = 1;      // simulations per replication (arms, or 1 for a shared study)
  double replications = 1;
  // Events of one replication, and of the whole scenario (every replication).
  double events_per_replication() const {
    return (events_per_s + work_per_s) * horizon_s * simulations;
  }
  double total_events() const { return events_per_replication() * replications; }
};

// Records `bytes` of state on `key` of `r` (no effect when the reader's Diagnostics carries no
// estimate, e.g. in unit tests of one section).
void add_memory(ObjectReader& r, std::string_view key, double bytes, std::string_view formula);
void add_memory(CostEstimate& c, std::string path, double bytes, std::string_view formula);
// Records samples the run keeps, `bytes_per_s` per simulated second (the largest one names
// the term).
void add_stored_rate(ObjectReader& r, std::string_view key, double bytes_per_s,
                     std::string_view formula);
// Records an event source (called by check_event_rate()).
void add_event_rate(ObjectReader& r, std::string_view key, double events_per_s);

// Records work units inside events (sim/engine/budget.h, charge_work), `units_per_s` per
// simulated second: they count with the events but are no message in flight.
void add_work_rate(ObjectReader& r, std::string_view key, double units_per_s);

// True when `bytes` alone (a term about to be expanded, e.g. monitoring pairs) would exceed
// the memory limit; then records the refusal on `key` with the estimate and `formula`.
bool refuse_memory(ObjectReader& r, std::string_view key, double bytes, std::string_view formula);

// The refusal line ("needs about ... (raise with ...)") when `c` exceeds the limits with
// `total_events` events, or "" when it fits.
std::string cost_refusal(const CostEstimate& c, double total_events);

// "41.2 GB", "380 MB", "12 kB".
std::string bytes_text(double bytes);

// "about 12 MB per simulation and 3.4e+06 events (limits 16.0 GB / 1e+11)", for validate.
std::string cost_summary(const CostEstimate& c, double total_events);

}  // namespace fdsim::scenario
