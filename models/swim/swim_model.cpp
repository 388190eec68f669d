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
  // Starved members get memberlist's receive path and handoff lists (handoff_queue.h) in place
  // of the network.starved entry's queue discipline.
  if (config_.memberlist_starved_queue) {
    std::vector<bool> starved(world_.hosts.size(), false);
    for (const net::StarvedEntry& e : world_.net.config().starved)
      for (NodeId n : e.nodes)
        if (n < starved.size()) starved[n] = true;
    for (NodeId n = 0; n < starved.size(); ++n) {
      if (!starved[n]) continue;
      auto q = std::make_unique<HandoffQueue>(size_t(config_.handoff_queue_depth));
      shared_->at(n).set_handoff(q.get());
      world_.hosts.set_service_queue(n, std::move(q));
    }
  }
  for (NodeId n = 0; n < world_.hosts.size(); ++n) {
    if (world_.hosts.is_crashed(n)) {
      recorder_->on_crash(n);
      continue;
    }
    shared_->at(n).start();
  }
}

nlohmann::json SwimModel::metrics() const {
  nlohmann::json m = recorder_->metrics();
  if (m.contains("starved")) {
    uint64_t handed_off = 0, dropped = 0;
    for (const auto& mem : shared_->members)
      if (mem->handoff() != nullptr) {
        handed_off += mem->handoff_stats().first;
        dropped += mem->handoff_stats().second;
      }
    m["starved"]["handoff_messages_count"] = handed_off;
    m["starved"]["handoff_dropped_count"] = dropped;
  }
  return m;
}

void SwimModel::on_crash(NodeId n) { shared_->at(n).on_crash(); }

void SwimModel::enable_churn() {
  recorder_->enable_churn();
  joining_.assign(world_.hosts.size(), false);
}

void SwimModel::churn_absent(NodeId n) {
  if (shared_->absent.empty()) shared_->absent.assign(world_.hosts.size(), false);
  shared_->absent[n] = true;
  recorder_->churn_absent(n);
}

void SwimModel::churn_leave(NodeId n, bool graceful) {
  recorder_->churn_leave(n, graceful);
  if (graceful) shared_->at(n).leave();
}

void SwimModel::churn_join(NodeId n) {
  joining_[n] = true;
  recorder_->churn_join(n, world_.hosts.incarnation(n) + 1);
}

NodeId SwimModel::pick_seed(NodeId joiner) {
  // The members a joiner could be told of: alive hosts whose member runs and has not left.
  std::vector<NodeId> present;
  for (NodeId m = 0; m < world_.hosts.size(); ++m)
    if (m != joiner && !world_.hosts.is_crashed(m) && shared_->at(m).participating() &&
        !shared_->at(m).has_left())
      present.push_back(m);
  if (present.empty()) return kNoNode;
  if (seed_rngs_.empty()) seed_rngs_.resize(world_.hosts.size());
  if (!seed_rngs_[joiner]) seed_rngs_[joiner] = world_.rng.stream(joiner, "swim.join_seed");
  return present[size_t(seed_rngs_[joiner]->uniform_int(0, int64_t(present.size()) - 1))];
}

void SwimModel::on_recover(NodeId n, uint32_t incarnation) {
  // A recovered host stays silent (member.h) unless a churn join brings a fresh identity.
  if (joining_.empty() || !joining_[n]) return;
  joining_[n] = false;
  const NodeId seed = pick_seed(n);
  shared_->at(n).join(incarnation, seed);
}

}  // namespace fdsim::swim
