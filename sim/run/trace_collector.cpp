#include "sim/run/trace_collector.h"

#include <cstdio>
#include <cstdlib>

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
        std::fprintf(stderr,
                     "fdsim: internal error at t=%s node %u: trace record '%.*s' has a field "
                     "named '%s', which is reserved\n",
                     to_string(t).c_str(), node, int(kind.size()), kind.data(), key.c_str());
        std::abort();
      }
      line += "," + nlohmann::json(key).dump() + ":" + it.value().dump();
    }
  } else if (!fields.is_null()) {
    line += ",\"value\":" + fields.dump();
  }
  line += "}";
  lines_.push_back(std::move(line));
}

}  // namespace fdsim::run
