#pragma once
// Metrics of the JGroups model (docs/metrics.md, scope `jgroups`), from the members' signals
// and the ground truth of Hosts.
//
// Contract (counts only what happens at or after warmup_end):
// - A member is faulty from its host's crash, or from the start of a pause until the resume (a
//   hang: the harness's SIGSTOP); otherwise it is alive.
// - A fault (a crash, or the start of a pause, of an alive member at or after warmup_end) is
//   measured: time to the first detector suspicion of it at any member (the SUSPECT its
//   detector passes up, as the harness's probe above FD / FD_ALL / FD_SOCK logs it), to the
//   first verified one (VERIFY_SUSPECT passes it up), to the first view without it installed
//   by an alive member, and to the instant every alive member other than it has installed a
//   view without it. A fault never removed by the horizon is undetected.
// - Suspicion events are counted per observer (each member at which the detector passes
//   SUSPECT up is one event), false when the target was alive; a false removal is a member
//   left out of a view (counted once per view id) while alive.
// - Rates per member-hour divide by members x window; messages per member per second count
//   every copy sent (a multicast is one per destination, loopback included).

#include <array>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/jgroups/context.h"
#include "sim/net/world.h"

namespace fdsim::jgroups {

class JGroupsRecorder final : public Signals, public net::HostListener {
 public:
  struct FaultRecord {
    NodeId node;
    SimTime at;
    bool crash;
    std::optional<SimTime> first_suspicion, first_verified, first_removal, removal_all;
  };

  JGroupsRecorder(World& world, size_t members);

  void message_sent(SimTime t, NodeId from, Msg m) override;
  void detector_suspected(SimTime t, NodeId observer, NodeId target) override;
  void verified(SimTime t, NodeId observer, NodeId target) override;
  void view_installed(SimTime t, NodeId observer, uint64_t view_id,
                      const std::vector<NodeId>& members) override;
  void on_crash(NodeId n) override;
  void on_pause(NodeId n) override;
  void on_resume(NodeId n) override;

  nlohmann::json metrics() const;
  const std::vector<FaultRecord>& faults() const { return faults_; }
  uint64_t detector_suspicions() const { return detector_suspicions_; }
  uint64_t false_detector_suspicions() const { return false_detector_suspicions_; }
  uint64_t verified_suspicions() const { return verified_; }
  uint64_t false_verified_suspicions() const { return false_verified_; }
  uint64_t false_removals() const { return false_removals_; }

 private:
  bool measuring(SimTime t) const { return t >= world_.warmup_end; }
  void fault(NodeId n, bool crash);
  void check_all_removed(SimTime t);

  World& world_;
  size_t members_;
  std::vector<bool> alive_;
  std::vector<bool> crashed_;
  std::vector<std::vector<bool>> removed_;  // [observer][target]: observer's view lacks target
  std::set<std::pair<uint64_t, NodeId>> counted_removals_;
  std::vector<FaultRecord> faults_;
  uint64_t detector_suspicions_ = 0, false_detector_suspicions_ = 0, verified_ = 0,
           false_verified_ = 0, removals_ = 0, false_removals_ = 0, views_ = 0;
  std::set<uint64_t> view_ids_;
  std::array<uint64_t, kMsgCount> messages_{};
};

}  // namespace fdsim::jgroups
