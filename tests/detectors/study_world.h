#pragma once
// Test helper: a real simulator + hosts + network world for the heartbeat study, and a trace
// sink that keeps every record.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/detectors/heartbeat_study.h"
#include "sim/engine/trace.h"
#include "sim/net/world.h"

namespace fdsim::detectors::testing {

struct TraceRecord {
  SimTime t;
  NodeId node;
  std::string kind;
  nlohmann::json fields;
};

class CollectingTrace final : public TraceSink {
 public:
  void record(SimTime t, NodeId node, std::string_view kind, const nlohmann::json& f) override {
    records.push_back({t, node, std::string(kind), f});
  }
  std::vector<TraceRecord> of_kind(const std::string& kind) const {
    std::vector<TraceRecord> out;
    for (const auto& r : records)
      if (r.kind == kind) out.push_back(r);
    return out;
  }
  std::vector<TraceRecord> records;
};

struct StudyWorld {
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  std::unique_ptr<HeartbeatStudy> study;

  StudyWorld(size_t nodes, net::NetworkConfig network, uint64_t seed, SimTime warmup,
             SimTime horizon)
      : hosts(sim, nodes),
        net(sim, hosts, RngFactory(seed, 0), std::move(network)),
        world{sim, hosts, net, RngFactory(seed, 0), warmup, horizon} {}

  HeartbeatStudy& make(const HeartbeatStudyConfig& config) {
    study = std::make_unique<HeartbeatStudy>(world, config);
    return *study;
  }
  // Starts the study, runs to the horizon, finishes; returns the metrics.
  nlohmann::json run() {
    study->start();
    sim.run_until(world.horizon);
    study->finish();
    return study->metrics();
  }
};

inline net::NetworkConfig network(std::shared_ptr<const net::LatencyModel> latency,
                                  double loss) {
  net::NetworkConfig c;
  c.latency = std::move(latency);
  c.loss = loss;
  return c;
}

// Ring pairs: node i is watched by node (i + 1) mod n.
inline std::vector<MonitorPair> ring_pairs(size_t n) {
  std::vector<MonitorPair> pairs;
  for (size_t i = 0; i < n; ++i) pairs.push_back({NodeId(i), NodeId((i + 1) % n)});
  return pairs;
}

inline StudyArm arm(std::string name, DetectorKind kind) {
  StudyArm a;
  a.name = std::move(name);
  a.detector.kind = kind;
  return a;
}

}  // namespace fdsim::detectors::testing
