#pragma once
// JGroups 2.12.2's failure detection and view change as a Model (models/jgroups/README.md,
// docs/models/jgroups.md).
//
// Contract:
// - One simulation runs one arm (config.arms[arm]: which detector). Arms draw from the same
//   keyed streams (one phase per member, "jgroups.phase"), so arms compared on the same seed
//   see the same network draws until their traffic differs.
// - start() makes every node whose host is not crashed a member of view 1.
// - metrics(): see jgroups_metrics.h. Traces: the network's records plus jgroups_fd_suspect,
//   jgroups_fd_sock_suspect, jgroups_unsuspect, jgroups_become_coordinator, jgroups_cast_view.

#include <memory>

#include <nlohmann/json.hpp>

#include "models/jgroups/config.h"
#include "models/jgroups/context.h"
#include "models/jgroups/jgroups_metrics.h"
#include "models/jgroups/member.h"
#include "sim/net/world.h"

namespace fdsim::jgroups {

class JGroupsModel : public Model, private net::HostListener {
 public:
  JGroupsModel(World& world, const JGroupsConfig& config, size_t arm);
  ~JGroupsModel() override;
  JGroupsModel(const JGroupsModel&) = delete;
  JGroupsModel& operator=(const JGroupsModel&) = delete;

  void start() override;
  nlohmann::json metrics() const override;

  Member& member(NodeId n) { return shared_->at(n); }
  const JGroupsRecorder& recorder() const { return *recorder_; }
  int32_t address_hash(NodeId n) const { return shared_->address_hash.at(n); }
  uint64_t address_order(NodeId n) const { return shared_->address_order.at(n); }

 private:
  void on_crash(NodeId n) override;

  World& world_;
  const JGroupsConfig config_;
  std::unique_ptr<JGroupsRecorder> recorder_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace fdsim::jgroups
