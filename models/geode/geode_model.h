#pragma once
// The Geode-style heartbeat ring (GMSHealthMonitor + the view logic it needs) as a Model.
//
// Contract:
// - One simulation runs one arm: the neighbour-check decision of config.arms[arm] ("fixed"
//   = the member-timeout threshold, or a failure detector fed with the neighbour's
//   heartbeats). The arm changes nothing else, so arms compared on the same seed see the same
//   network draws until their decisions differ.
// - start() installs the initial view (id 1, config.members in node order) at t = 0 on every
//   member and starts each member's heartbeat sender loop and fixed-rate monitor tick (first
//   heartbeat and first tick one period after start, plus the member's start offset).
// - Everything the members do runs on their hosts (member.h), so crash, pause, sick and
//   play-dead semantics come from sim/net; the model only listens to Hosts to reset a crashed
//   member and to re-join a recovered one.
// - considers_failed(observer, target): true if the observer is down (crashed, disconnected,
//   or not in a view) or its installed view has no member on the target's host. This is the
//   membership service as seen by the observer, not the ground truth.
// - metrics(): see geode_metrics.h. Traces (when the simulator has a sink): the network's
//   "send"/"recv"/"drop"/"probe_result" records for every message, plus one record per
//   protocol decision (grace_stamp, check_start, check_passed, check_failed, suspect,
//   suspicion_received, refute, final_check_start, tcp_check_result, final_check_passed,
//   final_check_failed, removal_requested, become_coordinator, view_prepare, view_prepared,
//   view_ack_timeout, view_installed, partition_declared, forced_disconnect, watch, ...; the
//   `current` profile's rules add late_tick, check_skipped_sick, availability_check_start,
//   self_check, self_check_failed, view_ack_wait_over, view_availability_checks,
//   view_unresponsive_removed, view_unchanged, removal_of_non_member,
//   suspicion_from_non_member, quorum_lost_at_install, send_to_old_identity).

#include <memory>

#include <nlohmann/json.hpp>

#include "models/geode/config.h"
#include "models/geode/geode_metrics.h"
#include "models/geode/member.h"
#include "sim/faults/churn.h"
#include "sim/net/world.h"

namespace fdsim::geode {

// Churn (sim/faults/churn.h, enable_churn() before start): an absent slot is left out of the
// initial view; a graceful leave runs Member::leave() (the LeaveRequest) before the host goes
// down and is not measured as a crash; a crash leave is a crash; a joiner is a fresh identity
// that joins through the coordinator (Member::mark_churn_joiner). Metrics: geode_metrics.h.
class GeodeModel : public Model, public faults::ChurnParticipant, private net::HostListener {
 public:
  GeodeModel(World& world, const GeodeConfig& config, size_t arm);
  ~GeodeModel() override;
  GeodeModel(const GeodeModel&) = delete;
  GeodeModel& operator=(const GeodeModel&) = delete;

  void start() override;
  nlohmann::json metrics() const override;

  bool considers_failed(NodeId observer, NodeId target) const;

  // Churn: registers the leave request type and the churn metrics (call before start()).
  void enable_churn();
  void churn_absent(NodeId n) override;
  void churn_leave(NodeId n, bool graceful) override;
  void churn_join(NodeId n) override;

  // Inspection (tests, other models).
  Member& member(NodeId n) { return shared_->at(n); }
  const Member& member(NodeId n) const { return *shared_->members[n]; }
  const GeodeRecorder& recorder() const { return *recorder_; }
  const GeodeConfig& config() const { return config_; }
  static constexpr int64_t kInitialViewId = 1;

 private:
  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t incarnation) override;

  World& world_;
  const GeodeConfig config_;
  std::unique_ptr<GeodeRecorder> recorder_;
  std::unique_ptr<Shared> shared_;
  std::vector<bool> absent_;  // by node: churn slots absent at t = 0 (not in the initial view)
};

}  // namespace fdsim::geode
