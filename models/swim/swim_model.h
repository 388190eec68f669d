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
//   swim_suspicion_timeout and swim_refute records (with churn also swim_leave and swim_join).
// - Churn (sim/faults/churn.h, enable_churn() before start): an absent slot is in no member's
//   view or probe order; a graceful leave runs memberlist's Leave (Member::leave); a join starts
//   a fresh identity on the slot when its host comes up (on_recover), which joins through a
//   push-pull with a seed: a random present member (alive, not leaving) drawn from the stream
//   "swim.join_seed" keyed on the joining slot (one draw per join), or none when no member is
//   present (the joiner then stays alone). models/swim/README.md "Churn".

#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/swim/config.h"
#include "models/swim/context.h"
#include "models/swim/member.h"
#include "models/swim/swim_metrics.h"
#include "sim/faults/churn.h"
#include "sim/net/world.h"

namespace fdsim::swim {

class SwimModel : public Model, public faults::ChurnParticipant, private net::HostListener {
 public:
  SwimModel(World& world, const SwimConfig& config, size_t arm);
  ~SwimModel() override;
  SwimModel(const SwimModel&) = delete;
  SwimModel& operator=(const SwimModel&) = delete;

  void start() override;
  nlohmann::json metrics() const override;

  // Churn: the churn metrics (call before start()) and the participant's side.
  void enable_churn();
  void churn_absent(NodeId n) override;
  void churn_leave(NodeId n, bool graceful) override;
  void churn_join(NodeId n) override;

  Member& member(NodeId n) { return shared_->at(n); }
  const SwimRecorder& recorder() const { return *recorder_; }
  const SwimConfig& config() const { return config_; }

 private:
  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t incarnation) override;
  NodeId pick_seed(NodeId joiner);

  World& world_;
  const SwimConfig config_;
  std::unique_ptr<SwimRecorder> recorder_;
  std::unique_ptr<Shared> shared_;
  std::vector<bool> joining_;  // by slot: a churn join whose host comes up next
  std::vector<std::optional<Rng>> seed_rngs_;  // by slot, created at its first join
};

}  // namespace fdsim::swim
