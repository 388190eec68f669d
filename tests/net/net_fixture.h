#pragma once
// A small world for network tests: simulator, hosts, network, with a recording trace sink.
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/trace.h"
#include "sim/net/network.h"

namespace fdsim::net::testing_support {

struct RecordingSink : TraceSink {
  std::vector<std::string> lines;
  void record(SimTime t, NodeId node, std::string_view kind,
              const nlohmann::json& fields) override {
    nlohmann::json j = fields;
    j["t_ns"] = t.count_ns();
    j["node"] = node;
    j["kind"] = std::string(kind);
    lines.push_back(j.dump());
  }
};

struct NetWorld {
  Simulator sim;
  Hosts hosts;
  Network net;
  NetWorld(size_t nodes, NetworkConfig cfg, uint64_t seed = 1)
      : hosts(sim, nodes), net(sim, hosts, RngFactory(seed, 0), std::move(cfg)) {}
  // Runs fn at simulated time t_ms (a global event, not bound to a node).
  template <class F>
  void at_ms(double t_ms, F fn) {
    sim.schedule_at(SimTime::zero() + Duration::from_ms(t_ms), sim.kind("test"), kNoNode,
                    std::move(fn));
  }
  double now_ms() const { return sim.now().millis(); }
};

inline NetworkConfig constant_net(double ms, double loss = 0) {
  NetworkConfig c;
  c.latency = constant_latency(ms);
  c.loss = loss;
  return c;
}

}  // namespace fdsim::net::testing_support
