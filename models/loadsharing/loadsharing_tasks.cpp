// LoadSharingModel: the task flow (arrival, guarantee test, transfer, service, completion).
#include <algorithm>

#include "models/loadsharing/loadsharing_model.h"

namespace fdsim::loadsharing {

void LoadSharingModel::schedule_arrival(NodeId n, SimTime at) {
  // Not node-bound: the arrival process runs on while the node is down (tasks arriving then
  // are counted as arrived-while-down), which keeps every node's stream aligned across arms.
  sim_.schedule_at(at, kind_arrival_, n, [this, n] { on_arrival_event(n); });
}

void LoadSharingModel::on_arrival_event(NodeId n) {
  const SimTime now = sim_.now();
  std::optional<SimTime> next;
  const DrawnArrival d = source_.draw_task(n, now, &next);
  if (next) schedule_arrival(n, *next);

  Task t;
  t.id = next_task_id_++;
  t.origin = n;
  t.arrival = now;
  t.exec = d.exec;
  t.deadline = now + d.relative_deadline;
  t.counted = now >= world_.warmup_end;
  t.feasible = d.exec <= d.relative_deadline;
  if (world_.hosts.is_crashed(n)) {
    ledger_.arrived_while_down(n, t.counted);
    return;
  }
  ledger_.arrived(t);
  if (world_.hosts.is_running(n)) {
    handle_arrival(n, t);
    return;
  }
  // Paused: the node takes the task when it resumes (or loses it if it crashes first).
  nodes_[n].inbox.emplace(t.id, t);
  const uint64_t id = t.id;
  world_.hosts.run_on(n, world_.hosts.incarnation(n), kind_deferred_arrival_, [this, n, id] {
    auto it = nodes_[n].inbox.find(id);
    if (it == nodes_[n].inbox.end()) return;
    const Task task = it->second;
    nodes_[n].inbox.erase(it);
    handle_arrival(n, task);
  });
}

void LoadSharingModel::handle_arrival(NodeId n, Task t) {
  nodes_[n].est->on_arrival(sim_.now());
  if (tracing())
    trace(n, "task_arrival",
          {{"task", t.id}, {"exec_s", t.exec.seconds()}, {"deadline_s", t.deadline.seconds()}});
  // Known to need more processor time than its relative deadline: it fails here, as
  // infeasible, and is neither queued nor transferred (only when execution times are known).
  if (cfg_.exec_knowledge == ExecKnowledge::exact && !t.feasible) {
    ledger_.infeasible(t);
    if (tracing()) trace(n, "task_infeasible", {{"task", t.id}});
    return;
  }
  place(n, t);
}

Duration LoadSharingModel::mean_exec(NodeId n) const {
  const double mu = nodes_[n].est->mu_mean_per_s();
  return Duration::from_seconds(std::min(1.0 / mu, kMaxDrawSeconds));
}

void LoadSharingModel::place(NodeId n, Task t) {
  NodeRuntime& node = nodes_[n];
  if (node.queue.guarantees(t, sim_.now(), mean_exec(n))) {
    enqueue(n, t, false);
    return;
  }
  if (measuring()) ++counters_.guarantee_failures;
  if (cfg_.transfers && t.hops < cfg_.max_hops) {
    bool too_late = false;
    if (std::optional<NodeId> to = choose_receiver(n, t, &too_late)) {
      transfer(n, *to, t);
      return;
    }
    if (measuring()) {
      ++counters_.unplaced_no_receiver;
      if (too_late) ++counters_.unplaced_too_late;
    }
  }
  if (cfg_.unplaced == UnplacedPolicy::drop) {
    ledger_.dropped(t);
    if (tracing()) trace(n, "task_dropped", {{"task", t.id}});
    return;
  }
  if (measuring()) ++counters_.unguaranteed_runs;
  enqueue(n, t, cfg_.unplaced == UnplacedPolicy::background);
}

void LoadSharingModel::enqueue(NodeId n, Task t, bool background) {
  NodeRuntime& node = nodes_[n];
  t.joined = sim_.now();
  node.queue.insert(t, background);
  node.est->on_join(sim_.now());
  if (measuring()) ++node.entered;
  if (!node.queue.busy()) start_service(n);
  load_changed(n);
}

bool LoadSharingModel::cannot_finish(const Task& t, SimTime now) const {
  // What the scheduler knows: the exact execution time, or only that the deadline has passed.
  if (cfg_.exec_knowledge == ExecKnowledge::exact) return now + t.exec > t.deadline;
  return now >= t.deadline;
}

void LoadSharingModel::start_service(NodeId n) {
  NodeRuntime& node = nodes_[n];
  const SimTime now = sim_.now();
  if (cfg_.late_tasks == LateTaskPolicy::abort) {
    // Tasks that can no longer meet their deadline are never started.
    while (node.queue.idle_with_work() && cannot_finish(node.queue.next(), now)) {
      const Task t = node.queue.discard_next();
      ledger_.expired(t);
      if (t.joined >= world_.warmup_end) {
        ++node.left;
        node.sojourn_sum_s += (now - t.joined).seconds();
      }
      if (tracing()) trace(n, "task_expired", {{"task", t.id}});
    }
    if (!node.queue.idle_with_work()) return;
  }
  const Task& t = node.queue.start_next(now);
  Duration run = t.exec;
  // Running at its deadline: the service stops there (on_completion books an abort).
  if (cfg_.late_tasks == LateTaskPolicy::abort && now + run > t.deadline) run = t.deadline - now;
  world_.hosts.schedule_after(n, run, kind_complete_, [this, n] { on_completion(n); });
}

void LoadSharingModel::on_completion(NodeId n) {
  NodeRuntime& node = nodes_[n];
  const SimTime now = sim_.now();
  const SimTime started = node.queue.service_start();
  const Task t = node.queue.finish_service();
  // Aborted: it could not end by its deadline, or a pause pushed its end past the deadline.
  const bool aborted = cfg_.late_tasks == LateTaskPolicy::abort &&
                       (started + t.exec > t.deadline || now > t.deadline);
  bool on_time = false;
  if (aborted) {
    ledger_.aborted(t);
    // Service time observed without a completion (a censored execution time).
    node.est->on_abort(std::min(now - started, t.exec));
  } else {
    on_time = ledger_.completed(t, now);
    node.est->on_completion(t.exec);
  }
  if (t.joined >= world_.warmup_end) {
    ++node.left;
    node.sojourn_sum_s += (now - t.joined).seconds();
  }
  if (tracing()) {
    if (aborted)
      trace(n, "task_aborted", {{"task", t.id}});
    else
      trace(n, "task_complete", {{"task", t.id}, {"on_time", on_time}});
  }
  if (node.queue.idle_with_work()) start_service(n);
  load_changed(n);
}

std::optional<NodeId> LoadSharingModel::choose_receiver(NodeId n, const Task& t,
                                                        bool* too_late) {
  const std::vector<NodeId>& pref = graph_.preferred(n);
  const SimTime now = sim_.now();
  const Duration planned = cfg_.exec_knowledge == ExecKnowledge::exact ? t.exec : mean_exec(n);
  for (size_t k = 0; k < pref.size(); ++k) {
    const NodeId to = pref[k];
    if (to == t.origin || to == t.prev) continue;
    const View& v = views_[pair(n, k)];
    if (!v.known || v.last.region != Region::U) continue;
    if (suspected_now(n, k)) continue;
    // Only if it could still meet its deadline there: the link's minimum delay, then its
    // (planned) execution on an idle receiver.
    if (now + transfer_min_delay_[pair(n, k)] + planned > t.deadline) {
      *too_late = true;
      continue;
    }
    return to;
  }
  return std::nullopt;
}

void LoadSharingModel::transfer(NodeId from, NodeId to, Task t) {
  t.prev = from;
  ++t.hops;
  const bool dead = world_.hosts.is_crashed(to);
  if (measuring()) {
    ++counters_.transfers_attempted;
    ++counters_.transfers_by_region[size_t(nodes_[from].region)];
    if (dead) {
      ++counters_.transfers_to_dead;
      ++counters_.transfers_to_dead_by_region[size_t(nodes_[from].region)];
    }
    counters_.transfer_bytes += cfg_.task_bytes;
  }
  if (tracing()) trace(from, "task_transfer", {{"task", t.id}, {"to", to}, {"dead", dead}});
  const uint64_t id = t.id;
  if (dead) {
    ledger_.lost_in_transfer(t, true);
  } else {
    const EventId guard = sim_.schedule_after(cfg_.transfer_give_up, kind_transfer_guard_, to,
                                              [this, id] { on_transfer_given_up(id); });
    in_flight_.emplace(id, InFlight{t, to, guard});
  }
  auto deliver = [this, to, id] { on_transfer_arrival(to, id); };
  if (cfg_.transport == TransferTransport::reliable)
    world_.net.send_reliable(from, to, msg_transfer_, cfg_.task_bytes, deliver);
  else
    world_.net.send_unreliable(from, to, msg_transfer_, cfg_.task_bytes, deliver);
}

void LoadSharingModel::on_transfer_arrival(NodeId dst, uint64_t task_id) {
  auto it = in_flight_.find(task_id);
  if (it == in_flight_.end()) return;  // already written off (given up, or dst crashed)
  const Task t = it->second.task;
  sim_.cancel(it->second.guard);
  in_flight_.erase(it);
  if (measuring()) ++counters_.transfers_delivered;
  if (tracing()) trace(dst, "task_received", {{"task", t.id}, {"from", t.prev}});
  place(dst, t);
}

void LoadSharingModel::on_transfer_given_up(uint64_t task_id) {
  auto it = in_flight_.find(task_id);
  if (it == in_flight_.end()) return;
  ledger_.lost_in_transfer(it->second.task, false);
  in_flight_.erase(it);
}

void LoadSharingModel::note_queue_length(NodeId n) {
  NodeRuntime& node = nodes_[n];
  const SimTime now = sim_.now();
  const SimTime from = std::max(node.ql_since, world_.warmup_end);
  if (now > from) node.ql_area += double(node.ql_last) * (now - from).seconds();
  node.ql_last = node.queue.length();
  node.ql_since = now;
}

void LoadSharingModel::load_changed(NodeId n) {
  note_queue_length(n);
  NodeRuntime& node = nodes_[n];
  const double load = cfg_.load_index == LoadIndex::ql
                          ? double(node.queue.length())
                          : node.queue.remaining_work_s(sim_.now(), mean_exec(n));
  const Region r = cfg_.thresholds.region_of(load);
  if (r == node.region) return;
  node.est->on_region_change(sim_.now(), r);
  node.region = r;
  if (tracing()) trace(n, "region_change", {{"region", region_name(r)}, {"load", load}});
  if (cfg_.broadcast_on == BroadcastPolicy::every_change || r != Region::M)
    broadcast(n, BroadcastKind::region_change);
}

}  // namespace fdsim::loadsharing
