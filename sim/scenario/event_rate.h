#pragma once
// The event-rate budget of a scenario (issue 16): a rate or a period that would make the
// simulation schedule more events per simulated second than kMaxEventsPerSimulatedSecond is
// bad input, refused at validation (exit 2) with the estimate in the message, instead of a run
// that exhausts memory or never gets anywhere.
//
// Contract:
// - Each model's config reader estimates, next to the key it reads, the events per simulated
//   second that one source of load (a timer, an arrival process, a fault process) schedules
//   over the whole scenario, and calls check_event_rate(); every source is checked against the
//   budget on its own (the estimates are lower bounds: one event per firing, per node).
// - The problem is recorded at the reader's path of `key`, one line, e.g.
//   "$.membership.heartbeat_period_ms: would schedule about 2e+12 events per simulated second
//    (nodes.count 1000 x heartbeat_predecessors 2 / heartbeat_period 1e-06 ms); the limit is
//    1e+08 (docs/scenario-format.md, Limits)".
// - Never throws; a non-finite or negative estimate counts as over the budget.

#include <string>
#include <string_view>

#include "sim/engine/time.h"
#include "sim/scenario/reader.h"

namespace fdsim::scenario {

// 1e8 events per simulated second: a thousand times the busiest shipped scenario, and at the
// engine's few million events per wall second already several minutes of wall time per
// simulated minute.
inline constexpr double kMaxEventsPerSimulatedSecond = 1e8;

// Records a problem on `key` of `r` when `events_per_s` exceeds the budget; `formula` says how
// the estimate was made. Returns true when within the budget.
bool check_event_rate(ObjectReader& r, std::string_view key, double events_per_s,
                      std::string_view formula);

// A timer of period `period` on each of `sources` sources (nodes, pairs...) firing `per_firing`
// events: estimate = sources x per_firing / period. `sources_text` names the sources in the
// message ("nodes.count 1000"); a zero period means "disabled" and passes.
bool check_period(ObjectReader& r, std::string_view key, Duration period, double sources,
                  std::string_view sources_text, double per_firing = 1.0,
                  std::string_view per_firing_text = "");

// Number formatting of the messages ("1e+08", "2500", "0.001").
std::string rate_text(double v);

}  // namespace fdsim::scenario
