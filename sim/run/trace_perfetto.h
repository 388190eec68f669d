#pragma once
// Protocol-event traces (the JSONL records of trace_collector.h, parsed) as Chrome trace-event
// JSON, which the Perfetto UI (ui.perfetto.dev) and chrome://tracing open. For
// `fdsim trace FILE --perfetto OUT.json`.
//
// Contract: the output is a pure function of the records (in the given order) and the
// options, one JSON object {"displayTimeUnit": "ns", "traceEvents": [...]}:
// - One track per node: pid = tid = node + 1, named "node N" by "process_name" and
//   "thread_name" metadata events (ph "M") and sorted by node ("process_sort_index"). Records
//   without a node go to one extra track "global" (pid = tid = largest node + 2).
// - ts is the record's time in microseconds (t_ns / 1000, exact to the nanosecond); events
//   appear in record order, so ts never decreases along a track.
// - "send" and "recv" records are slices (ph "X", dur 0.001 us, cat "message", name the
//   message type, args from, to, msg_id). A message with a "recv" gets a flow from its first
//   "send" to its first "recv" (ph "s" on the sender's track, ph "f" with bp "e" on the
//   receiver's, both with id = msg_id and name the message type): every flow start has exactly
//   one finish with the same id. Messages without msg_id (older traces) get no flow.
// - every other record ("drop", "probe_result", suspicions, removals, view changes, faults,
//   ...) is an instant event (ph "i", s "t") on its node's track: name = kind, cat "message"
//   for drop/probe_result else "decision", args = the record's own fields.
// - Spans (complete events, ph "X", cat "span", args = the start record's fields) for the
//   periods between a start and an end record, each kind on its own track of the node's
//   process (thread "node N: <track>"; tid = pid + k * (largest pid + 1), unique): "down"
//   crash..recover, "paused" pause..resume, "sick" sick..sick_end, "playing dead"
//   play_dead..play_dead_end, "starved" starve..starve_end, "in view" from a member's
//   view_installed to its removed_from_view, forced_disconnect or crash; on the "global"
//   process "partition" partition..heal, "loss burst" and "delay spike" (a start and an end
//   pair by their node lists a, b, from, to). A span still open at the last record kept ends
//   there (arg open_at_end: true); with from_s, a main end record (the first listed: resume,
//   sick_end, heal, removed_from_view, ...) whose start lies before the window starts at the
//   first record kept (arg begun_before_window: true); other unmatched ends are ignored. The start and end records also
//   stay as instants. Spans follow every other event, in start-record order of their end.
// Filters, as in trace_plantuml.h: records outside [from_s, to_s] and records of message types
// in hide_messages (full names) or of kinds in hide_kinds are left out; with `members`
// non-empty only records whose node (and, for messages, from and to) are members are kept.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/ids.h"

namespace fdsim::run {

struct PerfettoOptions {
  std::vector<NodeId> members;            // empty = every node
  std::optional<double> from_s;           // time window, inclusive; nullopt = unbounded
  std::optional<double> to_s;
  std::vector<std::string> hide_messages; // message types left out (full names)
  std::vector<std::string> hide_kinds;    // decision kinds left out
};

// The document; dump it with dump() (no indentation needed).
nlohmann::ordered_json trace_to_perfetto(const std::vector<nlohmann::json>& records,
                                         const PerfettoOptions& options);

}  // namespace fdsim::run
