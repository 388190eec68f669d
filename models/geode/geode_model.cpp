#include "models/geode/geode_model.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fdsim::geode {

GeodeModel::GeodeModel(World& world, const GeodeConfig& config, size_t arm)
    : world_(world), config_(config) {
  if (config_.node_count != world.hosts.size()) {
    fdsim::internal_error("fdsim: internal error at t = %s: membership config is for %zu nodes but the "
                 "world has %zu\n",
                 to_string(world.sim.now()).c_str(), config_.node_count, world.hosts.size());
  }
  recorder_ = std::make_unique<GeodeRecorder>(world, config_.members.size());
  shared_ = std::make_unique<Shared>(world, config_, arm, *recorder_);
  for (NodeId n = 0; n < world.hosts.size(); ++n)
    shared_->members.push_back(std::make_unique<Member>(*shared_, n));
  // crash_kind "host": a crash stops the machine, so a connect to it gets no reset and times
  // out (GMSHealthMonitor.doTCPCheckMember's connect waits the member timeout) instead of
  // being refused at once.
  if (config_.crash_is_host) world.net.set_crashed_hosts_refuse(false);
  world.hosts.add_listener(recorder_.get());
  world.hosts.add_listener(this);
  absent_.assign(world.hosts.size(), false);
}

void GeodeModel::enable_churn() {
  shared_->types.register_leave_request(world_.net);
  recorder_->enable_churn();
}

void GeodeModel::churn_absent(NodeId n) {
  absent_[n] = true;
  shared_->at(n).mark_churn_joiner();
}

void GeodeModel::churn_leave(NodeId n, bool graceful) {
  recorder_->churn_leave(n, graceful);
  if (graceful) shared_->at(n).leave();
}

void GeodeModel::churn_join(NodeId n) {
  shared_->at(n).mark_churn_joiner();
  recorder_->churn_join(n);
}

GeodeModel::~GeodeModel() = default;

void GeodeModel::start() {
  std::vector<MemberId> members;
  for (NodeId n : config_.members)
    if (!absent_[n]) members.push_back(MemberId{n, world_.hosts.incarnation(n), kInitialViewId});
  recorder_->set_initial_members(members.size());
  const auto initial =
      std::make_shared<const View>(make_view(kInitialViewId, members, shared_->roles));
  for (NodeId n : config_.members) {
    Duration offset = Duration::zero();
    if (config_.start_offset_max > Duration::zero()) {
      Rng r = world_.rng.stream(n, "geode.start");
      offset = Duration::from_ms(r.uniform(0.0, config_.start_offset_max.millis()));
    }
    if (world_.hosts.is_crashed(n) || absent_[n]) continue;
    shared_->at(n).start(initial, offset);
  }
}

nlohmann::json GeodeModel::metrics() const { return recorder_->metrics(); }

bool GeodeModel::considers_failed(NodeId observer, NodeId target) const {
  if (world_.hosts.is_crashed(observer)) return true;
  const Member& o = member(observer);
  if (!o.participating()) return true;
  return !o.view()->contains_node(target);
}

void GeodeModel::on_crash(NodeId n) { shared_->at(n).on_crash(); }

void GeodeModel::on_recover(NodeId n, uint32_t incarnation) {
  shared_->at(n).on_recover(incarnation);
}

}  // namespace fdsim::geode
