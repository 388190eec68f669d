#include "models/swim/swim_model.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::swim {

SwimModel::SwimModel(World& world, const SwimConfig& config, size_t arm)
    : world_(world), config_(config) {
  if (config_.node_count != world.hosts.size()) {
    fdsim::internal_error("fdsim: internal error: swim config is for %zu nodes but the world has %zu\n",
                 config_.node_count, world.hosts.size());
  }
  recorder_ = std::make_unique<SwimRecorder>(world, config_.node_count);
  shared_ = std::make_unique<Shared>(world, config_, arm, *recorder_);
  for (NodeId n = 0; n < world.hosts.size(); ++n)
    shared_->members.push_back(std::make_unique<Member>(*shared_, n));
  world.hosts.add_listener(recorder_.get());
  world.hosts.add_listener(this);
}

SwimModel::~SwimModel() = default;

void SwimModel::start() {
  for (NodeId n = 0; n < world_.hosts.size(); ++n) {
    if (world_.hosts.is_crashed(n)) {
      recorder_->on_crash(n);
      continue;
    }
    shared_->at(n).start();
  }
}

nlohmann::json SwimModel::metrics() const { return recorder_->metrics(); }

void SwimModel::on_crash(NodeId n) { shared_->at(n).on_crash(); }

}  // namespace fdsim::swim
