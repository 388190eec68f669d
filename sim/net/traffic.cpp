#include "sim/net/traffic.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace fdsim::net {

const char* drop_reason_name(DropReason r) {
  switch (r) {
    case DropReason::down: return "down";
    case DropReason::play_dead: return "play_dead";
    case DropReason::cut: return "cut";
    case DropReason::lost: return "lost";
    case DropReason::queue_full: return "queue_full";
  }
  return "unknown";
}

nlohmann::json TrafficMeter::metrics(const std::vector<std::string>& type_names,
                                     SimTime window_end) const {
  using nlohmann::json;
  const double window_s = std::max(0.0, (window_end - from_).seconds());
  const double nodes = double(node_messages_.size());
  const double node_s = window_s * nodes;
  // A rate over an empty window (or no nodes) is undefined: null, as elsewhere in the metrics.
  auto rate = [](double count, double per) { return per > 0 ? json(count / per) : json(nullptr); };

  uint64_t messages = 0, bytes = 0;
  json by_messages = json::object(), by_bytes = json::object();
  json by_messages_rate = json::object(), by_bytes_rate = json::object();
  for (size_t t = 0; t < type_names.size(); ++t) {
    const Count c = t < by_type_.size() ? by_type_[t] : Count{};
    messages += c.messages;
    bytes += c.bytes;
    by_messages[type_names[t]] = c.messages;
    by_bytes[type_names[t]] = c.bytes;
    by_messages_rate[type_names[t]] = rate(double(c.messages), node_s);
    by_bytes_rate[type_names[t]] = rate(double(c.bytes), node_s);
  }
  uint64_t max_node_messages = 0, max_node_bytes = 0;
  for (size_t i = 0; i < node_messages_.size(); ++i) {
    max_node_messages = std::max(max_node_messages, node_messages_[i]);
    max_node_bytes = std::max(max_node_bytes, node_bytes_[i]);
  }
  json drops = json::object();
  uint64_t dropped = 0;
  for (size_t r = 0; r < kDropReasonCount; ++r) {
    drops[drop_reason_name(DropReason(r))] = drops_[r];
    dropped += drops_[r];
  }

  json j = json::object();
  j["window_s"] = window_s;
  j["messages_count"] = messages;
  j["bytes_count"] = bytes;
  j["messages_per_node_s"] = rate(double(messages), node_s);
  j["bytes_per_node_s"] = rate(double(bytes), node_s);
  j["max_node_messages_per_s"] = rate(double(max_node_messages), window_s);
  j["max_node_bytes_per_s"] = rate(double(max_node_bytes), window_s);
  j["dropped_count"] = dropped;
  j["dropped_by_reason_count"] = std::move(drops);
  j["by_type"] = json{{"messages_count", std::move(by_messages)},
                      {"bytes_count", std::move(by_bytes)},
                      {"messages_per_node_s", std::move(by_messages_rate)},
                      {"bytes_per_node_s", std::move(by_bytes_rate)}};
  return j;
}

}  // namespace fdsim::net
