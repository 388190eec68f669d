#include "models/loadsharing/cost_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/loadsharing/hou_shin_timeout.h"
#include "models/loadsharing/loss_tolerance.h"
#include "models/timeout/capped_quantile.h"
#include "models/timeout/exit_chain.h"
#include "models/timeout/timeout_table.h"
#include "models/timeout/uniformization.h"

namespace fdsim::loadsharing {

namespace {

// The CET mapping's clamp (hou_shin_timeout.cpp, kMaxCetChainStates).
constexpr double kMaxCetChainStates = 1000;
// Link losses beyond this are counted at it (loss^k <= alpha / 2 needs k near 1/(1 - loss)).
constexpr double kMaxLossForPromises = 0.999;

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
                                        double loss_values, double max_loss,
                                        double max_allowance_s) {
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
  // estimated mu, S = min(th_f x mu, 1000) + 42 (the mapping's clamp).
  bool t_out = false, extra = false;
  double alpha = 0.5;  // the smallest alpha of an extra-broadcast arm (the most promises)
  for (const ArmConfig& a : cfg.arms) {
    t_out = t_out || a.needs_t_out();
    if (a.sends_extra()) {
      extra = true;
      alpha = std::min(alpha, a.alpha);
    }
  }
  double states = 0;
  // The estimated rates the chains are built from: mu at most the execution prior's rate or
  // twice the fastest mean execution rate; a region's input at most the arrival prior's rate
  // or twice every task of the system (transfers included) plus a batch within one prior
  // exposure. Their sum is the chains' uniformization rate.
  double mu = cfg.estimation.execution_prior_shape / cfg.estimation.execution_prior_exposure_s;
  for (const ExecTimeDistribution& law : cfg.workload.exec_laws)
    if (law.mean_s() > 0) mu = std::max(mu, 2.0 / law.mean_s());
  double largest_batch = 0;
  for (size_t i = 0; i < cfg.node_count; ++i)
    largest_batch = std::max(largest_batch, node_load(cfg.workload, i).batch);
  const double lambda =
      std::max(cfg.estimation.arrival_prior_shape / cfg.estimation.arrival_prior_exposure_s,
               2.0 * tasks + largest_batch / cfg.estimation.arrival_prior_exposure_s);
  const double rate = lambda + mu;
  if (t_out && cfg.load_index == LoadIndex::cet) {
    states = std::min(std::ceil(cfg.thresholds.th_f * mu), kMaxCetChainStates) + 1.0;
  } else if (t_out) {
    states = cfg.thresholds.th_f + 1.0;
  }
  states += double(timeout::kTopRegionStates) + 1.0;
  // T_out work and memory (hou_shin_timeout.h; chains of S >= 64 states charge their work,
  // timeout/uniformization.h). An observer arms its timer at a cheap lower bound
  // (TimeoutTable::quantile_lower_bound_s: a closed form or a window of at most 17 states,
  // which charges nothing) and computes T_out only when a silence reaches it; the value is
  // memoised on the broadcast's rounded inputs and the pair's loss allowance (TimeoutTable), so
  // all of a broadcast's observers with one loss allowance share one computation: about one per
  // broadcast sent (tasks x 2 broadcasts) and loss value (`loss_values`: the distinct loss
  // allowances of the pairs, 1 with loss_allowance). Each costs at most
  // - its cheap paths (timeout/poisson_survival.h, spectral_exit.h): Poisson row products and
  //   series terms, kPoissonTerms x (S + kTOutEvaluations) operations, the spectral QL (S^2)
  //   and evaluations (kTOutEvaluations x S), one unit per 64;
  // - where they give up (a near-critical region of hundreds of states: its exit beyond the
  //   Poisson path's mass, an ill-conditioned spectral form, no far-exit claim,
  //   timeout/far_exit.h), the run span's fallback (timeout/capped_quantile.h) at its first
  //   cap, the Poisson path's own reach (kMaxMass / rate), and for an extra-broadcast sender
  //   whose interval is T_out - margin, caps up to twice the margin (4 rate margin units per
  //   mass).
  // Beyond the first cap the fallback's caps double with the wait (TimeoutTable::
  // quantile_needed_s), so it costs at most 4 rate x fallback_units_per_mass per second of
  // waiting, per waiter: every observer pair (twice with extra broadcasts: the limit and the
  // interval) and, with extra broadcasts, every sender for each of its k promises
  // (loss_tolerance.h, k from the largest link loss). Memory: one computation at a time, at
  // most bytes_any_cap at the span. So the term bounds the T_out work for the rates above, but
  // for one thing: a value evicted from the memo (timeout_table.h, bounded) and asked for again
  // is computed again.
  if (t_out && states >= double(timeout::kMinChargedChainStates)) {
    const double span_s = t_out_run_span_s(cfg, horizon_s);
    const timeout::FallbackCost at_span = timeout::fallback_cost(states, rate, span_s);
    const timeout::FallbackCost first = timeout::fallback_cost(
        states, rate, timeout::effective_cap_s(timeout::QuantileCap{0.0, span_s}, rate));
    const double per_mass = timeout::fallback_units_per_mass(states);
    // The send margin: send_margin_ms, else the delay allowance (delay_allowance_ms, else the
    // largest link's latency q99 - min, loadsharing_model.cpp).
    const double margin_s =
        !extra             ? 0.0
        : cfg.send_margin  ? cfg.send_margin->seconds()
        : cfg.delay_allowance ? cfg.delay_allowance->seconds()
                              : max_allowance_s;
    const double losses = cfg.loss_allowance ? 1.0 : std::max(1.0, loss_values);
    // Twice: a traced run (output.trace or --trace) computes each broadcast's T_out once more
    // for its record, in a table of its own, at the first cap (loadsharing_diagnosis.cpp).
    const double queries_per_s = tasks * 2.0 * losses * 2.0;
    const double ops = kPoissonTerms * (states + kTOutEvaluations) + states * states +
                       kTOutEvaluations * states;
    const double per_query = ops / 64.0 + first.work_units + 4.0 * rate * margin_s * per_mass;
    const double link_loss = cfg.loss_allowance ? *cfg.loss_allowance : max_loss;
    const double promises =
        extra ? double(tolerated_broadcasts(std::min(link_loss, kMaxLossForPromises), alpha))
              : 0.0;
    const double waiters = n * b * (extra ? 2.0 : 1.0) + n * promises;
    const double per_wait_s = 4.0 * rate * per_mass;
    c.t_out_work_per_s = queries_per_s * per_query + waiters * per_wait_s;
    c.t_out_states = states;
    c.t_out_fallback_units = first.work_units;
    c.t_out_work_formula = "T_out computations " + g(queries_per_s) + " per s x " +
                           g(per_query) + " units + " + g(waiters) + " waiters x " +
                           g(per_wait_s) + " units per s (chains of " + g(states) +
                           " states at rate " + g(rate) + " per s)";
    // + the table's memos at their bound (the fallback's floor memos fill only here).
    c.t_out_bytes = at_span.bytes_any_cap + 16.0 * kPoissonTerms + 64.0 * 8.0 * states +
                    double(timeout::TimeoutTable::max_bytes());
    c.t_out_bytes_formula =
        "T_out chains of about " + g(states) + " states (th_f " + g(cfg.thresholds.th_f) +
        (cfg.load_index == LoadIndex::cet ? " s x mu " + g(mu) + " per s" : std::string()) +
        " + 42): one computation within the run span " + g(span_s) + " s at rate " + g(rate) +
        " per s, and the memos";
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
