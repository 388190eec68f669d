#pragma once
// What a model gets to run in: the simulator, the hosts, the network, the run's RNG factory and
// the measurement window. Owned by sim/run; models keep references for the run's lifetime.
// `Model` is the small interface sim/run drives: start() at t = 0 (schedule first timers),
// finish() once at the horizon (close open intervals), metrics() after finish().

#include <nlohmann/json.hpp>

#include "sim/engine/rng.h"
#include "sim/engine/simulator.h"
#include "sim/net/hosts.h"
#include "sim/net/network.h"

namespace fdsim {

struct World {
  Simulator& sim;
  net::Hosts& hosts;
  net::Network& net;
  RngFactory rng;
  SimTime warmup_end;  // metrics count only what happens at or after this instant
  SimTime horizon;     // the run stops here
};

class Model {
 public:
  virtual ~Model() = default;
  virtual void start() = 0;
  virtual void finish() {}
  // Metrics with units in their names (docs/metrics.md); deterministic key order.
  virtual nlohmann::json metrics() const = 0;
};

}  // namespace fdsim
