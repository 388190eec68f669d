#pragma once
// The run layer's TraceSink: turns protocol-event records into JSONL lines.
//
// Contract: one line per record, in the order records are made (the simulator's event order,
// hence deterministic): {"t_ns":<int>,"node":<int or null>,"kind":"...","arm":"...",<fields>}
// with t_ns, node, kind (and arm, when the collector is labelled with one) first, then the
// model's fields in sorted key order. node is null for kNoNode. A model field named like one
// of the leading keys is a programmer error (aborts, naming the time and node).

#include <string>
#include <vector>

#include "sim/engine/trace.h"

namespace fdsim::run {

class TraceCollector : public TraceSink {
 public:
  // `arm` labels every line ("" = no label: one simulation serves every arm).
  TraceCollector(std::vector<std::string>& lines, std::string arm)
      : lines_(lines), arm_(std::move(arm)) {}
  void record(SimTime t, NodeId node, std::string_view kind,
              const nlohmann::json& fields) override;

 private:
  std::vector<std::string>& lines_;
  std::string arm_;
};

}  // namespace fdsim::run
