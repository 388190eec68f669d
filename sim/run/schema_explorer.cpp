#include "sim/run/schema_explorer.h"

#include <deque>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/run/scenario_loader.h"

namespace fdsim::run {

using nlohmann::json;

namespace {

// Seeds: one per model family; a second Geode seed with another member timeout and profile
// and a second SWIM arm without Lifeguard, so that derived defaults show up as varying; JGroups
// with an FD and an FD_ALL arm.
std::vector<json> seeds() {
  const json common = json::parse(R"({
    "$schema": "scenario.schema.json", "name": "explore", "description": "", "seed": 1,
    "replications": 1, "horizon_s": 10, "warmup_s": 0,
    "nodes": {"count": 4, "groups": {"g": [0, 1]}, "locators": [0]},
    "metrics": {"per_node": false}, "output": {"trace": false},
    "network": {"latency": {"model": "constant", "ms": 1},
                "links": [{"from": 0, "to": 1, "latency": {"model": "constant", "ms": 1},
                           "loss": 0.1,
                           "loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1,
                                          "p_bad_to_good": 0.5, "loss_good": 0, "loss_bad": 1,
                                          "scope": "link"}}],
                "loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1,
                               "p_bad_to_good": 0.5, "loss_good": 0, "loss_bad": 1,
                               "scope": "link"},
                "starved": [{"nodes": [0], "service": {"model": "constant", "ms": 1},
                             "at_s": 1, "duration_s": 1, "queue_limit": 1, "drop": "newest",
                             "order": "fifo"},
                            {"nodes": [0], "service": {"model": "constant", "ms": 1},
                             "mean_normal_s": 1, "mean_starved_s": 1, "start_s": 0,
                             "stop_s": 5},
                            {"nodes": [1], "mode": "stall", "socket_buffer_packets": 8,
                             "service": {"model": "constant", "ms": 1}, "at_s": 1},
                            {"nodes": [2], "mode": "inbound_delay", "delay_order": "fifo",
                             "service": {"model": "constant", "ms": 1}, "at_s": 1}]},
    "faults": [{"kind": "crash", "at_s": 1, "nodes": [1],
                "duration": {"model": "constant", "ms": 1}, "mean_down_s": 1,
                "up": {"distribution": "exponential"}}]
  })");
  const json detector_arms =
      json::parse(R"([{"name": "a", "detector": {"kind": "fixed"}}])");
  std::vector<json> out;
  json geode = common;
  geode["membership"] = {{"neighbour_check", detector_arms}};
  out.push_back(geode);
  geode["membership"] = {{"profile", "current"}, {"member_timeout_ms", 3000}};
  out.push_back(geode);
  json ls = common;
  ls["membership"] = json::object();
  ls["workload"] = json::parse(R"({
    "load_phases": [{"nodes": [0, 1], "from_s": 1, "rate_per_s": 1}],
    "arrival_processes": [{"nodes": [2, 3], "model": "mmpp2", "rate_low_per_s": 1,
                           "rate_high_per_s": 2, "mean_low_s": 1, "mean_high_s": 1,
                           "batch_rate_per_s": 1, "batch_size": {}}],
    "execution": {"distribution": "exponential"},
    "execution_overrides": [{"nodes": [0], "distribution": "exponential"}],
    "deadline": {"kind": "uniform"}})");
  ls["load_sharing"] = json::parse(R"({
    "estimation": {}, "arms": [{"name": "a", "diagnosis": "geode_ring", "member_timeout_ms": 2000}]})");
  out.push_back(ls);
  json senders = common;
  senders["detectors"] = {{"senders", "all"}, {"arms", detector_arms}};
  out.push_back(senders);
  json pairs = common;
  pairs["detectors"] = {{"pairs", json::parse(R"([{"sender": 0, "monitors": [1]}])")},
                        {"arms", detector_arms}};
  out.push_back(pairs);
  json swim = common;
  swim["swim"] = {{"arms", json::parse(R"([{"name": "a"}, {"name": "b", "lifeguard": false}])")}};
  out.push_back(swim);
  json jg = common;
  jg["jgroups"] = json::parse(R"({"FD": {}, "FD_ALL": {}, "FD_SOCK": {}, "VERIFY_SUSPECT": {}, "TCPPING": {},
    "GMS": {}, "are_you_dead_send_time": {"model": "constant", "ms": 1},
    "arms": [{"name": "a"}, {"name": "b", "detector": "FD_ALL"},
    {"name": "c", "detectors": ["FD_SOCK", "FD"], "merge2": true}]})");
  out.push_back(jg);
  json jg_ping = common;
  jg_ping["jgroups"] = json::parse(R"({"PING": {}, "MERGE2": {}, "arms": [{"name": "a"}]})");
  out.push_back(jg_ping);
  return out;
}

// "$.faults[0].duration" -> "/faults/0/duration".
json::json_pointer pointer_of(const std::string& path) {
  std::string p;
  for (size_t i = 1; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.' || c == '[') {
      p += '/';
    } else if (c != ']') {
      p += c;
    }
  }
  return json::json_pointer(p);
}

}  // namespace

std::vector<scenario::ObjectRecord> explore_scenario_fields() {
  scenario::FieldRecorder recorder;
  std::set<std::string> tried;  // "<pattern path>.<key>=<value>"
  std::deque<json> queue;
  for (auto& s : seeds()) queue.push_back(std::move(s));
  while (!queue.empty()) {
    const json doc = std::move(queue.front());
    queue.pop_front();
    const size_t first = recorder.objects.size();
    (void)load_scenario_json(doc, "explore", ".", nullptr, &recorder);
    for (size_t i = first; i < recorder.objects.size(); ++i) {
      const scenario::ObjectRecord rec = recorder.objects[i];
      for (const auto& [key, value] : rec.enum_values) tried.insert(rec.path + "." + key + "=" + value);
      for (const auto& [key, spec] : rec.fields) {
        if (spec.type != scenario::FieldSpec::Type::enumeration) continue;
        for (const auto& value : spec.allowed) {
          if (!tried.insert(rec.path + "." + key + "=" + value).second) continue;
          json variant = doc;
          variant[pointer_of(rec.concrete_path + "." + key)] = value;
          queue.push_back(std::move(variant));
        }
      }
    }
  }
  return std::move(recorder.objects);
}

scenario::Shapes scenario_shapes() { return scenario::merge_records(explore_scenario_fields()); }

}  // namespace fdsim::run
