// LoadSharingModel: state broadcasts, observers' views, and the diagnosis arms.
#include <algorithm>

#include "models/loadsharing/hou_shin_timeout.h"
#include "models/loadsharing/loadsharing_model.h"
#include "sim/engine/internal_error.h"

namespace fdsim::loadsharing {

namespace {
// A silence limit beyond this is "never" (keeps deadline arithmetic far from overflow).
const Duration kNever = Duration::s(1'000'000'000);

// 64 doublings of a need from 1 ns pass every run span: a bound that stays at or below the
// wait after them is a broken contract (timeout_table.h, quantile_needed_s).
[[noreturn]] void did_not_converge(SimTime now, NodeId node, const char* what) {
  fdsim::internal_error("fdsim: internal error at t = %s, node %u: load sharing: the %s's lower "
                        "bound did not pass the wait\n",
                        to_string(now).c_str(), unsigned(node), what);
}
}  // namespace

Broadcast LoadSharingModel::initial_broadcast(NodeId sender, SimTime at) const {
  Broadcast b;
  b.sender = sender;
  b.incarnation = world_.hosts.incarnation(sender);
  b.send_time = at;
  b.region = Region::U;
  b.queue_length = 0;
  b.load = 0;
  b.estimates = NodeEstimators(cfg_.estimation, at, Region::U).snapshot(at);
  b.kind = BroadcastKind::recovery;
  return b;
}

void LoadSharingModel::reset_views(NodeId observer, bool initial) {
  // Initial: the known configuration (every buddy empty, region U, prior estimates), as if
  // broadcast at t = 0 and received after the link's minimum delay; its send_time is 0 so that
  // any real broadcast supersedes it. After a recovery: nothing is known.
  const SimTime now = sim_.now();
  const std::vector<NodeId>& pref = graph_.preferred(observer);
  for (size_t k = 0; k < pref.size(); ++k) {
    const size_t p = pair(observer, k);
    View& v = views_[p];
    v.last = initial_broadcast(pref[k], SimTime::zero());
    v.received = now + pair_min_delay_[p];
    v.known = initial;
    if (initial)
      arm_silence_timer(observer, k);
    else if (!silence_.empty())
      silence_[p]->disarm();
    if (arm_.is_oracle() && world_.hosts.is_crashed(pref[k]))
      recorder_.set(now, observer, k, true);
  }
}

Duration LoadSharingModel::extra_interval(NodeId n, const Broadcast& b, Duration need,
                                          bool* exact) {
  const Duration t_out =
      hou_shin_timeout_needed(timeouts_, b, cfg_.thresholds, cfg_.load_index, arm_.alpha,
                              sender_allowance_[n], 0.0, need, exact);
  if (t_out >= kNever) {
    *exact = true;  // a bound beyond kNever: so is the value
    return Duration::max();
  }
  const Duration margin = cfg_.send_margin.value_or(sender_allowance_[n]);
  return std::max(t_out - margin, Duration::ms(1));
}

Duration LoadSharingModel::extra_interval_after(NodeId n, const Broadcast& b, Duration elapsed,
                                                bool* exact) {
  // The interval is T_out - margin: a sender that has waited `elapsed` needs T_out up to
  // elapsed + margin.
  Duration need = elapsed + cfg_.send_margin.value_or(sender_allowance_[n]);
  Duration interval = extra_interval(n, b, need, exact);
  // A bound that is not beyond the wait (the margin exceeds the allowance, or an evicted memo
  // forgot the last cap) asks again with a doubled need: the caps double, up to the run span,
  // where the value is exact.
  for (int i = 0; !*exact && interval <= elapsed; ++i) {
    if (i == 64) did_not_converge(sim_.now(), n, "extra-broadcast interval");
    need = need * 2 + Duration::ns(1);
    interval = extra_interval(n, b, need, exact);
  }
  return interval;
}

namespace {
// The fields hou_shin_timeout reads.
bool same_timeout_input(const Broadcast& a, const Broadcast& b) {
  return a.region == b.region && a.queue_length == b.queue_length && a.load == b.load &&
         a.estimates.mu_per_s == b.estimates.mu_per_s &&
         a.estimates.region_input_per_s == b.estimates.region_input_per_s;
}
}  // namespace

Duration LoadSharingModel::t_out_bound(const Broadcast& b, double loss, bool* exact) {
  if (bound_memo_.empty()) bound_memo_.resize(cfg_.node_count);
  BoundMemo& m = bound_memo_[b.sender];
  if (!(m.valid && m.loss == loss && same_timeout_input(m.b, b))) {
    m.valid = true;
    m.b = b;
    m.loss = loss;
    m.bound = hou_shin_timeout_lower_bound(timeouts_, b, cfg_.thresholds, cfg_.load_index,
                                           arm_.alpha, Duration::zero(), loss, &m.exact);
  }
  *exact = m.exact;
  return m.bound;
}

Duration LoadSharingModel::extra_interval_bound(NodeId n, const Broadcast& b, bool* exact) {
  const Duration q = t_out_bound(b, 0.0, exact);
  if (q >= kNever) return Duration::max();
  const Duration t_out = q + sender_allowance_[n];
  if (t_out >= kNever) return Duration::max();
  const Duration margin = cfg_.send_margin.value_or(sender_allowance_[n]);
  return std::max(t_out - margin, Duration::ms(1));
}

Duration LoadSharingModel::silence_limit_bound(size_t p, const Broadcast& b, bool* exact) {
  *exact = true;
  Duration limit;
  if (arm_.diagnosis == DiagnosisKind::hou_shin) {
    const Duration q = t_out_bound(b, pair_loss_[p], exact);
    limit = q >= kNever ? Duration::max() : q + pair_allowance_[p];
  } else if (arm_.diagnosis == DiagnosisKind::hou_shin_extra) {
    const Duration q = t_out_bound(b, 0.0, exact);
    limit = q >= kNever ? Duration::max() : q + pair_allowance_[p];
    const uint32_t k = sender_k_[b.sender];
    if (k > 1 && limit < kNever) {
      bool interval_exact = true;
      const Duration interval = extra_interval_bound(b.sender, b, &interval_exact);
      *exact = *exact && interval_exact;
      if (interval >= kNever || double(interval.count_ns()) * (k - 1) >= double(kNever.count_ns()))
        limit = Duration::max();
      else
        limit = limit + interval * int64_t(k - 1);
    }
  } else {
    return silence_limit(p, b, Duration::zero(), exact);
  }
  return limit >= kNever ? Duration::max() : limit;
}

Duration LoadSharingModel::silence_limit(size_t p, const Broadcast& b, Duration need,
                                         bool* exact) {
  *exact = true;
  Duration limit = Duration::max();
  if (arm_.fixed_silence()) {
    limit = arm_.timeout;
  } else if (arm_.diagnosis == DiagnosisKind::hou_shin) {
    // No extra broadcasts: the loss of the link enters the silence law (hou_shin_timeout.h).
    limit = hou_shin_timeout_needed(timeouts_, b, cfg_.thresholds, cfg_.load_index, arm_.alpha,
                                    pair_allowance_[p], pair_loss_[p], need, exact);
  } else if (arm_.diagnosis == DiagnosisKind::hou_shin_extra) {
    // Extra broadcasts: wait for k of them (loss_tolerance.h).
    limit = hou_shin_timeout_needed(timeouts_, b, cfg_.thresholds, cfg_.load_index, arm_.alpha,
                                    pair_allowance_[p], 0.0, need, exact);
    const uint32_t k = sender_k_[b.sender];
    if (k > 1 && limit < kNever) {
      bool interval_exact = true;
      const Duration interval = extra_interval(b.sender, b, need, &interval_exact);
      *exact = *exact && interval_exact;
      if (interval >= kNever || double(interval.count_ns()) * (k - 1) >= double(kNever.count_ns()))
        limit = Duration::max();
      else
        limit = limit + interval * int64_t(k - 1);
    }
  }
  if (limit >= kNever) {
    *exact = true;  // a lower bound beyond kNever: so is the value
    return Duration::max();
  }
  return limit;
}

void LoadSharingModel::arm_silence_timer(NodeId observer, size_t k) {
  if (silence_.empty()) return;
  const size_t p = pair(observer, k);
  // Armed at a lower bound of the limit when computing the limit is costly (the Hou-Shin arms);
  // on_silence computes the exact limit if the silence gets that long (rarely).
  bool exact = true;
  const Duration limit = silence_limit_bound(p, views_[p].last, &exact);
  pair_limit_[p] = limit;
  pair_exact_[p] = exact;
  // Suspect when the silence strictly exceeds the limit: the first instant after it. A bound
  // that is "never" means the limit is never too.
  if (limit == Duration::max())
    silence_[p]->disarm();
  else
    silence_[p]->arm(views_[p].received + limit + (exact ? Duration::ns(1) : Duration::zero()));
}

void LoadSharingModel::on_silence(NodeId observer, size_t k) {
  // A broadcast handled after the timer fired (both replayed after a pause) re-armed it.
  const size_t p = pair(observer, k);
  if (silence_[p]->armed()) return;
  if (!pair_exact_[p]) {
    // The timer stood at a lower bound: the exact limit decides now, or, where the run span's
    // fallback has not reached the quantile yet (timeout_table.h, quantile_needed_s), a later
    // bound, at which the timer is armed again (without the strict ns: still a bound).
    const SimTime received = views_[p].received;
    Duration need = sim_.now() - received;
    bool exact = true;
    Duration limit = silence_limit(p, views_[p].last, need, &exact);
    // A bound not beyond now asks again with a doubled need (the caps double up to the span,
    // where the value is exact).
    for (int i = 0; !exact && received + limit <= sim_.now(); ++i) {
      if (i == 64) did_not_converge(sim_.now(), observer, "silence limit");
      need = need * 2 + Duration::ns(1);
      limit = silence_limit(p, views_[p].last, need, &exact);
    }
    pair_limit_[p] = limit;
    pair_exact_[p] = exact;
    if (limit == Duration::max()) return;
    const SimTime due = received + limit + (exact ? Duration::ns(1) : Duration::zero());
    if (due > sim_.now()) {
      silence_[p]->arm(due);
      return;
    }
  }
  if (recorder_.suspected(observer, k)) return;
  recorder_.set(sim_.now(), observer, k, true);
  if (tracing()) {
    trace(observer, "suspect",
          {{"target", graph_.preferred(observer)[k]},
           {"limit_s", pair_limit_[p].seconds()},
           {"silence_s", (sim_.now() - views_[p].received).seconds()}});
  }
}

bool LoadSharingModel::suspected_now(NodeId observer, size_t k) {
  if (arm_.diagnosis == DiagnosisKind::geode_ring) {
    const bool s = membership_failed_(observer, graph_.preferred(observer)[k]);
    recorder_.set(sim_.now(), observer, k, s);
    return s;
  }
  return recorder_.suspected(observer, k);
}

void LoadSharingModel::poll_membership() {
  for (size_t j = 0; j < cfg_.node_count; ++j) {
    if (!world_.hosts.is_up(NodeId(j))) continue;
    for (size_t k = 0; k < graph_.buddy_count(); ++k) suspected_now(NodeId(j), k);
  }
  sim_.schedule_after(cfg_.geode_poll, kind_poll_, kNoNode, [this] { poll_membership(); });
}

void LoadSharingModel::broadcast(NodeId n, BroadcastKind kind) {
  NodeRuntime& node = nodes_[n];
  const SimTime now = sim_.now();
  Broadcast b;
  b.sender = n;
  b.incarnation = world_.hosts.incarnation(n);
  b.send_time = now;
  b.region = node.region;
  b.queue_length = int64_t(node.queue.length());
  b.load = cfg_.load_index == LoadIndex::ql ? double(node.queue.length())
                                            : node.queue.remaining_work_s(now, mean_exec(n));
  b.estimates = node.est->snapshot(now);
  b.kind = kind;
  node.last_sent = b;

  const std::vector<NodeId>& obs = graph_.observers(n);
  if (measuring()) {
    ++counters_.broadcasts[size_t(kind)];
    counters_.broadcast_messages += obs.size();
    counters_.broadcast_bytes += uint64_t(obs.size()) * cfg_.broadcast_bytes;
  }
  if (tracing()) {
    nlohmann::json f = {{"broadcast_kind", broadcast_kind_name(kind)},
                        {"region", region_name(b.region)},
                        {"queue_length", b.queue_length},
                        {"load", b.load},
                        {"lambda_per_s", b.estimates.lambda_per_s},
                        {"mu_per_s", b.estimates.mu_per_s},
                        {"region_input_per_s",
                         {b.estimates.region_input_per_s[0], b.estimates.region_input_per_s[1],
                          b.estimates.region_input_per_s[2]}}};
    // The T_out this broadcast implies, as the sender computes it (its largest allowance), in
    // a table of its own: the model's table answers the fallback's chains with bounds that
    // depend on the waits asked about (timeout_table.h), and a traced run must ask what an
    // untraced one asks. Asked as by a sender that has not waited yet, so that a record costs
    // no more than one of the model's computations (the cost estimate counts both): where the
    // run span's fallback does not reach the quantile at its first cap, the record carries that
    // lower bound instead (t_out_at_least_s).
    if (arm_.needs_t_out()) {
      if (!trace_timeouts_) {
        trace_timeouts_ = std::make_unique<timeout::TimeoutTable>();
        trace_timeouts_->set_run_span_s(timeouts_.run_span_s());
      }
      bool exact = true;
      const Duration t_out =
          hou_shin_timeout_needed(*trace_timeouts_, b, cfg_.thresholds, cfg_.load_index,
                                  arm_.alpha, sender_allowance_[n], 0.0, Duration::zero(), &exact);
      f["t_out_s"] = !exact || t_out >= kNever ? nlohmann::json() : nlohmann::json(t_out.seconds());
      if (!exact) f["t_out_at_least_s"] = t_out.seconds();
    }
    trace(n, "broadcast", f);
  }
  for (size_t k = 0; k < obs.size(); ++k) {
    const NodeId to = obs[k];
    world_.net.send_unreliable(n, to, msg_broadcast_[size_t(kind)], cfg_.broadcast_bytes,
                               [this, to, k, b] { on_broadcast(to, k, b); });
  }
  if (arm_.sends_extra()) arm_extra_broadcast(n);
  if (arm_.sends_on_silence()) arm_silence_broadcast(n);
}

void LoadSharingModel::schedule_extra(NodeId n, SimTime at, uint64_t generation) {
  nodes_[n].extra_timer = world_.hosts.schedule_at(n, at, kind_extra_, [this, n, generation] {
    if (nodes_[n].extra_generation != generation) return;
    nodes_[n].extra_timer = {};
    broadcast(n, BroadcastKind::extra);
  });
}

void LoadSharingModel::arm_extra_broadcast(NodeId n) {
  NodeRuntime& node = nodes_[n];
  if (node.extra_timer.valid()) sim_.cancel(node.extra_timer);
  node.extra_timer = {};
  const uint64_t generation = ++node.extra_generation;
  if (sender_k_[n] > 1) {
    // The next broadcast is due within the smallest interval promised by the last k
    // broadcasts (loss_tolerance.h).
    bool exact = true;
    const Duration interval = extra_interval(n, node.last_sent, Duration::zero(), &exact);
    node.promises.push_back(Promise{interval, exact, node.last_sent});
    while (node.promises.size() > sender_k_[n]) node.promises.erase(node.promises.begin());
    schedule_promised_extra(n, generation);
    return;
  }
  // k = 1 (lossless extra broadcasts): the next broadcast is due T_out - margin after the last one. A check at
  // a lower bound of that interval computes the exact deadline only if no other broadcast went
  // out first (the usual case is a region change before it).
  bool exact = true;
  const Duration bound = extra_interval_bound(n, node.last_sent, &exact);
  if (bound >= kNever) return;
  const SimTime at = std::max(node.last_sent.send_time + bound, sim_.now());
  if (exact) {
    schedule_extra(n, at, generation);
    return;
  }
  schedule_extra_check(n, at, generation);
}

void LoadSharingModel::schedule_extra_check(NodeId n, SimTime at, uint64_t generation) {
  nodes_[n].extra_timer = world_.hosts.schedule_at(n, at, kind_extra_check_, [this, n, generation] {
    if (nodes_[n].extra_generation != generation) return;
    nodes_[n].extra_timer = {};
    NodeRuntime& node = nodes_[n];
    if (sender_k_[n] > 1) {
      // The smallest promise was a lower bound (the run span's fallback): refine every bound
      // the wait has reached, then schedule by the promises again.
      const Duration elapsed = sim_.now() - node.last_sent.send_time;
      for (Promise& promise : node.promises)
        if (!promise.exact && promise.interval <= elapsed)
          promise.interval = extra_interval_after(n, promise.b, elapsed, &promise.exact);
      schedule_promised_extra(n, generation);
      return;
    }
    bool exact = true;
    const Duration wait =
        extra_interval_after(n, node.last_sent, sim_.now() - node.last_sent.send_time, &exact);
    if (wait >= kNever) return;
    const SimTime due = std::max(node.last_sent.send_time + wait, sim_.now());
    // A bound (the run span's fallback has not reached the quantile yet): check again there.
    if (exact)
      schedule_extra(n, due, generation);
    else
      schedule_extra_check(n, due, generation);
  });
}

void LoadSharingModel::schedule_promised_extra(NodeId n, uint64_t generation) {
  NodeRuntime& node = nodes_[n];
  // The first smallest promise (min_element: its value is the minimum of the intervals, as
  // before promises could be bounds). An exact minimum is the due instant, since every bound
  // is below its value; a bound is checked (and refined) when its instant comes.
  const auto first = std::min_element(
      node.promises.begin(), node.promises.end(),
      [](const Promise& a, const Promise& b) { return a.interval < b.interval; });
  const Duration wait = first->interval;
  if (wait >= kNever) return;
  const SimTime at = std::max(node.last_sent.send_time + wait, sim_.now());
  if (first->exact)
    schedule_extra(n, at, generation);
  else
    schedule_extra_check(n, at, generation);
}

void LoadSharingModel::arm_silence_broadcast(NodeId n) {
  // fixed_on_silence: the next broadcast (kind extra) is due `period` after this node's last
  // broadcast of any kind (broadcast() re-arms at every send, so a node whose state changes
  // often sends none). Shares the extra-broadcast timer and generation: node-bound, dropped at
  // a crash, and a replayed (post-pause) timer of an older arming is void.
  NodeRuntime& node = nodes_[n];
  if (node.extra_timer.valid()) sim_.cancel(node.extra_timer);
  node.extra_timer = {};
  const uint64_t generation = ++node.extra_generation;
  schedule_extra(n, std::max(node.last_sent.send_time + arm_.period, sim_.now()), generation);
}

void LoadSharingModel::arm_periodic_broadcast(NodeId n) {
  // The heartbeat of the periodic arms: every period from the start (or the recovery), whatever
  // else the node broadcasts. Node-bound: dropped with the incarnation at a crash.
  const uint64_t generation = nodes_[n].periodic_generation;
  world_.hosts.schedule_after(n, arm_.period, kind_periodic_, [this, n, generation] {
    if (nodes_[n].periodic_generation != generation) return;
    if (arm_.sends_heartbeat())
      send_heartbeat(n);
    else
      broadcast(n, BroadcastKind::periodic);
    arm_periodic_broadcast(n);
  });
}

void LoadSharingModel::on_broadcast(NodeId observer, size_t k, const Broadcast& b) {
  const size_t p = pair(observer, k);
  View& v = views_[p];
  if (v.known && b.send_time < v.last.send_time) return;  // reordered: an older state
  v.last = b;
  v.received = sim_.now();
  v.known = true;
  switch (arm_.diagnosis) {
    case DiagnosisKind::fixed:
    case DiagnosisKind::fixed_periodic:
    case DiagnosisKind::fixed_on_silence:
    case DiagnosisKind::fixed_heartbeat:
    case DiagnosisKind::hou_shin:
    case DiagnosisKind::hou_shin_extra:
      if (recorder_.suspected(observer, k)) {
        recorder_.set(sim_.now(), observer, k, false);
        if (tracing()) trace(observer, "trust", {{"target", b.sender}});
      }
      arm_silence_timer(observer, k);
      break;
    case DiagnosisKind::none:
    case DiagnosisKind::oracle:
    case DiagnosisKind::oracle_extra:
    case DiagnosisKind::oracle_periodic:
    case DiagnosisKind::periodic_no_diagnosis:
    case DiagnosisKind::geode_ring:
      break;
  }
}

void LoadSharingModel::send_heartbeat(NodeId n) {
  const std::vector<NodeId>& obs = graph_.observers(n);
  if (tracing()) trace(n, "heartbeat", {{"observers", obs.size()}});
  for (size_t k = 0; k < obs.size(); ++k) {
    const NodeId to = obs[k];
    world_.net.send_unreliable(n, to, msg_heartbeat_, cfg_.heartbeat_bytes,
                               [this, to, k, n] { on_heartbeat(to, k, n); });
  }
}

void LoadSharingModel::on_heartbeat(NodeId observer, size_t k, NodeId sender) {
  // Liveness only: the silence restarts now, the suspicion (if any) is withdrawn, and the state
  // the observer holds for the sender (views_[p].last, .known) stays what the last broadcast
  // said. A heartbeat overtaken by a later broadcast still restarts the silence: the sender was
  // alive when it sent it, and receipt time is what the fixed timeout counts from.
  views_[pair(observer, k)].received = sim_.now();
  if (recorder_.suspected(observer, k)) {
    recorder_.set(sim_.now(), observer, k, false);
    if (tracing()) trace(observer, "trust", {{"target", sender}});
  }
  arm_silence_timer(observer, k);
}

}  // namespace fdsim::loadsharing
