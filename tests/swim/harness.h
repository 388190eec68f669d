#pragma once
// Test harness: a real Simulator + Hosts + Network (constant latency, no loss unless asked) +
// SwimModel, with a trace sink that keeps every record as JSON.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/swim/swim_model.h"
#include "sim/engine/simulator.h"
#include "sim/engine/trace.h"
#include "tests/support/recording_sink.h"
#include "sim/net/hosts.h"
#include "sim/net/network.h"

namespace fdsim::swim::test {

using nlohmann::json;

using fdsim::test::RecordingSink;

inline SimTime at_s(double s) { return SimTime::from_seconds(s); }

struct HarnessOptions {
  uint64_t seed = 1;
  double latency_ms = 1.0;
  double loss = 0.0;
  double horizon_s = 120.0;
  double warmup_s = 0.0;
  bool trace = true;
  std::vector<net::StarvedEntry> starved;  // network.starved
};

// The LAN defaults for n members with one arm built from the four Lifeguard switches.
inline SwimConfig config(size_t n, bool lifeguard = true) {
  SwimConfig c = SwimConfig::lan_defaults(n);
  c.arms = {SwimArm{lifeguard ? "lifeguard" : "swim", lifeguard, lifeguard, lifeguard, lifeguard}};
  return c;
}

class Harness {
 public:
  explicit Harness(SwimConfig config, HarnessOptions o = {}, size_t arm = 0)
      : opts(o),
        cfg(std::move(config)),
        hosts(sim, cfg.node_count),
        net(sim, hosts, RngFactory(o.seed, 0), make_net(o)),
        world{sim, hosts, net, RngFactory(o.seed, 0), at_s(o.warmup_s), at_s(o.horizon_s)} {
    if (o.trace) sim.set_trace(&sink);
    model = std::make_unique<SwimModel>(world, cfg, arm);
    model->start();
  }

  static net::NetworkConfig make_net(const HarnessOptions& o) {
    net::NetworkConfig c;
    c.latency = net::constant_latency(o.latency_ms);
    c.loss = o.loss;
    c.starved = o.starved;
    return c;
  }

  void at(SimTime t, std::function<void()> fn) { sim.schedule_at(t, kind_, kNoNode, std::move(fn)); }
  void run_until_s(double s) { sim.run_until(at_s(s)); }
  Member& m(NodeId n) { return model->member(n); }

  std::vector<json> records(const std::string& kind, std::optional<NodeId> node = std::nullopt,
                            std::function<bool(const json&)> pred = nullptr) const {
    std::vector<json> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!node || r["node"] == *node) && (!pred || pred(r)))
        out.push_back(r);
    return out;
  }
  static SimTime time_of(const json& r) { return SimTime::from_ns(r["t_ns"].get<int64_t>()); }

  HarnessOptions opts;
  SwimConfig cfg;
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  RecordingSink sink;
  std::unique_ptr<SwimModel> model;

 private:
  EventKind kind_ = sim.kind("test.driver");
};

}  // namespace fdsim::swim::test
