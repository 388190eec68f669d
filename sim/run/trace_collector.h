#pragma once
// The run layer's TraceSink: turns protocol-event records into JSONL lines.
//
// Contract: one line per record, in the order records are made (the simulator's event order,
// hence deterministic): {"t_ns":<int>,"node":<int or null>,"kind":"...","arm":"...",<fields>}
// with t_ns, node, kind (and arm, when the collector is labelled with one) first, then the
// model's fields in sorted key order. node is null for kNoNode. A model field named like one
// of the leading keys is a programmer error: it throws std::logic_error naming the time, node
// and record, which fails the run as an internal error (exit 1; one failed run in a sweep)
// instead of aborting the process.

#include <string>
#include <vector>

#include "sim/engine/trace.h"
#include "sim/run/trace_output.h"

namespace fdsim::run {

class TraceCollector : public TraceSink {
 public:
  // `arm` labels every line ("" = no label: one simulation serves every arm).
  TraceCollector(TraceOutput& out, std::string arm) : out_(out), arm_(std::move(arm)) {}
  void record(SimTime t, NodeId node, std::string_view kind,
              const nlohmann::json& fields) override;

 private:
  TraceOutput& out_;
  std::string arm_;
};

}  // namespace fdsim::run
