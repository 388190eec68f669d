#pragma once
// SWIM with Lifeguard, as hashicorp/memberlist 0.2.2 runs it, as a Model (models/swim/README.md).
//
// Contract:
// - One simulation runs one arm (config.arms[arm]: which Lifeguard parts are on). Arms draw
//   from the same keyed streams, so arms compared on the same seed see the same network draws
//   and the same start phases until their decisions differ.
// - start() makes every node whose host is not crashed a member (member.h).
// - metrics(): see swim_metrics.h. Traces (when the simulator has a sink): the network's
//   records for every packet, plus swim_state, swim_probe_failed, swim_fallback_contact,
//   swim_suspicion_timeout and swim_refute records.

#include <memory>

#include <nlohmann/json.hpp>

#include "models/swim/config.h"
#include "models/swim/context.h"
#include "models/swim/member.h"
#include "models/swim/swim_metrics.h"
#include "sim/net/world.h"

namespace fdsim::swim {

class SwimModel : public Model, private net::HostListener {
 public:
  SwimModel(World& world, const SwimConfig& config, size_t arm);
  ~SwimModel() override;
  SwimModel(const SwimModel&) = delete;
  SwimModel& operator=(const SwimModel&) = delete;

  void start() override;
  nlohmann::json metrics() const override;

  Member& member(NodeId n) { return shared_->at(n); }
  const SwimRecorder& recorder() const { return *recorder_; }
  const SwimConfig& config() const { return config_; }

 private:
  void on_crash(NodeId n) override;

  World& world_;
  const SwimConfig config_;
  std::unique_ptr<SwimRecorder> recorder_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace fdsim::swim
