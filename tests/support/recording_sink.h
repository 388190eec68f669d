#pragma once
// A trace sink for model tests: keeps every protocol-event record as one JSON object (the
// model's fields plus "t_ns", "node" and "kind"), in the order the simulator emits them, so
// tests can assert exact traces.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/trace.h"

namespace fdsim::test {

class RecordingSink : public TraceSink {
 public:
  void record(SimTime t, NodeId node, std::string_view kind,
              const nlohmann::json& fields) override {
    nlohmann::json r = fields;
    r["t_ns"] = t.count_ns();
    r["node"] = node;
    r["kind"] = std::string(kind);
    records.push_back(std::move(r));
  }
  std::vector<nlohmann::json> records;
};

}  // namespace fdsim::test
