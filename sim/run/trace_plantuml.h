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
// fields are skipped, never an error. hide_messages holds full names ("geode.heartbeat") or
// short ones ("heartbeat", which hides every type whose name ends in ".heartbeat").
//
// Streaming (issue 24 item 7): PlantUmlWriter takes the records one at a time and keeps only
// the lines it draws, at most `max_lines` of them and at most `max_bytes` of text (a diagram
// of more lines is past what PlantUML renders); records drawn after the cap are counted, not
// kept, and the diagram ends with the note
// "note across : N more records not drawn (cap of 100000 lines / 32 MB; narrow the diagram
// with --from-s, --to-s, --members or --hide-messages)". So its memory is bounded by the cap
// plus the set of participants, whatever the number of records. trace_to_plantuml() is the
// writer over a vector.

#include <cstdint>
#include <optional>
#include <set>
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
  size_t max_lines = 100'000;             // drawn lines kept (see Streaming above)
  size_t max_bytes = size_t(32) << 20;    // bytes of drawn lines kept
};

class PlantUmlWriter {
 public:
  explicit PlantUmlWriter(PlantUmlOptions options);
  void add(const nlohmann::json& record);
  // The diagram of every record added so far.
  std::string finish() const;
  uint64_t drawn() const { return lines_.size(); }
  uint64_t not_drawn() const { return over_cap_; }  // drawn after the cap: counted only

 private:
  PlantUmlOptions o_;
  std::set<NodeId> shown_;
  std::set<NodeId> seen_;
  std::vector<std::string> lines_;
  size_t bytes_ = 0;
  uint64_t over_cap_ = 0;
};

std::string trace_to_plantuml(const std::vector<nlohmann::json>& records,
                              const PlantUmlOptions& options);

}  // namespace fdsim::run
