#include "sim/run/trace_collector.h"

#include <stdexcept>
#include <string>

namespace fdsim::run {

void TraceCollector::record(SimTime t, NodeId node, std::string_view kind,
                            const nlohmann::json& fields) {
  std::string line = "{\"t_ns\":" + std::to_string(t.count_ns()) + ",\"node\":" +
                     (node == kNoNode ? std::string("null") : std::to_string(node)) +
                     ",\"kind\":" + nlohmann::json(std::string(kind)).dump();
  if (!arm_.empty()) line += ",\"arm\":" + nlohmann::json(arm_).dump();
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      const std::string& key = it.key();
      if (key == "t_ns" || key == "node" || key == "kind" || key == "arm") {
        throw std::logic_error("at t=" + to_string(t) + " node " + std::to_string(node) +
                               ": trace record '" + std::string(kind) + "' has a field named '" +
                               key + "', which is reserved");
      }
      line += "," + nlohmann::json(key).dump() + ":" + it.value().dump();
    }
  } else if (!fields.is_null()) {
    line += ",\"value\":" + fields.dump();
  }
  line += "}";
  out_.write_line(line);
}

}  // namespace fdsim::run
