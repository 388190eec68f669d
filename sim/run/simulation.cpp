#include "sim/run/simulation.h"

#include <chrono>
#include <ctime>
#include <memory>

#include "models/detectors/heartbeat_study.h"
#include "models/geode/geode_model.h"
#include "models/jgroups/jgroups_model.h"
#include "models/loadsharing/loadsharing_model.h"
#include "models/swim/swim_model.h"
#include "sim/faults/injector.h"
#include "sim/net/world.h"
#include "sim/run/node_table.h"
#include "sim/run/run_budget.h"
#include "sim/engine/budget.h"
#include "sim/engine/heap_account.h"
#include "sim/run/stall_guard.h"
#include "sim/run/trace_collector.h"

namespace fdsim::run {

using nlohmann::json;

std::vector<SimulationPlan> plan_simulations(const Scenario& s) {
  std::vector<SimulationPlan> plans;
  if (s.family == ArmFamily::heartbeat_study) {
    plans.push_back({s.arms, 0, ""});
  } else {
    for (size_t a = 0; a < s.arms.size(); ++a) plans.push_back({{s.arms[a]}, a, s.arms[a]});
  }
  return plans;
}

namespace {

// The models of one simulation, started in a fixed order.
struct Models {
  std::vector<std::unique_ptr<Model>> owned;
  std::function<json()> metrics;  // {arm: {...}} for the plan's arms
  // The model that runs churn (sim/faults/churn.h): the Geode ring of the membership family or
  // SWIM; the loader rejects churn for every other family. enable_churn registers its churn
  // metrics (and Geode's leave request type).
  faults::ChurnParticipant* churn_model = nullptr;
  std::function<void()> enable_churn;
};

Models build_models(const Scenario& s, World& world, const SimulationPlan& plan) {
  Models m;
  switch (s.family) {
    case ArmFamily::load_sharing: {
      const auto& cfg = *s.load_sharing;
      geode::GeodeModel* membership = nullptr;
      std::function<bool(NodeId, NodeId)> membership_failed;
      if (cfg.arm_needs_membership(plan.arm_index)) {
        const auto own = s.membership_for_arm.find(plan.arm_index);
        const geode::GeodeConfig& mcfg =
            own != s.membership_for_arm.end() ? own->second : *s.membership;
        auto g = std::make_unique<geode::GeodeModel>(world, mcfg, size_t{0});
        membership = g.get();
        membership_failed = [membership](NodeId observer, NodeId target) {
          return membership->considers_failed(observer, target);
        };
        m.owned.push_back(std::move(g));
      }
      auto ls = std::make_unique<loadsharing::LoadSharingModel>(world, cfg, plan.arm_index,
                                                                membership_failed);
      Model* ls_ptr = ls.get();
      m.owned.push_back(std::move(ls));
      const std::string arm = plan.arms.front();
      m.metrics = [ls_ptr, membership, arm] {
        json a = ls_ptr->metrics();
        if (membership != nullptr) a["membership"] = membership->metrics();
        return json{{arm, std::move(a)}};
      };
      break;
    }
    case ArmFamily::membership: {
      auto g = std::make_unique<geode::GeodeModel>(world, *s.membership, plan.arm_index);
      Model* g_ptr = g.get();
      m.churn_model = g.get();
      m.enable_churn = [g_ptr = g.get()] { g_ptr->enable_churn(); };
      m.owned.push_back(std::move(g));
      const std::string arm = plan.arms.front();
      m.metrics = [g_ptr, arm] { return json{{arm, g_ptr->metrics()}}; };
      break;
    }
    case ArmFamily::swim: {
      auto sw = std::make_unique<swim::SwimModel>(world, *s.swim, plan.arm_index);
      Model* sw_ptr = sw.get();
      m.churn_model = sw.get();
      m.enable_churn = [sw_raw = sw.get()] { sw_raw->enable_churn(); };
      m.owned.push_back(std::move(sw));
      const std::string arm = plan.arms.front();
      m.metrics = [sw_ptr, arm] { return json{{arm, sw_ptr->metrics()}}; };
      break;
    }
    case ArmFamily::jgroups: {
      auto jg = std::make_unique<jgroups::JGroupsModel>(world, *s.jgroups, plan.arm_index);
      Model* jg_ptr = jg.get();
      m.owned.push_back(std::move(jg));
      const std::string arm = plan.arms.front();
      m.metrics = [jg_ptr, arm] { return json{{arm, jg_ptr->metrics()}}; };
      break;
    }
    case ArmFamily::heartbeat_study: {
      auto st = std::make_unique<detectors::HeartbeatStudy>(world, *s.detectors);
      Model* st_ptr = st.get();
      m.owned.push_back(std::move(st));
      m.metrics = [st_ptr] { return st_ptr->metrics(); };
      break;
    }
  }
  if (!m.metrics) {
    throw std::logic_error("no model for the scenario's arm family");
  }
  return m;
}

// CPU seconds used by the calling thread so far (a simulation runs on one thread). Measurement
// only: it goes to run_stats, never into the simulation.
double thread_cpu_s() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace

SimulationOutput run_simulation(const Scenario& s, uint64_t replication,
                                const SimulationPlan& plan, TraceOutput* trace_out,
                                const std::function<void(double, uint64_t)>& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start_s = thread_cpu_s();
  Simulator sim;
  std::unique_ptr<TraceCollector> trace;
  if (trace_out != nullptr) {
    trace = std::make_unique<TraceCollector>(*trace_out, plan.trace_label);
    sim.set_trace(trace.get());
  }
  // The simulation's budget (sim/run/run_budget.h): everything built from here on, the models
  // included, counts against it; crossing it (or SIGINT/SIGTERM) throws at the next check.
  RunBudget budget(&sim, simulation_budget(s), simulation_estimate(s), s.source);
  // The hook also runs the stall guard (sim/run/stall_guard.h), so it is always set.
  StallGuard stall_guard(sim);
  sim.set_progress_hook(kStallCheckEveryEvents, [&sim, &progress, &stall_guard, &budget] {
    stall_guard.check();
    budget.check();  // memory, work, SIGINT/SIGTERM (sim/engine/budget.h)
    if (progress) progress(sim.now().seconds(), sim.events_dispatched());
  });
  const size_t n = s.top.nodes.count;
  net::Hosts hosts(sim, n);
  net::NetworkConfig net_cfg = s.network;
  if (!net_cfg.latency) net_cfg.latency = net::constant_latency(1.0);
  net::Network network(sim, hosts, RngFactory(s.top.seed, replication), std::move(net_cfg));
  World world{sim, hosts, network, RngFactory(s.top.seed, replication), s.top.warmup_end,
              s.top.horizon};

  std::unique_ptr<NodeTable> node_table;
  if (s.top.metrics.per_node) {
    node_table = std::make_unique<NodeTable>(sim, n, s.top.warmup_end, s.top.horizon);
    hosts.add_listener(node_table.get());
  }

  network.set_traffic_window(s.top.warmup_end);  // the `traffic` metrics' window
  faults::FaultInjector injector(world, s.faults);
  Models models = build_models(s, world, plan);
  if (s.faults.churn && models.churn_model != nullptr) {
    models.enable_churn();
    injector.set_churn_participant(models.churn_model);
  }
  injector.start();
  for (auto& m : models.owned) m->start();
  budget.check();  // building the models may have crossed the memory budget
  sim.run_until(s.top.horizon);
  for (auto& m : models.owned) m->finish();
  if (node_table) node_table->finish();
  budget.check();

  SimulationOutput out;
  out.metrics = models.metrics();
  if (!out.metrics.is_object()) throw std::logic_error("a model returned metrics that are not an object");
  // One simulation's message cost: the same object for every arm it ran (the heartbeat study
  // runs all its detectors on one stream of heartbeats).
  const json traffic = network.traffic_metrics(s.top.horizon);
  for (const auto& arm : plan.arms) {
    if (!out.metrics.contains(arm)) {
      throw std::logic_error("the model returned no metrics for arm \"" + arm + "\"");
    }
    if (node_table) out.metrics[arm]["hosts_per_node"] = node_table->table();
    out.metrics[arm]["traffic"] = traffic;
  }
  out.fingerprint = sim.fingerprint();
  out.events_dispatched = sim.events_dispatched();
  out.peak_queue_size = sim.peak_queue_size();
  out.events_by_kind = json::object();
  for (const auto& k : sim.kind_counts()) out.events_by_kind[k.name] = k.dispatched;
  out.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  out.cpu_s = thread_cpu_s() - cpu_start_s;
  out.work_units = budget.work_units();
  out.peak_heap_bytes = heap::enabled() ? budget.peak_memory_bytes() : -1;
  return out;
}

}  // namespace fdsim::run
