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

// A partition that lasts to the horizon (two sides: `a` and the rest, or `a` and `b` when
// they cover every node; a third group falls back to 2 x (a + b)). Its suspicions, from the
// initial view (c.members in view order, every member watching the next, the coordinator the
// first preferred member: view.h):
// - neighbour checks across the cut: a watcher whose neighbour is on the other side suspects
//   it, then the next one (the watch moves past each suspect), at most one per monitor tick:
//   crossing edges of the ring x (1 + the time left / monitor_period); a join appends a
//   member to the ring (2 more crossing edges at most; a removal merges two edges into one);
// - availability checks of the members that do not ack a prepare: a side's coordinator
//   checks each member of the other side once (then it is removed), each check failing into
//   a suspicion. The side holding the initial coordinator does; the other side only after one
//   of its members took over, which needs every member that would coordinate before it
//   dropped (all preferred members of the other side ahead of its first preferred one; with
//   no preferred member, every preferred member and every member ahead of its first one),
//   each drop a failed final check, i.e. a suspicion: possible only if its neighbour-check
//   suspicions plus every other suspicion of the run reach that count. A side's coordinator
//   may change once per member that goes down (or is removed by mistake): each change may
//   check the other side again.
// The views: each side's coordinator makes at most one per request_collection from the
// partition on (view_creator.h: the next view is made request_collection after the first
// request queued since the requests were last taken), and at most one per suspicion and join.
struct LastingPartition {
  double suspicions = 0;
  double views = 0;
  std::string formula;
};

// `joins`: every join of the run (re-joins after partitions included); `other_suspicions`:
// every other suspicion of the run (each may drop a member); `went_down`: members that go
// down or may be removed by mistake (each may change a side's coordinator).
LastingPartition lasting_partition(const GeodeConfig& c, const faults::ScheduledFault& f,
                                   double n, double h, double joins, double other_suspicions,
                                   double went_down) {
  LastingPartition out;
  const double at = seconds_since(f.at);
  const double a = double(f.a.size());
  const double b = f.b.empty() ? n - a : double(f.b.size());
  const double collection_s = std::max(c.request_collection.seconds(), 1e-9);
  const double per_side = 1.0 + std::max(0.0, h - at) / collection_s;
  if (!f.b.empty() && a + b < n) {
    out.suspicions = 2.0 * (a + b);
    out.views = std::min(out.suspicions, 3.0 * per_side);
    out.formula = "three groups: 2 x " + num(a + b) + " members";
    return out;
  }
  // side[node]: 0 = a, 1 = the other side.
  std::vector<uint8_t> side(c.node_count, 1);
  for (NodeId x : f.a)
    if (x < side.size()) side[x] = 0;
  const std::vector<NodeId>& m = c.members;
  double crossing = 0;
  for (size_t i = 0; i < m.size(); ++i)
    if (side[m[i]] != side[m[(i + 1) % m.size()]]) crossing += 1;
  // Its own re-joiners (after partition_shutdown + the reconnect wait) join a view of their
  // own side only (the other side is out of reach): no crossing edge.
  const double rejoin_at = at + c.partition_shutdown.seconds() + c.reconnect_wait().seconds();
  const double own_joins = (c.auto_reconnect && rejoin_at < h) ? a + b : 0.0;
  crossing += 2.0 * std::max(0.0, joins - own_joins);
  const double ticks = 1.0 + std::max(0.0, h - at) / std::max(c.monitor_period.seconds(), 1e-9);
  const double neighbour_checks = crossing * ticks;
  // Who may coordinate (view.h, Roles::preferred: the locators when partition detection is on
  // and there are any, else every member).
  std::vector<bool> locator(c.node_count, false);
  for (NodeId l : c.locators)
    if (l < locator.size()) locator[l] = true;
  bool any_locator = false;
  for (NodeId x : m) any_locator = any_locator || locator[x];
  const auto preferred = [&](NodeId x) {
    return !c.partition_detection || !any_locator || locator[x];
  };
  int coordinator_side = -1;
  for (NodeId x : m)
    if (preferred(x)) {
      coordinator_side = side[x];
      break;
    }
  const double sizes[2] = {a, b};
  double checks = 0;
  std::string how;
  for (int x = 0; x < 2; ++x) {
    // Drops a member of side x needs before it coordinates.
    // With a preferred member: the other side's preferred members ahead of the first one.
    // Without: every preferred member (all on the other side) and every member ahead of its
    // first member (view.h, coordinator_without).
    double members_ahead = 0, preferred_other = 0;
    bool has_preferred = false, seen_x = false;
    for (NodeId y : m) {
      if (side[y] == x) {
        if (preferred(y)) {
          has_preferred = true;
          break;
        }
        seen_x = true;
      } else if (preferred(y)) {
        preferred_other += 1;
      } else if (!seen_x) {
        members_ahead += 1;
      }
    }
    const double needed = has_preferred ? preferred_other : preferred_other + members_ahead;
    const bool coordinates =
        x == coordinator_side || neighbour_checks + other_suspicions >= needed;
    if (coordinates) checks += sizes[1 - x];
    how += std::string(x == 0 ? "side a " : ", other side ") + num(sizes[x]) +
           (coordinates ? " checks the other" : " cannot take over (needs " + num(needed) +
                                                    " drops)");
  }
  out.suspicions = std::min(2.0 * (a + b), neighbour_checks + checks * (1.0 + went_down));
  out.views = std::min(out.suspicions + 2.0 * joins, 2.0 * per_side);
  out.formula = num(crossing) + " crossing edges x " + num(ticks) + " ticks + " + how;
  return out;
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
  double partition_suspicions = 0;
  std::string cut_formula;  // suspicions the lasting partitions cause (after the loop)
  std::vector<const faults::ScheduledFault*> lasting;  // partitions lasting to the horizon
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
  double resent_cycles = 0;  // member-cycles of loss bursts x the attempts of each message
  const auto window = [&](double members, double d_s) {
    cycles += members * (1.0 + std::max(0.0, d_s) / wait_s);
  };
  // The shorter retransmission interval of a reliable message (the network's and UNICAST3's:
  // either channel may carry it).
  const double fastest_retransmit_s = std::max(
      1e-9, c.reliable_retransmit > Duration::zero()
                ? std::min(c.reliable_retransmit.seconds(), network.retransmit_interval.seconds())
                : network.retransmit_interval.seconds());
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
        if (s.kind == faults::FaultKind::play_dead && dur > 0) {
          // The network drops every attempt of a reliable message to or from a play-dead host
          // and resends it every retransmission interval (sim/net/network.cpp, attempt and
          // arrive), as a loss burst at loss 1 on its links: min(window, reliable_give_up) /
          // interval + 1 attempts each (a paused host's messages wait instead). Property-test
          // seeds 4, 6, 7 and 8 (19 of 25 to 57 of 75 members playing dead): up to 5.8e6
          // network retransmissions, and the work 1.2-2.2 x the estimate without this term.
          const double most =
              std::min(dur, network.reliable_give_up.seconds()) / fastest_retransmit_s + 1.0;
          resent_cycles += double(s.nodes.size()) * (1.0 + dur / wait_s) * most;
        }
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
          // Counted after the loop (lasting_partition), once every other stressor is known.
          cut_down += a + b;
          partition_joins += part_joins;
          lasting.push_back(&s);
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
          // Events: each of those messages is sent again every retransmission interval (the
          // shorter of the network's and UNICAST3's: either channel may carry it) until an
          // attempt gets through, the burst ends or the network gives up: at loss 1,
          // min(burst, reliable_give_up) / interval attempts; below, the attempts' geometric
          // mean q / (1 - q) with a tail margin (x 3 + 1), at most that.
          const double most =
              std::min(dur, network.reliable_give_up.seconds()) / fastest_retransmit_s + 1.0;
          const double resends = q >= 1.0 ? most : std::min(most, 3.0 * q / (1.0 - q) + 1.0);
          resent_cycles += std::min(n, members) * (1.0 + dur / wait_s) * resends;
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
  // - those of a partition that lasts to the horizon (lasting_partition) and its re-joins;
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
  for (const faults::ScheduledFault* part : lasting) {
    const LastingPartition lp =
        lasting_partition(c, *part, n, h, joins + partition_joins,
                          s_random + stressed + holders,
                          down + crashes + s_random * p_removed);
    partition_suspicions += lp.suspicions;
    partition_views += lp.views;
    cut_formula += (cut_formula.empty() ? "" : "; ") + lp.formula;
  }
  const double s_fail = partition_suspicions + partition_joins + holders;
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
  // Retransmissions of the messages loss bursts hold (as held_bytes below counts them, each
  // sent again per attempt).
  const double resent = 2.0 * resent_cycles *
                        (fanout + 2.0 + kFinalChecksPerSuspicion * per_final_check +
                         kEventsPerViewMember * n + 16.0);
  const double events = (s_random + stressed) *
                            (fanout + 2.0 + kFinalChecksPerSuspicion * per_final_check) +
                        s_fail * per_fail_raise + holders * kEventsPerHolderCheck +
                        v * (kEventsPerViewMember * view_members + 16.0) + resent;
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
                " connection holders' checks of crashed processes, " +
                num(partition_suspicions) + " of partitions lasting to the horizon [" +
                cut_formula + "] + " + num(partition_joins) +
                " re-joins); " + num(v) + " view changes of " + num(view_members) + " members; " +
                num(resent) + " retransmissions of messages loss bursts hold";
  return out;
}

}  // namespace fdsim::geode
