#include "sim/faults/churn.h"

#include <algorithm>

#include "sim/engine/trace.h"
#include "sim/faults/injector.h"

namespace fdsim::faults {

ChurnDriver::ChurnDriver(World& world, const ChurnProcess& config, FaultInjector& injector,
                         ChurnParticipant& participant)
    : world_(world),
      config_(config),
      injector_(injector),
      participant_(participant),
      join_rng_(world.rng.stream(kNoNode, config.stream)) {
  slots_ = config.nodes;
  slots_.insert(slots_.end(), config.spare.begin(), config.spare.end());
  std::sort(slots_.begin(), slots_.end());
  for (NodeId n : slots_) session_rngs_.push_back(world.rng.stream(n, config.stream));
  k_leave_ = world.sim.kind("fault.churn_leave");
  k_join_ = world.sim.kind("fault.churn_join");
}

void ChurnDriver::start() {
  Simulator& sim = world_.sim;
  for (NodeId n : config_.spare) {
    free_.insert(n);
    if (TraceSink* t = sim.trace()) t->record(sim.now(), n, "churn_absent", nlohmann::json::object());
    participant_.churn_absent(n);
    world_.hosts.crash(n);
  }
  const SimTime start = std::max(config_.start, sim.now());
  for (NodeId n : config_.nodes) schedule_leave(n, start);
  if (config_.join) {
    const SimTime t = start + config_.join->draw(join_rng_);
    if (active(t)) sim.schedule_at(t, k_join_, kNoNode, [this] { join_step(); });
  }
}

void ChurnDriver::schedule_leave(NodeId n, SimTime from) {
  if (!config_.session) return;
  const size_t i = size_t(std::lower_bound(slots_.begin(), slots_.end(), n) - slots_.begin());
  const SimTime t = from + config_.session->draw(session_rngs_[i]);
  if (!active(t)) return;
  // The leave belongs to the identity now on the slot (its host incarnation, or the next one
  // for a joiner scheduled before its host comes up).
  const uint32_t inc = world_.hosts.is_crashed(n) ? world_.hosts.incarnation(n) + 1
                                                  : world_.hosts.incarnation(n);
  world_.sim.schedule_at(t, k_leave_, n, [this, n, inc] { leave_step(n, inc); });
}

void ChurnDriver::leave_step(NodeId n, uint32_t incarnation) {
  net::Hosts& hosts = world_.hosts;
  if (hosts.is_crashed(n) || hosts.incarnation(n) != incarnation) return;  // not that identity
  Simulator& sim = world_.sim;
  if (TraceSink* t = sim.trace())
    t->record(sim.now(), n, "churn_leave", {{"graceful", config_.graceful}});
  participant_.churn_leave(n, config_.graceful);
  injector_.crash(n);
  free_.insert(n);
}

void ChurnDriver::join_step() {
  Simulator& sim = world_.sim;
  if (free_.empty()) {
    if (TraceSink* t = sim.trace())
      t->record(sim.now(), kNoNode, "churn_join_skipped", nlohmann::json::object());
  } else {
    const NodeId n = *free_.begin();
    free_.erase(free_.begin());
    if (TraceSink* t = sim.trace())
      t->record(sim.now(), n, "churn_join", {{"incarnation", world_.hosts.incarnation(n) + 1}});
    participant_.churn_join(n);
    world_.hosts.recover(n);
    schedule_leave(n, sim.now());
  }
  const SimTime next = sim.now() + config_.join->draw(join_rng_);
  if (active(next)) sim.schedule_at(next, k_join_, kNoNode, [this] { join_step(); });
}

}  // namespace fdsim::faults
