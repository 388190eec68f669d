#include "models/geode/cost_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "models/geode/config.h"
#include "sim/net/delay_trace.h"

namespace fdsim::geode {

namespace {

// A count with mean `mean` (a Poisson or renewal count): exceeded with negligible probability.
double count_cap(double mean) {
  if (!(mean > 0)) return 0;
  return mean + 4.0 * std::sqrt(mean) + 4.0;
}

// Renewals of `law` over `span_s` on one node (Lorden's bound E[N] <= t / mu + var / mu^2 + 1;
// the variance term is capped at 100 per node so that a heavy-tailed law with a huge variance
// does not make a short run unaffordable: its draws are mostly long).
double renewals(const std::shared_ptr<const faults::Lifetime>& law, double span_s) {
  if (!law || !(span_s > 0)) return 0;
  const double mu = law->mean_s();
  if (!(mu > 0)) return span_s * 1e3;
  const double cv2 = std::min(100.0, law->variance_s2() / (mu * mu));
  return span_s / mu + (std::isfinite(cv2) ? cv2 : 100.0) + 1.0;
}

double seconds_since(SimTime t) { return (t - SimTime::zero()).seconds(); }

// Seconds of [start, stop) inside the horizon.
double span_s(SimTime start, const std::optional<SimTime>& stop, double horizon_s) {
  const double a = seconds_since(start);
  const double b = stop ? std::min(horizon_s, seconds_since(*stop)) : horizon_s;
  return std::max(0.0, b - a);
}

double largest_loss(const net::NetworkConfig& n) {
  const auto ge = [](const net::GilbertElliott& g) { return std::max(g.loss_good, g.loss_bad); };
  double l = n.loss_model ? ge(*n.loss_model) : n.loss;
  for (const net::LinkOverride& o : n.overrides) {
    if (o.loss) l = std::max(l, *o.loss);
    if (o.loss_model) l = std::max(l, ge(*o.loss_model));
  }
  return std::clamp(l, 0.0, 1.0);
}

// A trace replays delays in time order (and loses packets by its rows): no independence.
bool any_trace_latency(const net::NetworkConfig& n) {
  const auto is_trace = [](const std::shared_ptr<const net::LatencyModel>& l) {
    return l && dynamic_cast<const net::TraceLatency*>(l.get()) != nullptr;
  };
  if (is_trace(n.latency)) return true;
  for (const net::LinkOverride& o : n.overrides)
    if (is_trace(o.latency)) return true;
  return false;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

GeodeCost geode_cost_bound(const GeodeConfig& c, const faults::FaultsConfig& f,
                           const net::NetworkConfig& network, size_t node_count,
                           double horizon_s, double largest_mean_delay_s) {
  GeodeCost out;
  const double n = double(node_count);
  const double h = std::max(0.0, horizon_s);
  if (!(h > 0) || n == 0) return out;
  const double wait_s = std::max(c.heartbeat_request_wait.seconds(), 1e-9);
  const double thr_s = c.check_threshold.seconds();
  const double monitor_s = std::max(c.monitor_period.seconds(), 1e-9);

  // --- Random failed checks (loss and delay). ---
  const double loss = largest_loss(network);
  const double d = std::isfinite(largest_mean_delay_s) ? largest_mean_delay_s : 1e300;
  const bool trace = any_trace_latency(network);
  bool detector_arm = false;
  for (const NeighbourCheckArm& a : c.arms) detector_arm = detector_arm || a.detector.has_value();
  const double gap_s = c.heartbeat_period.seconds() + c.send_jitter_max.seconds();
  // P(no heartbeat of the neighbour arrives in a window of window_s): k heartbeats are sent in
  // its first window_s - slack (slack = window_s - k x gap), each lost or later than its slack.
  const auto p_silent = [&](double window_s) {
    double best = 1.0;
    if (trace || !(gap_s > 0)) return best;
    for (double k = 1; k * gap_s < window_s && k <= 64; ++k)
      best = std::min(best, std::pow(std::min(1.0, loss + d / (window_s - k * gap_s)), k));
    return best;
  };
  // A check starts when the neighbour was silent for check_threshold (any time with a
  // detector arm), and fails when the request or the reply is lost or late and the
  // neighbour's heartbeats during the wait are too.
  const double p_start = detector_arm ? 1.0 : p_silent(thr_s);
  const double p_fail =
      trace ? 1.0
            : std::min(1.0, 1.0 - (1.0 - loss) * (1.0 - loss) + 2.0 * d / wait_s) *
                  p_silent(wait_s);
  // A final check on a live member fails only when every TCP probe (no loss) took longer than
  // final_check_timeout: P <= 2 D / final_check_timeout (there and back).
  const double p_removed =
      trace ? 1.0 : std::min(1.0, 2.0 * d / std::max(c.final_check_timeout.seconds(), 1e-9));
  const double checks = n * h / monitor_s;
  const double s_random = checks * p_start * p_fail;

  // --- Stressors. ---
  double down = 0;      // members that go down (or are cut by a partition that heals) once
  double cut_down = 0;  // members cut by a partition that lasts to the horizon
  double partition_views = 0;  // view changes the partitions cause (time-bounded)
  double partition_joins = 0;  // re-joins after a partition (their views: partition_views)
  double crashes = 0;   // the metrics' crash records
  double cycles = 0;    // member-cycles of windows
  double joins = 0;
  // Crashes whose connection holders' checks may be in progress at once: every scheduled
  // crash, and the random ones within a window of holders_window_s (mean + tail margin).
  double crashes_at_once = 0;
  const double d_window = std::isfinite(largest_mean_delay_s) ? largest_mean_delay_s : h;
  const double holders_window_s =
      2.0 * (c.final_check_timeout.seconds() + c.heartbeat_request_wait.seconds()) +
      4.0 * d_window;
  const auto mean_s_of = [](const std::shared_ptr<const faults::Lifetime>& law) {
    const double mu = law ? law->mean_s() : 0.0;
    return mu > 0 ? mu : 1e-9;
  };
  double prepare_rounds = 0;
  double held_cycles = 0;  // member-cycles of windows that hold reliable messages back
  const auto window = [&](double members, double d_s) {
    cycles += members * (1.0 + std::max(0.0, d_s) / wait_s);
  };
  const auto end_of = [&](const faults::ScheduledFault& s) {
    return s.end ? std::min(h, seconds_since(*s.end)) : h;
  };
  for (const faults::ScheduledFault& s : f.scheduled) {
    const double at = seconds_since(s.at);
    if (at >= h) continue;
    const double dur = std::max(0.0, end_of(s) - at);
    switch (s.kind) {
      case faults::FaultKind::crash:
        down += double(s.nodes.size());
        crashes += double(s.nodes.size());
        crashes_at_once += double(s.nodes.size());
        break;
      case faults::FaultKind::recover: joins += double(s.nodes.size()); break;
      case faults::FaultKind::sick: window(double(s.nodes.size()), dur); break;
      case faults::FaultKind::pause:
      case faults::FaultKind::play_dead:
        // Messages to a paused or play-dead member wait (or are resent) until it is back.
        held_cycles += double(s.nodes.size()) * (1.0 + dur / wait_s);
        window(double(s.nodes.size()), dur);
        break;
      case faults::FaultKind::partition: {
        const double a = double(s.a.size());
        const double b = s.b.empty() ? n - a : double(s.b.size());
        const bool heals = s.end && seconds_since(*s.end) < h;
        // The side that loses its quorum (or is removed) is disconnected and re-joins after
        // the reconnect wait, with auto_reconnect, if that comes before the horizon.
        const double rejoin_at =
            at + c.partition_shutdown.seconds() + c.reconnect_wait().seconds();
        const double part_joins = (c.auto_reconnect && rejoin_at < h) ? a + b : 0.0;
        if (heals) {
          // Each side suspects the other's members once; after the heal a check may pass
          // and a member may be suspected again: counted as members that go down.
          down += a + b;
          joins += part_joins;
        } else {
          // Until the horizon a cut member's final check fails (no FinalCheckPassed to every
          // member). Each side suspects the other's members once (a watcher whose neighbour
          // is across the cut suspects it, then the next one: the watch moves past each).
          cut_down += a + b;
          partition_joins += part_joins;
          // View changes: the removals and re-joins are batched by the coordinator of each
          // side, which makes a view at most once per request_collection (view_creator.h:
          // the next view is made request_collection after the first request queued since
          // the requests were last taken), and never more than one per suspicion and join.
          const double collection_s = std::max(c.request_collection.seconds(), 1e-9);
          const double per_side = 1.0 + std::max(0.0, h - at) / collection_s;
          const double sides = (!s.b.empty() && a + b < n) ? 3.0 : 2.0;
          partition_views += std::min(2.0 * (a + b) + 2.0 * part_joins, sides * per_side);
        }
        prepare_rounds += 1.0 + dur / std::max(c.view_ack_timeout.seconds(), 1e-9);
        break;
      }
      case faults::FaultKind::loss_burst:
      case faults::FaultKind::delay_spike: {
        const double members = (s.a.empty() || s.b.empty()) ? n : double(s.a.size() + s.b.size());
        window(std::min(n, members), dur);
        if (s.kind == faults::FaultKind::delay_spike && dur > 0) {
          // Everything sent during the spike is in flight `extra` longer: of the window's
          // events, a share extra / dur at once.
          held_cycles += std::min(n, members) * (1.0 + dur / wait_s) *
                         std::min(1.0, s.extra.seconds() / dur);
        }
        if (s.kind == faults::FaultKind::loss_burst && dur > 0) {
          // Reliable messages sent into the burst are resent every `retransmit` until one gets
          // through: held about loss / (1 - loss) retransmissions, the whole burst at loss 1.
          const double q = std::clamp(s.loss + loss, 0.0, 1.0);
          const double retransmit_s = std::max(c.reliable_retransmit.seconds(),
                                               network.retransmit_interval.seconds());
          const double held = q >= 1.0 ? 1.0 : std::min(1.0, q / (1.0 - q) * retransmit_s / dur);
          held_cycles += std::min(n, members) * (1.0 + dur / wait_s) * held;
        }
        break;
      }
    }
  }
  for (const faults::CrashProcess& p : f.crash_processes) {
    const double k = count_cap(double(p.nodes.size()) * renewals(p.up, span_s(p.start, p.stop, h)));
    down += k;
    crashes += k;
    crashes_at_once += count_cap(double(p.nodes.size()) * holders_window_s / mean_s_of(p.up));
    if (p.down) joins += k;
  }
  for (const faults::CrashProcess& p : f.group_crash_processes) {
    const double k =
        double(p.nodes.size()) * count_cap(renewals(p.up, span_s(p.start, p.stop, h)));
    down += k;
    crashes += k;
    crashes_at_once += double(p.nodes.size()) * count_cap(holders_window_s / mean_s_of(p.up));
    if (p.down) joins += k;
  }
  for (const faults::CrashStorm& st : f.crash_storms) {
    const double span = span_s(st.start, st.stop, h);
    const double k = double(st.size) * count_cap(span / std::max(st.mean_interval_s, 1e-9) + 1.0);
    down += k;
    crashes += k;
    crashes_at_once += double(st.size) *
                       count_cap(holders_window_s / std::max(st.mean_interval_s, 1e-9) + 1.0);
    if (st.down) joins += k;
  }
  for (const faults::PauseProcess& p : f.pause_processes) {
    const double span = span_s(p.start, p.stop, h);
    const double k =
        count_cap(double(p.nodes.size()) * (span / std::max(p.mean_interval_s, 1e-9) + 1.0));
    double mean_s = p.duration ? p.duration->mean_ms() / 1e3 : 0.0;
    if (!std::isfinite(mean_s)) mean_s = h;
    // Each pause is one window; their lengths add up to about k x the mean (at most h each).
    cycles += k + k * std::min(mean_s, h) / wait_s;
    // Held at once: the pauses in progress, with the suspicions and view changes that follow
    // each (Little's law: nodes x (mean + check_threshold + 2 waits) / mean interval).
    const double d_s = std::min(mean_s, h);
    const double at_once = std::min(
        double(p.nodes.size()),
        count_cap(double(p.nodes.size()) * (d_s + thr_s + 2.0 * wait_s) /
                  std::max(p.mean_interval_s, 1e-9)));
    held_cycles += at_once * (1.0 + d_s / wait_s);
  }
  if (f.churn) {
    const faults::ChurnProcess& ch = *f.churn;
    const double span = span_s(ch.start, ch.stop, h);
    const double slots = double(ch.nodes.size() + ch.spare.size());
    const double leaves = ch.session ? count_cap(slots * renewals(ch.session, span)) : 0.0;
    down += leaves;
    if (!ch.graceful) {
      crashes += leaves;
      if (ch.session)
        crashes_at_once += count_cap(slots * holders_window_s / mean_s_of(ch.session));
    }
    if (ch.join) joins += count_cap(renewals(ch.join, span));
  }
  for (const net::StarvedEntry& st : network.starved) {
    const double span =
        st.mean_normal_s ? span_s(st.start, st.stop, h)
                         : std::max(0.0, (st.end ? std::min(h, seconds_since(*st.end)) : h) -
                                             seconds_since(st.at));
    window(double(st.nodes.size()), span);
  }

  const double stressed = 2.0 * (down + cycles) + joins;
  // Suspicions whose final checks cannot pass (no FinalCheckPassed to every member):
  // - the members of a partition that lasts to the horizon (2 x: the watcher and the member
  //   itself, which suspects its own neighbour across the cut) and their re-joins;
  // - a crashed process's connection holders (source rules, peer_connections, crash_kind
  //   "process"): every member that joined after it holds a connection from it (the
  //   start-up connections) and so may every member that sent it an application request:
  //   at most every other member of the view (n + joins - 1: a re-joined member's old
  //   identity stays until it is removed). Each gets EOF and runs an availability check of
  //   its own (a heartbeat request and one TCP attempt), which fails, so it raises a
  //   suspicion (R messages, each receipt walking the view) and the recipients in line
  //   final-check (TCP retries every final_check_retry until M). With crash_kind "host" and
  //   unreachable_send_errors, every member that sends the host a membership message
  //   final-checks it instead (at most once each: a failed check requests the removal).
  // The view's size at most: a recovered or joining member's old identity may stay until
  // it is removed (a partition's re-joiners were removed first).
  const double view_members = n + joins;
  const bool eof_holders =
      c.source_rules() && ((c.peer_connections && !c.crash_is_host) ||
                           (c.unreachable_send_errors && c.crash_is_host));
  const double holders = eof_holders ? crashes * std::max(0.0, view_members - 1.0) : 0.0;
  const double s_fail = 2.0 * cut_down + partition_joins + holders;
  // Memory: each holder's check (its state, its suspicion's R messages in flight), for the
  // crashes whose checks may run at once.
  const double holders_at_once =
      eof_holders ? std::min(crashes, crashes_at_once) * std::max(0.0, view_members - 1.0) : 0.0;
  const double s = s_random + stressed + s_fail;
  const double v = s_random * p_removed + stressed + joins + prepare_rounds + partition_views + 1.0;
  // --- Per suspicion and per view change. ---
  const double fanout = [&] {
    if (double(c.small_view_size) >= n) return n;
    return std::min(n, std::max(double(c.max_suspect_recipients),
                                double(c.preferred_in_fanout) + 1.0));
  }();
  const double probes =
      1.0 + c.final_check_timeout.seconds() / std::max(c.final_check_retry.seconds(), 1e-9);
  const double per_failing_check = 2.0 + kEventsPerProbe * probes;
  const double per_final_check = per_failing_check + n;
  const double per_fail_raise = fanout + 2.0 + kFinalChecksPerSuspicion * per_failing_check;
  const double events = (s_random + stressed) *
                            (fanout + 2.0 + kFinalChecksPerSuspicion * per_final_check) +
                        s_fail * per_fail_raise + holders * kEventsPerHolderCheck +
                        v * (kEventsPerViewMember * view_members + 16.0);
  const double work =
      s * (fanout * 2.0 * view_members / 64.0 +
           (fanout >= 64.0 ? view_members * fanout / 64.0 : 0.0) + crashes / 64.0) +
      (v * view_members + s + 2.0 * (down + cut_down + joins + partition_joins)) * crashes / 64.0 +
      crashes * 2.0 * view_members / 64.0;
  // Messages held back by windows (pauses, play-dead members, loss bursts): every event the
  // suspicions of those windows and their view changes cause may be pending at once.
  const double per_raise_events = fanout + 2.0 + kFinalChecksPerSuspicion * per_final_check;
  const double per_view_events = kEventsPerViewMember * n + 16.0;
  out.held_bytes = 2.0 * held_cycles * (per_raise_events + per_view_events) * kBytesPerHeldMessage +
                   holders_at_once * (fanout + 1.0) * kBytesPerHeldMessage;
  out.held_formula = "Geode messages held by pauses, play-dead members and loss bursts: 2 x " +
                     num(held_cycles) + " member-cycles x (" + num(per_raise_events) +
                     " events per suspicion + " + num(per_view_events) +
                     " per view change) x " + num(kBytesPerHeldMessage) + " B + " +
                     num(holders_at_once) + " connection holders' checks at once x (R " +
                     num(fanout) + " + 1) x " + num(kBytesPerHeldMessage) + " B";
  out.suspicions = s;
  out.view_changes = v;
  out.events_per_s = events / h;
  out.work_per_s = work / h;
  out.formula = "Geode suspicions: " + num(s_random) + " from loss and delay (" + num(checks) +
                " checks x P_start " + num(p_start) + " x P_fail " + num(p_fail) + ") + 2 x (" +
                num(down) + " members down + " + num(cycles) + " member-cycles of windows) + " +
                num(joins) + " joins + " + num(s_fail) + " that fail (" + num(holders) +
                " connection holders' checks of crashed processes, 2 x " + num(cut_down) +
                " members cut until the horizon + " + num(partition_joins) +
                " re-joins); " + num(v) + " view changes of " + num(view_members) + " members";
  return out;
}

}  // namespace fdsim::geode
