#include "models/loadsharing/cost_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/timeout/exit_chain.h"
#include "models/timeout/uniformization.h"

namespace fdsim::loadsharing {

namespace {

// The CET mapping's clamp (hou_shin_timeout.cpp, kMaxCetChainStates).
constexpr double kMaxCetChainStates = 1000;

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The largest task rate a node sees (per second) and the largest batch arriving at once.
struct NodeLoad {
  double rate_per_s = 0;
  double batch = 0;            // tasks per batch (0: single arrivals)
  double batch_rate_per_s = 0;
};

// Arrivals of a Poisson count with mean `mean` in one window: exceeded with negligible
// probability (mean + 4 standard deviations + 4; models/geode/cost_bound.cpp's count_cap).
double count_cap(double mean) {
  if (!(mean > 0)) return 0;
  return mean + 4.0 * std::sqrt(mean) + 4.0;
}

NodeLoad node_load(const WorkloadConfig& w, size_t node) {
  NodeLoad l;
  if (node < w.process_of_node.size() && w.process_of_node[node] >= 0) {
    const ArrivalProcessSpec& p = w.processes[size_t(w.process_of_node[node])];
    switch (p.kind) {
      case ArrivalProcessSpec::Kind::mmpp2:
        l.rate_per_s = std::max(p.rate_per_s[0], p.rate_per_s[1]);
        break;
      case ArrivalProcessSpec::Kind::batch_poisson:
        l.rate_per_s = p.mean_rate_per_s();
        l.batch_rate_per_s = p.batch_rate_per_s;
        l.batch = p.batch.law == BatchSizeLaw::deterministic ? double(p.batch.value)
                  : p.batch.law == BatchSizeLaw::uniform     ? double(p.batch.max)
                                                             : 10.0 * p.batch.mean;
        break;
      case ArrivalProcessSpec::Kind::trace:
        l.rate_per_s = p.mean_rate_per_s();
        break;
    }
    return l;
  }
  if (node < w.arrivals.size())
    for (const RatePhase& ph : w.arrivals[node].phases())
      l.rate_per_s = std::max(l.rate_per_s, ph.rate_per_s);
  return l;
}

}  // namespace

LoadSharingCost load_sharing_cost_bound(const LoadSharingConfig& cfg, double horizon_s,
                                        double loss_values) {
  LoadSharingCost c;
  const double n = double(cfg.node_count);
  const double b = cfg.node_count == 0 ? 0.0
                                       : double(std::min(cfg.buddy_size, cfg.node_count - 1));
  const DeadlineDistribution& d = cfg.workload.deadline;
  double wait_s = d.rule == DeadlineRule::fixed     ? d.relative_s
                  : d.rule == DeadlineRule::uniform ? d.max_s
                                                    : horizon_s;  // laxity: unbounded execution
  if (cfg.late_tasks == LateTaskPolicy::finish) wait_s = horizon_s;
  wait_s = std::min(wait_s, horizon_s);
  double tasks = 0, scan = 0, queued = 0;
  for (size_t i = 0; i < cfg.node_count; ++i) {
    const NodeLoad l = node_load(cfg.workload, i);
    // The tasks that arrive within one longest wait, at most: the count of arrivals (or of
    // batches, each `batch` tasks) in a window of wait_s is Poisson: its tail bound, not its
    // mean (with 500-task batches at 0.5 per s and W = 10 s, 5 batches on average but up to
    // 11 in some window of a 120 s run on 19 nodes).
    const double queue = l.batch > 0 ? l.batch * count_cap(l.batch_rate_per_s * wait_s)
                                     : count_cap(l.rate_per_s * wait_s);
    tasks += l.rate_per_s;
    queued += queue;
    scan += l.rate_per_s * kQueueOpsPerTask * queue / 64.0;
  }
  c.events_per_s = tasks * (kEventsPerTask + 4.0 * b) + (horizon_s > 0 ? n * b / horizon_s : 0.0);
  // T_out chains (hou_shin_timeout.h, exit_chain.h): a region chain, the top region's 41
  // states and the lossy silence chain over all regions, about S = th_f + 42 states; under the
  // CET load index the thresholds (seconds of work) are mapped to queue lengths with the
  // estimated mu, S = min(th_f x mu, 1000) + 42 (the mapping's clamp). Memory: a chain of
  // S >= 64 states may fall back to the dense uniformization: the generator, its copy and up
  // to 64 cached doubling matrices, 8 B per entry each. Work: below.
  bool t_out = false;
  for (const ArmConfig& a : cfg.arms) t_out = t_out || a.needs_t_out();
  double states = 0, mu = 1;
  if (t_out && cfg.load_index == LoadIndex::cet) {
    mu = cfg.estimation.execution_prior_shape / cfg.estimation.execution_prior_exposure_s;
    for (const ExecTimeDistribution& law : cfg.workload.exec_laws)
      if (law.mean_s() > 0) mu = std::max(mu, 2.0 / law.mean_s());
    states = std::min(std::ceil(cfg.thresholds.th_f * mu), kMaxCetChainStates) + 1.0;
  } else if (t_out) {
    states = cfg.thresholds.th_f + 1.0;
  }
  states += double(timeout::kTopRegionStates) + 1.0;
  if (t_out && states >= double(timeout::kMinChargedChainStates)) {
    c.t_out_bytes = states * states * 8.0 * 68.0;
    c.t_out_bytes_formula = "T_out chains of about " + g(states) + " states (th_f " +
                            g(cfg.thresholds.th_f) +
                            (cfg.load_index == LoadIndex::cet ? " s x mu " + g(mu) + " per s"
                                                              : std::string()) +
                            " + 42): 68 dense matrices of S^2 x 8 B";
  }
  // T_out work (hou_shin_timeout.h): an observer arms its timer at a cheap lower bound
  // (TimeoutTable::quantile_lower_bound_s: a closed form or a window of at most 17 states,
  // which charges nothing) and computes the exact T_out only when a silence reaches it; the
  // exact value is memoised on the broadcast's rounded inputs and the pair's loss allowance
  // (TimeoutTable), so all of a broadcast's observers with one loss allowance share one
  // computation. Hence about one computation per broadcast sent (tasks x 2 broadcasts) and
  // loss value (`loss_values`: the distinct loss allowances of the pairs, 1 with
  // loss_allowance). A chain of S >= 64 states charges (timeout/poisson_survival.h,
  // spectral_exit.h) its Poisson row products and series terms, at most kPoissonTerms x (S +
  // kTOutEvaluations) operations, and its spectral path's QL (S^2) and evaluations
  // (kTOutEvaluations x S): one unit per 64. This is an estimate, not a bound: a computation
  // evicted from the memo is done again, and the dense uniformization fallback (where neither
  // path applies) charges its own work without a term; the run's work budget (2 x the
  // estimate + 1e6) stops a run whose chains keep falling back. Chains whose exit lies against
  // a strong drift do not fall back (models/timeout/far_exit.h); near-critical regions of
  // hundreds of states do.
  if (t_out && states >= double(timeout::kMinChargedChainStates)) {
    const double losses = cfg.loss_allowance ? 1.0 : std::max(1.0, loss_values);
    const double queries_per_s = tasks * 2.0 * losses;
    const double ops = kPoissonTerms * (states + kTOutEvaluations) + states * states +
                       kTOutEvaluations * states;
    c.t_out_work_per_s = queries_per_s * ops / 64.0;
    c.t_out_states = states;
    c.t_out_fallback_units = 63.0 * states * states * states / 64.0;
    c.t_out_work_formula = "T_out computations " + g(queries_per_s) + " per s x " +
                           g(ops / 64.0) + " units (chains of " + g(states) + " states)";
  }
  c.work_per_s = scan + c.t_out_work_per_s;
  c.events_formula = "tasks " + g(tasks) + " per s x (8 + 4 x buddies " + g(b) +
                     ") + queue scans " + g(scan) + " units per s + initial broadcasts " +
                     g(n * b);
  c.queue_bytes = queued * kBytesPerQueuedTask;
  c.queue_formula = "queued tasks " + g(queued) + " (arrivals, or batches, in the longest wait " +
                    g(wait_s) + " s: m + 4 sqrt(m) + 4) x 512 B";
  c.buddy_bytes = n * (kBytesPerLoadSharingNode + kBytesPerBuddyEntry * b);
  c.buddy_formula = "nodes.count " + g(n) + " x (4 kB + 480 B x buddies " + g(b) + ")";
  return c;
}

}  // namespace fdsim::loadsharing
