#pragma once
// Test harness: a real Simulator + Hosts + Network (constant latency, no loss unless asked)
// + GeodeModel, with a trace sink that keeps every record as JSON for assertions.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/geode/geode_model.h"
#include "sim/engine/simulator.h"
#include "sim/engine/trace.h"
#include "tests/support/recording_sink.h"
#include "sim/net/hosts.h"
#include "sim/net/network.h"

namespace fdsim::geode::test {

using nlohmann::json;

using fdsim::test::RecordingSink;

inline SimTime at_s(double s) { return SimTime::from_seconds(s); }
inline SimTime at_ms(int64_t ms) { return SimTime::zero() + Duration::ms(ms); }
inline MemberId mid(NodeId n, uint32_t inc = 0) { return MemberId{n, inc, 1}; }

struct HarnessOptions {
  uint64_t seed = 1;
  uint64_t replication = 0;
  double latency_ms = 1.0;
  double loss = 0.0;
  double horizon_s = 60.0;
  double warmup_s = 0.0;
  bool trace = true;
};

class Harness {
 public:
  explicit Harness(GeodeConfig config, HarnessOptions o = {}, size_t arm = 0)
      : opts(o),
        cfg(std::move(config)),
        hosts(sim, cfg.node_count),
        net(sim, hosts, RngFactory(o.seed, o.replication), make_net(o)),
        world{sim, hosts, net, RngFactory(o.seed, o.replication), at_s(o.warmup_s),
              at_s(o.horizon_s)} {
    if (o.trace) sim.set_trace(&sink);
    model = std::make_unique<GeodeModel>(world, cfg, arm);
    model->start();
  }

  static net::NetworkConfig make_net(const HarnessOptions& o) {
    net::NetworkConfig c;
    c.latency = net::constant_latency(o.latency_ms);
    c.loss = o.loss;
    return c;
  }

  // Runs fn at simulated second s (scheduled now, so at equal instants it runs after
  // everything already scheduled for that instant).
  void at(SimTime t, std::function<void()> fn) { sim.schedule_at(t, kind_, kNoNode, std::move(fn)); }
  void run_until(SimTime t) { sim.run_until(t); }
  void run_until_s(double s) { sim.run_until(at_s(s)); }

  Member& m(NodeId n) { return model->member(n); }

  // Records of one kind (optionally at one node), in trace order.
  std::vector<json> records(const std::string& kind, std::optional<NodeId> node = std::nullopt) const {
    std::vector<json> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!node || r["node"] == *node)) out.push_back(r);
    return out;
  }
  std::optional<json> first(const std::string& kind, std::optional<NodeId> node = std::nullopt,
                            std::function<bool(const json&)> pred = nullptr) const {
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!node || r["node"] == *node) && (!pred || pred(r))) return r;
    return std::nullopt;
  }
  static SimTime time_of(const json& r) { return SimTime::from_ns(r["t_ns"].get<int64_t>()); }

  HarnessOptions opts;
  GeodeConfig cfg;
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  RecordingSink sink;
  std::unique_ptr<GeodeModel> model;

 private:
  EventKind kind_ = sim.kind("test.driver");
};

// True if trace record `r` has `field` equal to node `n`.
inline bool about(const json& r, const char* field, NodeId n) {
  return r.contains(field) && r[field] == n;
}

// A config of `n` members with member timeout `m_ms` for `profile`, without peer
// connections: with them (the `current` default) a process crash gives every later joiner an
// EOF that removes the member before the ring does, and most tests here follow the ring's
// steps; the tests of the connection path (connections_test.cpp) turn them on.
inline GeodeConfig config(Profile profile, size_t n, int64_t m_ms = 1000) {
  GeodeConfig c = GeodeConfig::defaults(profile, Duration::ms(m_ms), n);
  c.peer_connections = false;
  return c;
}

}  // namespace fdsim::geode::test
