#pragma once
// A world with hosts, network and a FaultInjector built from a parsed "faults" JSON array.
#include <memory>
#include <string>
#include <vector>

#include "sim/faults/config.h"
#include "sim/faults/injector.h"

namespace fdsim::faults::testing_support {

using nlohmann::json;

struct ParsedFaults {
  FaultsConfig cfg;
  scenario::Diagnostics diag;
  json resolved;
  std::vector<std::string> problems() const {
    std::vector<std::string> v;
    for (const auto& p : diag.problems) v.push_back(p.str());
    return v;
  }
};

inline scenario::NodesConfig test_nodes(size_t n) {
  scenario::NodesConfig c;
  c.count = n;
  c.groups["left"] = {0, 1};
  c.groups["right"] = {2, 3};
  return c;
}

inline ParsedFaults parse_faults(const json& faults, size_t n_nodes = 4) {
  ParsedFaults p;
  const json doc = {{"faults", faults}};
  scenario::ObjectReader root(&doc, "$", p.diag, p.resolved);
  p.cfg = parse_faults_config(root, test_nodes(n_nodes));
  root.finish();
  return p;
}

// Records ground-truth transitions with their times.
struct Timeline : net::HostListener {
  Simulator& sim;
  std::vector<std::string> events;
  explicit Timeline(Simulator& s) : sim(s) {}
  void add(const std::string& what, NodeId n) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f %s %u", sim.now().seconds(), what.c_str(), n);
    events.push_back(buf);
  }
  void on_crash(NodeId n) override { add("crash", n); }
  void on_recover(NodeId n, uint32_t) override { add("recover", n); }
  void on_pause(NodeId n) override { add("pause", n); }
  void on_resume(NodeId n) override { add("resume", n); }
  void on_sick(NodeId n, bool s) override { add(s ? "sick" : "sick_end", n); }
  void on_play_dead(NodeId n, bool s) override { add(s ? "play_dead" : "play_dead_end", n); }
};

struct FaultWorld {
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  Timeline timeline;
  std::unique_ptr<FaultInjector> injector;
  FaultWorld(size_t n, const FaultsConfig& cfg, uint64_t seed = 1)
      : hosts(sim, n),
        net(sim, hosts, RngFactory(seed, 0), net::NetworkConfig{}),
        world{sim, hosts, net, RngFactory(seed, 0), SimTime::zero(), SimTime::from_seconds(1e6)},
        timeline(sim) {
    hosts.add_listener(&timeline);
    injector = std::make_unique<FaultInjector>(world, cfg);
    injector->start();
  }
  template <class F>
  void at_s(double t, F fn) {
    sim.schedule_at(SimTime::from_seconds(t), sim.kind("test"), kNoNode, std::move(fn));
  }
};

}  // namespace fdsim::faults::testing_support
