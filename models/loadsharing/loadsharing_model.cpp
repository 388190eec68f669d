// LoadSharingModel: construction, start/finish, and the ground-truth fault listener.
// The task flow is in loadsharing_tasks.cpp, broadcasts and diagnosis in
// loadsharing_diagnosis.cpp, the metrics in loadsharing_metrics.cpp.
#include "models/loadsharing/loadsharing_model.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "models/loadsharing/hou_shin_timeout.h"
#include "models/loadsharing/loss_tolerance.h"
#include "sim/engine/trace.h"

namespace fdsim::loadsharing {

namespace {
[[noreturn]] void model_misuse(SimTime now, NodeId node, const std::string& what) {
  fdsim::internal_error("fdsim: internal error at t = %s, node %u: load sharing: %s\n",
               to_string(now).c_str(), unsigned(node), what.c_str());
}
}  // namespace

LoadSharingModel::LoadSharingModel(World& world, const LoadSharingConfig& config, size_t arm,
                                   std::function<bool(NodeId, NodeId)> membership_failed)
    : world_(world),
      sim_(world.sim),
      cfg_(config),
      arm_(config.arms.at(arm)),
      membership_failed_(std::move(membership_failed)),
      graph_(config.node_count, config.buddy_size),
      source_(config.workload, world.rng, config.node_count),
      ledger_(config.node_count),
      recorder_(graph_, world.warmup_end,
                [this](NodeId observer, size_t k) -> std::optional<Region> {
                  const View& v = views_[pair(observer, k)];
                  if (!v.known) return std::nullopt;
                  return v.last.region;
                }) {
  if (world.hosts.size() != config.node_count)
    model_misuse(sim_.now(), kNoNode,
                 "the world has " + std::to_string(world.hosts.size()) + " hosts, the config " +
                     std::to_string(config.node_count) + " nodes");
  if (arm_.diagnosis == DiagnosisKind::geode_ring && !membership_failed_)
    model_misuse(sim_.now(), kNoNode,
                 "arm '" + arm_.name + "' (geode_ring) needs a membership view");

  nodes_.reserve(cfg_.node_count);
  for (size_t i = 0; i < cfg_.node_count; ++i) nodes_.emplace_back(cfg_);

  kind_arrival_ = sim_.kind("ls.arrival");
  kind_deferred_arrival_ = sim_.kind("ls.deferred_arrival");
  kind_complete_ = sim_.kind("ls.complete");
  kind_silence_ = sim_.kind("ls.silence_timer");
  kind_suspect_ = sim_.kind("ls.suspect");
  kind_extra_ = sim_.kind("ls.extra_broadcast");
  kind_transfer_guard_ = sim_.kind("ls.transfer_give_up");
  kind_poll_ = sim_.kind("ls.membership_poll");
  kind_periodic_ = sim_.kind("ls.periodic_broadcast");
  kind_extra_check_ = sim_.kind("ls.extra_broadcast_check");
  for (size_t k = 0; k < kBroadcastKindCount; ++k)
    msg_broadcast_[k] =
        world_.net.type("ls.broadcast." + std::string(broadcast_kind_name(BroadcastKind(k))));
  msg_transfer_ = world_.net.type("ls.transfer");
  // Only the arm that sends heartbeats has the type, so no other arm's traffic table changes.
  if (arm_.sends_heartbeat()) msg_heartbeat_ = world_.net.type("ls.heartbeat");

  const size_t pairs = cfg_.node_count * graph_.buddy_count();
  views_.resize(pairs);
  pair_min_delay_.resize(pairs);
  transfer_min_delay_.resize(pairs);
  pair_limit_.assign(pairs, Duration::max());
  pair_exact_.assign(pairs, 1);
  for (size_t j = 0; j < cfg_.node_count; ++j)
    for (size_t k = 0; k < graph_.buddy_count(); ++k) {
      const NodeId obs = NodeId(j), target = graph_.preferred(obs)[k];
      pair_min_delay_[pair(obs, k)] =
          Duration::from_ms(world_.net.latency_model(target, obs).min_ms());
      transfer_min_delay_[pair(obs, k)] =
          Duration::from_ms(world_.net.latency_model(obs, target).min_ms());
    }
  if (arm_.times_silence()) {
    silence_.reserve(pairs);
    for (size_t j = 0; j < cfg_.node_count; ++j) {
      for (size_t k = 0; k < graph_.buddy_count(); ++k) {
        const NodeId obs = NodeId(j);
        silence_.push_back(std::make_unique<Watchdog>(sim_, kind_silence_, obs, [this, obs, k] {
          // Decided on the observer: deferred to the end of a pause, dropped if it crashed.
          world_.hosts.run_on(obs, world_.hosts.incarnation(obs), kind_suspect_,
                              [this, obs, k] { on_silence(obs, k); });
        }));
      }
    }
  }
  if (arm_.needs_t_out()) {
    // No timer of this run expires beyond the horizon: a silence limit starts at a broadcast's
    // receipt (>= 0), an extra broadcast is due T_out - send margin after its send (>= 0). So a
    // T_out quantile beyond horizon + send margin (+ 1 s against rounding) is never reached,
    // and the table need not compute it exactly (timeout_table.h, run span): this bounds the
    // work of the chains no cheap path computes (models/timeout/capped_quantile.h), and the
    // cost estimate counts it (cost_bound.cpp, with the same span).
    timeouts_.set_run_span_s(t_out_run_span_s(cfg_, world_.horizon.seconds()));
    // Delay allowance per link target -> observer: q99 - min of its latency (or the config);
    // loss allowance: the link's configured loss probability (or the config).
    pair_allowance_.resize(pairs);
    pair_loss_.resize(pairs);
    sender_allowance_.assign(cfg_.node_count, Duration::zero());
    sender_k_.assign(cfg_.node_count, 1);
    for (size_t j = 0; j < cfg_.node_count; ++j) {
      for (size_t k = 0; k < graph_.buddy_count(); ++k) {
        const NodeId obs = NodeId(j), target = graph_.preferred(obs)[k];
        Duration a;
        if (cfg_.delay_allowance) {
          a = *cfg_.delay_allowance;
        } else {
          const net::LatencyModel& m = world_.net.latency_model(target, obs);
          // At most 1e9 ms, the bound of every delay parameter: a heavy-tailed law (lognormal
          // sigma 20) has a 99th percentile beyond what int64 nanoseconds hold.
          a = Duration::from_ms(
              std::min(1e9, std::max(0.0, m.quantile_ms(0.99) - m.min_ms())));
        }
        pair_allowance_[pair(obs, k)] = a;
        sender_allowance_[target] = std::max(sender_allowance_[target], a);
        const double loss = cfg_.loss_allowance.value_or(world_.net.link_loss(target, obs));
        pair_loss_[pair(obs, k)] = loss;
        if (arm_.sends_extra())
          sender_k_[target] = std::max(sender_k_[target], tolerated_broadcasts(loss, arm_.alpha));
      }
    }
  }
  world_.hosts.add_listener(this);
}

LoadSharingModel::~LoadSharingModel() = default;

void LoadSharingModel::start() {
  const SimTime now = sim_.now();
  for (size_t i = 0; i < cfg_.node_count; ++i) {
    NodeRuntime& node = nodes_[i];
    node.est.emplace(cfg_.estimation, now, Region::U);
    node.last_sent = initial_broadcast(NodeId(i), now);
    node.ql_since = now;
  }
  for (size_t j = 0; j < cfg_.node_count; ++j) reset_views(NodeId(j), true);
  if (arm_.sends_extra())
    for (size_t i = 0; i < cfg_.node_count; ++i) arm_extra_broadcast(NodeId(i));
  if (arm_.sends_periodic())
    for (size_t i = 0; i < cfg_.node_count; ++i) arm_periodic_broadcast(NodeId(i));
  if (arm_.sends_on_silence())
    for (size_t i = 0; i < cfg_.node_count; ++i) arm_silence_broadcast(NodeId(i));
  for (size_t i = 0; i < cfg_.node_count; ++i)
    if (auto t = source_.first_arrival(NodeId(i))) schedule_arrival(NodeId(i), *t);
  if (arm_.diagnosis == DiagnosisKind::geode_ring && graph_.buddy_count() > 0)
    sim_.schedule_after(cfg_.geode_poll, kind_poll_, kNoNode, [this] { poll_membership(); });
}

void LoadSharingModel::on_crash(NodeId n) {
  const SimTime now = sim_.now();
  recorder_.node_crashed(now, n);
  NodeRuntime& node = nodes_[n];
  const size_t lost_here = node.queue.length() + node.inbox.size();
  for (const Task& t : node.queue.drain()) {
    ledger_.lost_in_crash(t);
    if (t.joined >= world_.warmup_end) {
      ++node.left;
      node.sojourn_sum_s += (now - t.joined).seconds();
    }
  }
  for (auto& [id, t] : node.inbox) ledger_.lost_in_crash(t);
  node.inbox.clear();
  note_queue_length(n);
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.dst == n) {
      ledger_.lost_in_transfer(it->second.task, true);
      sim_.cancel(it->second.guard);
      it = in_flight_.erase(it);
    } else {
      ++it;
    }
  }
  if (!silence_.empty())
    for (size_t k = 0; k < graph_.buddy_count(); ++k) silence_[pair(n, k)]->disarm();
  node.extra_timer = {};  // node-bound: dropped with the incarnation
  ++node.extra_generation;
  node.promises.clear();
  ++node.periodic_generation;
  if (arm_.is_oracle()) {
    const std::vector<NodeId>& obs = graph_.observers(n);
    for (size_t k = 0; k < obs.size(); ++k)
      if (world_.hosts.is_up(obs[k])) recorder_.set(now, obs[k], k, true);
  }
  if (tracing()) trace(n, "tasks_lost_in_crash", {{"count", lost_here}});
}

void LoadSharingModel::on_recover(NodeId n, uint32_t) {
  const SimTime now = sim_.now();
  recorder_.node_recovered(now, n);
  NodeRuntime& node = nodes_[n];
  node.est.emplace(cfg_.estimation, now, Region::U);
  node.region = Region::U;
  node.ql_last = 0;
  node.ql_since = now;
  reset_views(n, false);
  if (arm_.is_oracle()) {
    const std::vector<NodeId>& obs = graph_.observers(n);
    for (size_t k = 0; k < obs.size(); ++k)
      if (world_.hosts.is_up(obs[k])) recorder_.set(now, obs[k], k, false);
  }
  broadcast(n, BroadcastKind::recovery);
  if (arm_.sends_periodic()) arm_periodic_broadcast(n);
}

void LoadSharingModel::finish() {
  if (finished_) return;
  finished_ = true;
  const SimTime now = sim_.now();
  for (size_t i = 0; i < cfg_.node_count; ++i) note_queue_length(NodeId(i));
  recorder_.finish(now);

  // Tasks still held: those past their deadline are missed; the others are still queued.
  std::vector<uint64_t> present_all(cfg_.node_count, 0), present_counted(cfg_.node_count, 0);
  auto hold = [&](const Task& t) {
    if (t.deadline < now) {
      ledger_.late_unfinished(t);
      return;
    }
    ++present_all[t.origin];
    if (t.counted) ++present_counted[t.origin];
  };
  for (const NodeRuntime& node : nodes_) {
    if (node.queue.busy()) hold(node.queue.in_service());
    for (const Task& t : node.queue.waiting_tasks()) hold(t);
    for (const auto& [id, t] : node.inbox) hold(t);
  }
  for (const auto& [id, f] : in_flight_) hold(f.task);
  ledger_.check_conservation(now, present_all, present_counted);
}

bool LoadSharingModel::suspects(NodeId observer, NodeId target) const {
  const std::vector<NodeId>& pref = graph_.preferred(observer);
  for (size_t k = 0; k < pref.size(); ++k)
    if (pref[k] == target) return recorder_.suspected(observer, k);
  return false;
}

void LoadSharingModel::trace(NodeId n, std::string_view kind, nlohmann::json fields) const {
  if (TraceSink* sink = sim_.trace()) sink->record(sim_.now(), n, kind, fields);
}

}  // namespace fdsim::loadsharing
