#include "sim/faults/injector.h"
#include "sim/engine/internal_error.h"
#include "sim/engine/random_duration.h"

#include <cstdio>
#include <cstdlib>

#include "sim/engine/trace.h"
#include "sim/faults/churn.h"

namespace fdsim::faults {

struct FaultInjector::ProcessNode {
  NodeId node;
  size_t process;  // index into crash_processes or pause_processes
  Rng rng;
};

namespace {
Duration exp_draw(Rng& rng, double mean_s) {
  return random_duration_s(rng.exponential(1.0 / mean_s));  // clamped: sim/engine/random_duration.h
}
nlohmann::json node_list(const std::vector<NodeId>& v) { return nlohmann::json(v); }
}  // namespace

FaultInjector::FaultInjector(World& world, const FaultsConfig& config)
    : world_(world), config_(config) {
  Simulator& sim = world_.sim;
  k_crash_ = sim.kind("fault.crash");
  k_recover_ = sim.kind("fault.recover");
  k_pause_ = sim.kind("fault.pause");
  k_resume_ = sim.kind("fault.resume");
  k_sick_ = sim.kind("fault.sick");
  k_sick_end_ = sim.kind("fault.sick_end");
  k_dead_ = sim.kind("fault.play_dead");
  k_dead_end_ = sim.kind("fault.play_dead_end");
  k_partition_ = sim.kind("fault.partition");
  k_heal_ = sim.kind("fault.heal");
  k_burst_ = sim.kind("fault.loss_burst");
  k_burst_end_ = sim.kind("fault.loss_burst_end");
  k_spike_ = sim.kind("fault.delay_spike");
  k_spike_end_ = sim.kind("fault.delay_spike_end");
  k_storm_ = sim.kind("fault.crash_storm");
}

FaultInjector::~FaultInjector() = default;

void FaultInjector::trace(NodeId n, const char* kind, nlohmann::json fields) {
  if (TraceSink* t = world_.sim.trace()) t->record(world_.sim.now(), n, kind, fields);
}

void FaultInjector::start() {
  if (started_) {
    fdsim::internal_error("fdsim: internal error at t = %s: FaultInjector::start() called twice\n",
                 to_string(world_.sim.now()).c_str());
  }
  started_ = true;
  Simulator& sim = world_.sim;
  if (config_.churn) {
    if (churn_participant_ == nullptr) {
      fdsim::internal_error("fdsim: internal error: a churn fault reached a model without joins "
                            "(the loader should have rejected it)\n");
    }
    churn_ = std::make_unique<ChurnDriver>(world_, *config_.churn, *this, *churn_participant_);
    churn_->start();
  }
  for (size_t i = 0; i < config_.scheduled.size(); ++i) {
    const ScheduledFault& f = config_.scheduled[i];
    EventKind k = k_crash_;
    switch (f.kind) {
      case FaultKind::crash: k = k_crash_; break;
      case FaultKind::recover: k = k_recover_; break;
      case FaultKind::pause: k = k_pause_; break;
      case FaultKind::sick: k = k_sick_; break;
      case FaultKind::play_dead: k = k_dead_; break;
      case FaultKind::partition: k = k_partition_; break;
      case FaultKind::loss_burst: k = k_burst_; break;
      case FaultKind::delay_spike: k = k_spike_; break;
    }
    sim.schedule_at(std::max(f.at, sim.now()), k, kNoNode, [this, i] { apply(i); });
  }
  for (size_t p = 0; p < config_.crash_processes.size(); ++p) {
    const CrashProcess& cp = config_.crash_processes[p];
    for (NodeId n : cp.nodes) {
      const size_t idx = process_nodes_.size();
      process_nodes_.push_back(
          std::make_unique<ProcessNode>(ProcessNode{n, p, world_.rng.stream(n, cp.stream)}));
      const SimTime t = std::max(cp.start, sim.now()) + cp.up->draw(process_nodes_[idx]->rng);
      if (!cp.stop || t < *cp.stop)
        sim.schedule_at(t, k_crash_, n, [this, idx] { crash_step(idx); });
    }
  }
  for (size_t g = 0; g < config_.group_crash_processes.size(); ++g) {
    const CrashProcess& gp = config_.group_crash_processes[g];
    group_rngs_.push_back(world_.rng.stream(kNoNode, gp.stream));
    const SimTime t = std::max(gp.start, sim.now()) + gp.up->draw(group_rngs_[g]);
    if (!gp.stop || t < *gp.stop)
      sim.schedule_at(t, k_crash_, kNoNode, [this, g] { group_crash_step(g); });
  }
  for (size_t s = 0; s < config_.crash_storms.size(); ++s) {
    const CrashStorm& cs = config_.crash_storms[s];
    storm_rngs_.push_back(world_.rng.stream(kNoNode, cs.stream));
    const SimTime t = std::max(cs.start, sim.now()) + exp_draw(storm_rngs_[s], cs.mean_interval_s);
    if (!cs.stop || t < *cs.stop)
      sim.schedule_at(t, k_storm_, kNoNode, [this, s] { storm_step(s); });
  }
  for (size_t p = 0; p < config_.pause_processes.size(); ++p) {
    const PauseProcess& pp = config_.pause_processes[p];
    for (NodeId n : pp.nodes) {
      const size_t idx = process_nodes_.size();
      process_nodes_.push_back(
          std::make_unique<ProcessNode>(ProcessNode{n, p, world_.rng.stream(n, pp.stream)}));
      const SimTime t =
          std::max(pp.start, sim.now()) + exp_draw(process_nodes_[idx]->rng, pp.mean_interval_s);
      if (!pp.stop || t < *pp.stop)
        sim.schedule_at(t, k_pause_, n, [this, idx] { pause_step(idx); });
    }
  }
}

void FaultInjector::apply(size_t i) {
  const ScheduledFault& f = config_.scheduled[i];
  Simulator& sim = world_.sim;
  net::Network& net = world_.net;
  switch (f.kind) {
    case FaultKind::crash:
      for (NodeId n : f.nodes) crash(n);
      break;
    case FaultKind::recover:
      for (NodeId n : f.nodes) recover(n);
      break;
    case FaultKind::pause:
      for (NodeId n : f.nodes) pause(n, *f.end - f.at);
      break;
    case FaultKind::sick:
      for (NodeId n : f.nodes) set_flag(Flag::sick, n, f.end);
      break;
    case FaultKind::play_dead:
      for (NodeId n : f.nodes) set_flag(Flag::play_dead, n, f.end);
      break;
    case FaultKind::partition: {
      const uint32_t h = net.add_partition(f.a, f.b, f.one_way);
      trace(kNoNode, "partition",
            {{"a", node_list(f.a)}, {"b", node_list(f.b)}, {"one_way", f.one_way}});
      if (f.end)
        sim.schedule_at(*f.end, k_heal_, kNoNode, [this, h, i] {
          world_.net.heal(h);
          const ScheduledFault& g = config_.scheduled[i];
          trace(kNoNode, "heal", {{"a", node_list(g.a)}, {"b", node_list(g.b)}});
        });
      break;
    }
    case FaultKind::loss_burst: {
      const uint32_t h = net.add_loss_burst(f.a, f.b, f.loss);
      trace(kNoNode, "loss_burst", {{"from", node_list(f.a)}, {"to", node_list(f.b)}, {"loss", f.loss}});
      sim.schedule_at(*f.end, k_burst_end_, kNoNode, [this, h] {
        world_.net.end_loss_burst(h);
        trace(kNoNode, "loss_burst_end");
      });
      break;
    }
    case FaultKind::delay_spike: {
      const uint32_t h = net.add_delay_spike(f.a, f.b, f.extra);
      trace(kNoNode, "delay_spike",
            {{"from", node_list(f.a)}, {"to", node_list(f.b)}, {"extra_ms", f.extra.millis()}});
      sim.schedule_at(*f.end, k_spike_end_, kNoNode, [this, h] {
        world_.net.end_delay_spike(h);
        trace(kNoNode, "delay_spike_end");
      });
      break;
    }
  }
}

void FaultInjector::crash(NodeId n) {
  net::Hosts& hosts = world_.hosts;
  if (hosts.is_crashed(n)) return;
  trace(n, "crash");
  hosts.crash(n);
  pause_end_.erase(n);
}

void FaultInjector::recover(NodeId n) {
  net::Hosts& hosts = world_.hosts;
  if (!hosts.is_crashed(n)) return;
  trace(n, "recover", {{"incarnation", hosts.incarnation(n) + 1}});
  hosts.recover(n);
}

void FaultInjector::pause(NodeId n, Duration duration) {
  net::Hosts& hosts = world_.hosts;
  Simulator& sim = world_.sim;
  if (hosts.is_crashed(n)) return;
  const SimTime end = sim.now() + duration;
  if (hosts.is_paused(n)) {
    auto it = pause_end_.find(n);
    if (it != pause_end_.end() && it->second >= end) return;  // already paused long enough
  } else {
    trace(n, "pause", {{"until_s", end.seconds()}});
    hosts.pause(n);
  }
  pause_end_[n] = end;
  sim.schedule_at(end, k_resume_, n, [this, n, end] {
    auto it = pause_end_.find(n);
    if (it == pause_end_.end() || it->second != end) return;  // extended, or ended by a crash
    pause_end_.erase(it);
    if (!world_.hosts.is_paused(n)) return;
    trace(n, "resume");
    world_.hosts.resume(n);
  });
}

void FaultInjector::set_sick(NodeId n, std::optional<SimTime> until) {
  set_flag(Flag::sick, n, until);
}

void FaultInjector::set_play_dead(NodeId n, std::optional<SimTime> until) {
  set_flag(Flag::play_dead, n, until);
}

void FaultInjector::set_flag(Flag f, NodeId n, std::optional<SimTime> until) {
  net::Hosts& hosts = world_.hosts;
  Simulator& sim = world_.sim;
  std::map<NodeId, SimTime>& ends = f == Flag::sick ? sick_end_ : dead_end_;
  const SimTime end = until.value_or(SimTime::max());
  const bool on = f == Flag::sick ? hosts.is_sick(n) : hosts.is_play_dead(n);
  if (on) {
    auto it = ends.find(n);
    if (it != ends.end() && it->second >= end) return;
  } else {
    nlohmann::json fields = nlohmann::json::object();
    fields["until_s"] = until ? nlohmann::json(end.seconds()) : nlohmann::json(nullptr);
    trace(n, f == Flag::sick ? "sick" : "play_dead", fields);
    if (f == Flag::sick)
      hosts.set_sick(n, true);
    else
      hosts.set_play_dead(n, true);
  }
  ends[n] = end;
  if (!until) return;
  sim.schedule_at(end, f == Flag::sick ? k_sick_end_ : k_dead_end_, n, [this, f, n, end] {
    std::map<NodeId, SimTime>& e = f == Flag::sick ? sick_end_ : dead_end_;
    auto it = e.find(n);
    if (it == e.end() || it->second != end) return;  // extended
    e.erase(it);
    if (f == Flag::sick) {
      if (!world_.hosts.is_sick(n)) return;
      trace(n, "sick_end");
      world_.hosts.set_sick(n, false);
    } else {
      if (!world_.hosts.is_play_dead(n)) return;
      trace(n, "play_dead_end");
      world_.hosts.set_play_dead(n, false);
    }
  });
}

void FaultInjector::hold(NodeId n) {
  ++holds_[n];
  crash(n);
}

void FaultInjector::release(NodeId n) {
  auto it = holds_.find(n);
  if (it != holds_.end() && it->second > 1) {
    --it->second;
    return;
  }
  if (it != holds_.end()) holds_.erase(it);
  recover(n);
}

void FaultInjector::crash_step(size_t idx) {
  ProcessNode& pn = *process_nodes_[idx];
  const CrashProcess& cp = config_.crash_processes[pn.process];
  if (!cp.down) {
    hold(pn.node);  // crash-stop: a hold that nothing releases
    return;
  }
  hold(pn.node);
  const Duration down = cp.down->draw(pn.rng);
  world_.sim.schedule_at(world_.sim.now() + down, k_recover_, pn.node,
                         [this, idx] { recover_step(idx); });
}

void FaultInjector::recover_step(size_t idx) {
  ProcessNode& pn = *process_nodes_[idx];
  const CrashProcess& cp = config_.crash_processes[pn.process];
  release(pn.node);
  const SimTime t = world_.sim.now() + cp.up->draw(pn.rng);
  if (!cp.stop || t < *cp.stop)
    world_.sim.schedule_at(t, k_crash_, pn.node, [this, idx] { crash_step(idx); });
}

void FaultInjector::pause_step(size_t idx) {
  ProcessNode& pn = *process_nodes_[idx];
  const PauseProcess& pp = config_.pause_processes[pn.process];
  const Duration d = pp.duration->draw(pn.rng);
  const SimTime next = world_.sim.now() + exp_draw(pn.rng, pp.mean_interval_s);
  pause(pn.node, d);
  if (!pp.stop || next < *pp.stop)
    world_.sim.schedule_at(next, k_pause_, pn.node, [this, idx] { pause_step(idx); });
}

}  // namespace fdsim::faults

namespace fdsim::faults {

void FaultInjector::group_crash_step(size_t g) {
  const CrashProcess& gp = config_.group_crash_processes[g];
  trace(kNoNode, "group_crash", {{"nodes", node_list(gp.nodes)}});
  if (!gp.down) {
    for (NodeId n : gp.nodes) hold(n);  // crash-stop: holds that nothing releases
    return;
  }
  for (NodeId n : gp.nodes) hold(n);
  const Duration down = gp.down->draw(group_rngs_[g]);
  world_.sim.schedule_at(world_.sim.now() + down, k_recover_, kNoNode,
                         [this, g] { group_recover_step(g); });
}

void FaultInjector::group_recover_step(size_t g) {
  const CrashProcess& gp = config_.group_crash_processes[g];
  trace(kNoNode, "group_recover", {{"nodes", node_list(gp.nodes)}});
  for (NodeId n : gp.nodes) release(n);
  const SimTime t = world_.sim.now() + gp.up->draw(group_rngs_[g]);
  if (!gp.stop || t < *gp.stop)
    world_.sim.schedule_at(t, k_crash_, kNoNode, [this, g] { group_crash_step(g); });
}

void FaultInjector::storm_step(size_t s) {
  const CrashStorm& cs = config_.crash_storms[s];
  Rng& rng = storm_rngs_[s];
  Simulator& sim = world_.sim;
  // The victims: a partial Fisher-Yates shuffle of the set (size distinct nodes, uniformly).
  std::vector<NodeId> pool = cs.nodes;
  for (size_t i = 0; i < cs.size; ++i)
    std::swap(pool[i], pool[size_t(rng.uniform_int(int64_t(i), int64_t(pool.size()) - 1))]);
  pool.resize(cs.size);
  trace(kNoNode, "crash_storm", {{"nodes", node_list(pool)}, {"window_s", cs.window.seconds()}});
  for (NodeId n : pool) {
    const Duration offset = Duration::from_seconds(rng.uniform01() * cs.window.seconds());
    if (!cs.down) {
      sim.schedule_at(sim.now() + offset, k_crash_, n, [this, n] { hold(n); });
      continue;
    }
    const Duration down = cs.down->draw(rng);
    sim.schedule_at(sim.now() + offset, k_crash_, n, [this, n, down] {
      hold(n);
      world_.sim.schedule_at(world_.sim.now() + down, k_recover_, n, [this, n] { release(n); });
    });
  }
  const SimTime next = sim.now() + exp_draw(rng, cs.mean_interval_s);
  if (!cs.stop || next < *cs.stop)
    sim.schedule_at(next, k_storm_, kNoNode, [this, s] { storm_step(s); });
}

}  // namespace fdsim::faults
