#pragma once
// Test harness for the load-sharing model: a world (simulator, hosts, network) and a parsed
// config, without the run layer. Tests crash and recover hosts directly (they are allowed to
// write fault state).
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/loadsharing/config.h"
#include "models/loadsharing/loadsharing_model.h"
#include "sim/engine/trace.h"
#include "sim/net/latency.h"
#include "sim/net/network.h"

namespace fdsim::loadsharing::testing {

using nlohmann::json;

// Parses the two sections; problems (if any) are returned in `problems`.
inline LoadSharingConfig parse_sections(const json& workload, const json& load_sharing,
                                        const scenario::NodesConfig& nc,
                                        std::vector<std::string>* problems,
                                        json* resolved = nullptr,
                                        const std::string& base_dir = "") {
  scenario::Diagnostics diag;
  json res_w, res_ls;
  const json* w = workload.is_null() ? nullptr : &workload;
  const json* l = load_sharing.is_null() ? nullptr : &load_sharing;
  scenario::ObjectReader rw(w, "$.workload", diag, res_w);
  scenario::ObjectReader rl(l, "$.load_sharing", diag, res_ls);
  LoadSharingConfig cfg = parse_loadsharing_config(rw, rl, nc, base_dir);
  rw.finish();
  rl.finish();
  problems->clear();
  for (const auto& p : diag.problems) problems->push_back(p.str());
  if (resolved) *resolved = {{"workload", res_w}, {"load_sharing", res_ls}};
  return cfg;
}

inline LoadSharingConfig parse_sections(const json& workload, const json& load_sharing,
                                        size_t nodes, std::vector<std::string>* problems,
                                        json* resolved = nullptr,
                                        const std::string& base_dir = "") {
  scenario::NodesConfig nc;
  nc.count = nodes;
  return parse_sections(workload, load_sharing, nc, problems, resolved, base_dir);
}

inline LoadSharingConfig parse_ok(const json& workload, const json& load_sharing, size_t nodes) {
  std::vector<std::string> problems;
  LoadSharingConfig cfg = parse_sections(workload, load_sharing, nodes, &problems);
  for (const auto& p : problems) ADD_FAILURE() << p;
  return cfg;
}

inline net::NetworkConfig constant_network(double ms) {
  net::NetworkConfig c;
  c.latency = net::constant_latency(ms);
  return c;
}

// Collects trace records in memory.
struct Record {
  SimTime t;
  NodeId node;
  std::string kind;
  json fields;
};
class MemoryTrace : public TraceSink {
 public:
  void record(SimTime t, NodeId node, std::string_view kind, const json& fields) override {
    records.push_back({t, node, std::string(kind), fields});
  }
  std::vector<Record> of_kind(const std::string& kind) const {
    std::vector<Record> out;
    for (const Record& r : records)
      if (r.kind == kind) out.push_back(r);
    return out;
  }
  std::vector<Record> records;
};

struct Harness {
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  const LoadSharingConfig& cfg;
  std::unique_ptr<LoadSharingModel> model;

  Harness(const LoadSharingConfig& config, size_t arm, uint64_t seed, double horizon_s,
          double warmup_s, net::NetworkConfig network = constant_network(1.0),
          std::function<bool(NodeId, NodeId)> membership = nullptr)
      : hosts(sim, config.node_count),
        net(sim, hosts, RngFactory(seed, 0), std::move(network)),
        world{sim,
              hosts,
              net,
              RngFactory(seed, 0),
              SimTime::from_seconds(warmup_s),
              SimTime::from_seconds(horizon_s)},
        cfg(config) {
    model = std::make_unique<LoadSharingModel>(world, cfg, arm, std::move(membership));
  }
  // Runs to the horizon and closes the run (conservation is checked in finish()).
  json run() {
    model->start();
    sim.run_until(world.horizon);
    model->finish();
    return model->metrics();
  }
};

}  // namespace fdsim::loadsharing::testing
