#pragma once
// Protocol-event traces (the JSONL records of trace_collector.h, parsed) as a PlantUML
// sequence diagram, for the `fdsim trace --plantuml` command.
//
// Contract: the output is a pure function of the records (in the given order) and the
// options; records are drawn in their order, one line each:
// - "recv" records are message arrows "nA -> nB : <msg> @<t>" (a message is drawn when it
//   arrives; its send is not drawn again); "drop" records are lost arrows
//   "nA ->x nB : <msg> (<reason>) @<t>"; "probe_result" records are the probe's answer
//   "nB --> nA : <msg> answered @<t>" or a failed probe "nA ->x nB : <msg> <outcome> @<t>";
//   "send" records are not drawn.
// - every other record (a protocol decision or a timeout) is, when `notes` is on, a note
//   "hnote over nX : <kind> <field>=<value>, ... @<t>" with the record's own fields in key
//   order (t_ns, node, kind and arm left out).
// Only records inside [from_s, to_s] and whose nodes are all shown are drawn; participants are
// `members` (in that order) or, if empty, every node that appears in a drawn record, ascending.
// Times are seconds with millisecond precision ("@3.001s"). Records without the expected
// fields are skipped, never an error.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/ids.h"

namespace fdsim::run {

struct PlantUmlOptions {
  std::vector<NodeId> members;            // participants; empty = all that appear
  std::optional<double> from_s;           // time window, inclusive; nullopt = unbounded
  std::optional<double> to_s;
  bool notes = true;                      // draw decisions and timeouts as notes
  bool short_names = true;                // "geode.heartbeat" -> "heartbeat"
  std::vector<std::string> hide_messages; // message types not drawn (full names)
  std::vector<std::string> hide_kinds;    // decision kinds not drawn
  std::string title;                      // empty = no title
};

std::string trace_to_plantuml(const std::vector<nlohmann::json>& records,
                              const PlantUmlOptions& options);

}  // namespace fdsim::run
