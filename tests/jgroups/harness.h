#pragma once
// Test harness: a real Simulator + Hosts + Network (constant latency, no loss unless asked) +
// JGroupsModel, with a trace sink that keeps every record as JSON.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/jgroups/jgroups_model.h"
#include "sim/engine/simulator.h"
#include "sim/net/hosts.h"
#include "sim/net/network.h"
#include "tests/support/recording_sink.h"

namespace fdsim::jgroups::test {

using nlohmann::json;

inline SimTime at_s(double s) { return SimTime::from_seconds(s); }

struct HarnessOptions {
  uint64_t seed = 1;
  double latency_ms = 1.0;
  double loss = 0.0;
  double horizon_s = 120.0;
};

// JGroups' defaults for n members, one arm with the given detector.
inline JGroupsConfig config(size_t n, Detector d) {
  JGroupsConfig c = JGroupsConfig::defaults(n);
  c.arms = {JGroupsArm{detector_name(d), {d}}};
  return c;
}

class Harness {
 public:
  explicit Harness(JGroupsConfig config, HarnessOptions o = {})
      : cfg(std::move(config)),
        hosts(sim, cfg.node_count),
        net(sim, hosts, RngFactory(o.seed, 0), make_net(o)),
        world{sim, hosts, net, RngFactory(o.seed, 0), SimTime(), at_s(o.horizon_s)} {
    sim.set_trace(&sink);
    model = std::make_unique<JGroupsModel>(world, cfg, 0);
    model->start();
  }

  static net::NetworkConfig make_net(const HarnessOptions& o) {
    net::NetworkConfig c;
    c.latency = net::constant_latency(o.latency_ms);
    c.loss = o.loss;
    return c;
  }

  void at(SimTime t, std::function<void()> fn) { sim.schedule_at(t, kind_, kNoNode, std::move(fn)); }
  void run_until_s(double s) { sim.run_until(at_s(s)); }
  Member& m(NodeId n) { return model->member(n); }
  const JGroupsRecorder& rec() const { return model->recorder(); }

  // Times of trace records of `kind` on `node` whose "msg" is `msg` (network records), from
  // `from` if given.
  std::vector<SimTime> times(const std::string& kind, NodeId node, const std::string& msg,
                             std::optional<NodeId> from = std::nullopt) const {
    std::vector<SimTime> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && r["node"] == node && r.value("msg", "") == msg &&
          (!from || r.value("from", kNoNode) == *from))
        out.push_back(SimTime::from_ns(r["t_ns"].get<int64_t>()));
    return out;
  }

  // Times of the model's own trace records of `kind` on `node` whose "target" is `target`.
  std::vector<SimTime> model_times(const std::string& kind, NodeId node, NodeId target) const {
    std::vector<SimTime> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && r["node"] == node && r.value("target", kNoNode) == target)
        out.push_back(SimTime::from_ns(r["t_ns"].get<int64_t>()));
    return out;
  }
  // Time `node` installed view `view_id` (none: it did not).
  std::optional<SimTime> view_time(NodeId node, uint64_t view_id) const {
    for (const json& r : sink.records)
      if (r["kind"] == "jgroups_install_view" && r["node"] == node && r["view_id"] == view_id)
        return SimTime::from_ns(r["t_ns"].get<int64_t>());
    return std::nullopt;
  }

  JGroupsConfig cfg;
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  fdsim::test::RecordingSink sink;
  std::unique_ptr<JGroupsModel> model;

 private:
  EventKind kind_ = sim.kind("test.driver");
};

}  // namespace fdsim::jgroups::test
