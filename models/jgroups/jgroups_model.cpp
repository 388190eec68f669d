#include "models/jgroups/jgroups_model.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::jgroups {

JGroupsModel::JGroupsModel(World& world, const JGroupsConfig& config, size_t arm)
    : world_(world), config_(config) {
  if (config_.node_count != world.hosts.size()) {
    std::fprintf(stderr,
                 "fdsim: internal error: jgroups config is for %zu nodes but the world has %zu\n",
                 config_.node_count, world.hosts.size());
    std::abort();
  }
  recorder_ = std::make_unique<JGroupsRecorder>(world, config_.node_count);
  shared_ = std::make_unique<Shared>(world, config_, arm, *recorder_);
  for (NodeId n = 0; n < world.hosts.size(); ++n)
    shared_->members.push_back(std::make_unique<Member>(*shared_, n));
  world.hosts.add_listener(recorder_.get());
  world.hosts.add_listener(this);
}

JGroupsModel::~JGroupsModel() = default;

void JGroupsModel::start() {
  shared_->address_hash.clear();
  shared_->address_order.clear();
  for (NodeId n = 0; n < world_.hosts.size(); ++n) {
    Rng a = world_.rng.stream(n, "jgroups.address");
    shared_->address_hash.push_back(int32_t(uint32_t(a.uniform_int(0, 0xFFFFFFFFll))));
    shared_->address_order.push_back(uint64_t(a.uniform_int(0, INT64_MAX)));
  }
  for (NodeId n = 0; n < world_.hosts.size(); ++n) {
    Rng phase = world_.rng.stream(n, "jgroups.phase");
    if (world_.hosts.is_crashed(n)) {
      recorder_->on_crash(n);
      continue;
    }
    shared_->at(n).start(phase);
  }
}

nlohmann::json JGroupsModel::metrics() const { return recorder_->metrics(); }

void JGroupsModel::on_crash(NodeId n) {
  // (FD_SOCK's watchers of n: Member::on_peer_crash decides whether an EOF reaches them.)
  shared_->at(n).on_crash();
  for (NodeId m = 0; m < world_.hosts.size(); ++m)
    if (m != n) shared_->at(m).on_peer_crash(n);
}

}  // namespace fdsim::jgroups
