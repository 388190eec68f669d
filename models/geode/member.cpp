// Member: lifecycle, messaging helpers, heartbeats, the monitor tick and neighbour checks
// (docs/models/geode-membership.md, "State" to "Neighbour check"). Suspicion handling is in member_suspicion.cpp, views in member_views.cpp.
#include "models/geode/member.h"
#include "sim/engine/random_duration.h"

#include <algorithm>

#include "models/geode/ring.h"
#include "models/geode/view_creator.h"

namespace fdsim::geode {

using nlohmann::json;

Member::Member(Shared& shared, NodeId node)
    : shared_(shared),
      node_(node),
      me_{node, 0, -1} {}

ViewCreator& Member::creator() {
  if (!creator_) creator_ = std::make_unique<ViewCreator>(*this);
  return *creator_;
}

Rng& Member::stream(std::unique_ptr<Rng>& slot, const char* purpose) {
  if (!slot) slot = std::make_unique<Rng>(shared_.world.rng.stream(node_, purpose));
  return *slot;
}

Member::~Member() = default;

json nodes_of(const std::vector<MemberId>& members) {
  json a = json::array();
  for (const MemberId& m : members) a.push_back(m.node);
  return a;
}

void Member::trace(std::string_view kind, json fields) const {
  if (shared_.world.sim.trace() != nullptr) shared_.trace(node_, kind, fields);
}

EventId Member::after(Duration d, EventKind kind, std::function<void()> fn) {
  return at(now() + d, kind, std::move(fn));
}

EventId Member::at(SimTime t, EventKind kind, std::function<void()> fn) {
  return shared_.world.hosts.schedule_at(node_, t, kind,
                                         [this, e = epoch_, fn = std::move(fn)] {
                                           if (e == epoch_) fn();
                                         });
}

void Member::send(Msg m, const MemberId& to, size_t ids,
                  std::function<void(Member&)> on_arrival, bool reliable_reply) {
  const uint32_t bytes = msg_bytes(m, ids);
  shared_.signals.message_sent(now(), node_, m, bytes);
  if (to.node == node_) {
    // Only an earlier identity of this host can be addressed here (it stays in the view
    // until it is removed, source rules): no process answers for it.
    if (to == me_) shared_.fail(node_, "a member sends a message to itself");
    if (tracing()) trace("send_to_old_identity", {{"msg", msg_name(m)}, {"incarnation", to.incarnation}});
    return;
  }
  auto deliver = [&sh = shared_, to, fn = std::move(on_arrival)] {
    Member& dst = sh.at(to.node);
    if (!dst.accepts(to)) return;
    fn(dst);
  };
  net::Network& net = shared_.world.net;
  if (send_fails(to)) {
    // The datagram cannot leave: the transport's IOException reaches
    // JGroupsMessenger.handleJGroupsIOException on the sending thread (Transport.java:54-75,
    // 82-100; every membership message is DONT_BUNDLE, JGroupsMessenger.java:1014, so the
    // caller's thread sends it). The Heart thread's heartbeats block on the final check
    // (heart_round); any other sender's check runs as its own event at this instant, not
    // inside the caller's loop over recipients (the model does not block those threads).
    if (heart_sending_)
      heart_send_failed_ = true;
    else
      after(Duration::zero(), shared_.kinds.send_error, [this, to] { on_send_error(to); });
  }
  const bool reliable = msg_reliable(m) || (reliable_reply && source_rules());
  if (!reliable) {
    net.send_unreliable(node_, to.node, shared_.types[m], bytes, std::move(deliver));
  } else if (shared_.config.reliable_retransmit <= Duration::zero()) {
    net.send_reliable(node_, to.node, shared_.types[m], bytes, std::move(deliver));
  } else {
    send_unicast3(to, shared_.types[m], bytes, std::move(deliver));
  }
}

bool Member::sick() const { return shared_.world.hosts.is_sick(node_); }

bool Member::send_fails(const MemberId& to) const {
  // unreachable_send_errors: a datagram to an unreachable host fails at the sender: the host
  // is down (crash_kind "host"; a dead process on a live host gives no error, an unconnected
  // UDP socket ignores ICMP port-unreachable) or cut off by a partition (EHOSTUNREACH after
  // a failed ARP resolution, EPERM from a local firewall rule).
  if (!source_rules() || !shared_.config.unreachable_send_errors) return false;
  return (shared_.config.crash_is_host && shared_.world.hosts.is_crashed(to.node)) ||
         shared_.world.net.cut(node_, to.node);
}

// --- Lifecycle. ---

void Member::reset_state() {
  ++epoch_;
  if (creator_) creator_->deactivate();
  view_.reset();
  neighbour_.reset();
  contact_.clear();
  suspected_.clear();
  walk_ = {};
  recorded_.clear();
  removal_requested_.clear();
  left_.clear();
  for (auto& [rid, c] : neighbour_checks_) shared_.world.sim.cancel(c.timer);
  neighbour_checks_.clear();
  availability_.clear();
  final_checks_of_.clear();
  detectors_.clear();
  peers_out_.clear();
  reconnect_pending_ = false;
  unicast3_reset();
}

void Member::start(const std::shared_ptr<const View>& initial_view, Duration start_offset) {
  ever_member_ = true;
  me_ = *initial_view->find(me_);
  last_tick_ = now();
  xmit_anchor_ = now() + start_offset;  // UNICAST3.start(): the xmit task's first run
  install_view(initial_view, {}, false);
  start_loops(start_offset);
}

void Member::on_crash() {
  if (source_rules() && shared_.config.peer_connections && !shared_.config.crash_is_host)
    close_connections_on_crash();
  reset_state();
  joining_ = false;
  leaving_ = false;
}

void Member::close_connections_on_crash() {
  // The holders of this process's shared unordered connections (the only connections whose
  // loss starts suspicion: Connection.initiateSuspicionIfSharedUnordered, Connection.java:
  // 1846-1855; they have no idle timeout, ~675-684):
  // - every member after me in my view, i.e. admitted after me: when it joined it sent me a
  //   StartupMessage and I replied from a waiting-pool thread (StartupMessage.java:316-317,
  //   StartupResponseMessage.java:126-127), which shares sockets (ClusterOperationExecutors
  //   .java:393-440: threadWantsSharedResources) and sends unordered (DistributionMessage
  //   .java:197-212), so over my shared unordered connection to it (ConnectionTable.java:
  //   547-552). (Its StartupMessage to me came from its own thread, which owns its sockets
  //   by default, conserve-sockets false (DistributionConfig.java:1925; InternalDistributed
  //   System.java:1705-1712): a thread-owned ordered connection, no suspicion on EOF.)
  // - every member that sent me an application request: I replied from a pool thread over
  //   my shared unordered connection (peers_out_, recorded when a request arrives here).
  // Each that is up and not cut off gets EOF one latency later.
  net::Network& net = shared_.world.net;
  net::Hosts& hosts = shared_.world.hosts;
  // A graceful leave (churn) sent ShutdownMessage to every view member over these same
  // connections before closing them (ClusterDistributionManager.sendShutdownMessage,
  // ClusterDistributionManager.java:1949-1986), so each holder recorded me as shutting down
  // before its reader saw the EOF, and GMSMembership.suspectMember skips me
  // (GMSMembership.java:1137-1147 shutdownMessageReceived, 1243-1246 isMemberShuttingDown).
  if (leaving_) return;
  auto eof = [&](const MemberId& peer) {
    if (peer.node == node_ || hosts.is_crashed(peer.node) || net.cut(node_, peer.node)) return;
    const Duration d = net.draw_latency(node_, peer.node);
    hosts.schedule_after(peer.node, d, shared_.kinds.connection_eof,
                         [&sh = shared_, peer, gone = me_] {
                           Member& k = sh.at(peer.node);
                           if (k.accepts(peer)) k.on_peer_connection_lost(gone);
                         });
  };
  std::optional<size_t> mine = view_ ? view_->index_of(me_) : std::nullopt;
  if (mine)
    for (size_t i = *mine + 1; i < view_->members.size(); ++i) eof(view_->members[i]);
  for (const MemberId& peer : peers_out_) {
    const auto at = mine ? view_->index_of(peer) : std::nullopt;
    if (at && *at > *mine) continue;  // already told: a later joiner
    eof(peer);
  }
}

void Member::on_peer_connection_lost(const MemberId& peer) {
  if (!participating() || !source_rules()) return;
  if (tracing()) trace("connection_lost", {{"peer", peer.node}, {"incarnation", peer.incarnation}});
  if (!in_view(peer)) return;  // memberExists
  check_if_available(peer, [](bool) {}, /*assume_final_checking_available=*/true);
}

void Member::on_send_error(const MemberId& to) {
  if (!participating() || !source_rules() || !in_view(to)) return;
  if (final_checking(to)) return;  // checkIfAvailable(.., true): someone is checking
  if (tracing()) trace("send_error", {{"to", to.node}});
  start_final_check(to, me_);
}

void Member::on_recover(uint32_t incarnation) {
  reset_state();
  reconnects_ = 0;
  me_ = MemberId{node_, incarnation, -1};
  disconnected_ = false;
  if (!ever_member_ && !churn_joiner_) return;  // never a member: stays idle
  joining_ = true;
  reset_join_search();
  last_tick_ = now();
  xmit_anchor_ = now();  // a new process: a new channel and xmit task
  if (tracing()) trace("join_start", {{"incarnation", incarnation}});
  start_loops(Duration::zero());
  send_join();
}

void Member::leave() {
  // GMSJoinLeave.leave (GMSJoinLeave.java:1774-1790): isStopping, stopCoordinatorServices,
  // then, if view.size() > 1, a LeaveRequestMessage to getPreferredCoordinators(emptySet,
  // localAddress, 5) (recipients.h: the preferred coordinators other than me, in view order).
  if (!participating()) return;
  leaving_ = true;  // until the host goes down, right after (on_crash)
  if (tracing()) trace("leave", {{"view_id", view_->id}});
  if (view_->members.size() <= 1) return;
  const std::vector<MemberId> coords =
      preferred_coordinators(*view_, {}, me_, 5, shared_.roles);
  for (const MemberId& c : coords) {
    if (c == me_) continue;  // the list names me after the preferred ones; no self-send
    send(Msg::leave_request, c, 1, [me = me_](Member& d) { d.on_leave_request(me, me); });
  }
}

bool Member::is_coordinator() const { return participating() && creator_ && creator_->active(); }

bool Member::final_checking(const MemberId& m) const { return final_checks_of_.count(m) > 0; }

bool Member::prepare_waiting() const { return creator_ && creator_->prepare_waiting(); }

bool Member::neighbour_checking(const MemberId& m) const {
  for (const auto& [rid, c] : neighbour_checks_)
    if (c.target == m) return true;
  return false;
}

std::optional<SimTime> Member::last_contact(const MemberId& m) const {
  auto it = contact_.find(m);
  if (it == contact_.end()) return std::nullopt;
  return it->second;
}

// --- Heartbeats (docs/models/geode-membership.md, "Heartbeats and watching"). ---

void Member::start_loops(Duration offset) {
  const GeodeConfig& c = shared_.config;
  after(offset + c.heartbeat_period, shared_.kinds.heartbeat, [this] { heartbeat_loop(); });
  next_tick_ = now() + offset + c.monitor_period;
  at(next_tick_, shared_.kinds.monitor, [this] { monitor_tick(); });
  if (c.app_messages_per_s > 0.0) app_loop();
}

// --- Application traffic (GMSMembership.processMessage -> contactedBy). ---

void Member::app_loop() {
  Rng& r = stream(app_rng_, "geode.app");
  // Clamped (sim/engine/random_duration.h): a tiny rate must not overflow the conversion.
  const Duration gap = random_duration_ms(1000.0 * r.exponential(shared_.config.app_messages_per_s));
  after(gap, shared_.kinds.app_message, [this] {
    send_app_message();
    app_loop();
  });
}

void Member::send_app_message() {
  if (!participating()) return;
  std::vector<MemberId> others;
  for (const MemberId& m : view_->members)
    if (m.node != node_) others.push_back(m);
  if (others.empty()) return;
  Rng& r = stream(app_rng_, "geode.app");
  const MemberId to = others[size_t(r.uniform_int(0, int64_t(others.size()) - 1))];
  // The direct channel is TCP: the network's reliable channel (not membership overhead, so
  // not reported through Signals). An application message is a request: the receiver
  // replies (ReplyMessage, a high-priority pool thread: a shared unordered connection), so
  // the receiver holds the connection whose EOF the sender sees if the receiver dies.
  shared_.world.net.send_reliable(node_, to.node, shared_.app_type, kHeaderBytes + 200,
                                  [&sh = shared_, to, from = me_] {
                                    Member& d = sh.at(to.node);
                                    if (!d.accepts(to)) return;
                                    // The reply connection to -> from (kept).
                                    if (sh.config.peer_connections && sh.config.source_rules())
                                      d.peers_out_.insert(from);
                                    d.on_app_message(from);
                                  });
}

void Member::on_app_message(const MemberId& from) {
  if (!participating() || !source_rules()) return;
  contacted_by(from, last_tick_);
}

void Member::heartbeat_loop() {
  // GMSHealthMonitor.Heart.sendPeriodicHeartbeats (GMSHealthMonitor.java:1508-1539): sleep,
  // then one round of heartbeats (sendHeartbeats, ~1541-1588: the coordinator, then the
  // predecessors). Here the round comes first and the sleep follows it (the first round is
  // scheduled one period after the start).
  heart_round({}, 0, 0);
}

void Member::heart_round(std::vector<MemberId> targets, size_t next, uint64_t seq) {
  if (next == 0) {
    targets.clear();
    if (participating()) targets = heartbeat_targets(*view_, me_, shared_.config.heartbeat_predecessors);
    if (!targets.empty()) seq = heartbeat_seq_++;
  }
  for (size_t i = next; i < targets.size(); ++i) {
    const MemberId t = targets[i];
    if (!participating() || !in_view(t)) continue;
    heart_sending_ = true;
    heart_send_failed_ = false;
    send(Msg::heartbeat, t, 0, [from = me_, seq, sent = now()](Member& d) {
      d.on_heartbeat(from, kPeriodic, seq, sent);
    });
    heart_sending_ = false;
    if (heart_send_failed_ && !final_checking(t)) {
      // handleJGroupsIOException -> checkIfAvailable(t, reason, true) runs on the Heart
      // thread: the rest of the round, and the next sleep, wait for the final check.
      if (tracing()) trace("send_error", {{"to", t.node}, {"blocks", "heart"}});
      start_final_check(t, me_, [this, targets, i, seq] { heart_round(targets, i + 1, seq); });
      if (final_checking(t)) return;  // blocked until the check ends
    }
  }
  Duration sleep = shared_.config.heartbeat_period;
  if (shared_.config.send_jitter_max > Duration::zero())
    sleep += Duration::from_ms(stream(jitter_rng_, "geode.jitter")
                                   .uniform(0.0, shared_.config.send_jitter_max.millis()));
  after(sleep, shared_.kinds.heartbeat, [this] { heartbeat_loop(); });
}

void Member::on_heartbeat(const MemberId& from, int64_t request_id, uint64_t seq,
                          SimTime send_time) {
  if (!participating() || !in_view(from)) return;
  if (source_rules() && sick()) {  // GMSHealthMonitor.processMessage(HeartbeatMessage)
    if (tracing()) trace("ignored_sick", {{"msg", "heartbeat"}, {"from", from.node}});
    return;
  }
  contacted_by(from, now());
  if (request_id > 0) {
    if (neighbour_checks_.count(request_id)) finish_neighbour_check(request_id, true);
    return;
  }
  if (request_id == kPeriodic && shared_.arm.detector) {
    std::unique_ptr<detectors::Detector>& d = detectors_[from];
    if (!d) d = detectors::make_detector(*shared_.arm.detector, shared_.config.heartbeat_period);
    d->on_heartbeat(seq, send_time, now());
  }
}

void Member::on_heartbeat_request(const MemberId& from, int64_t request_id) {
  if (!participating()) return;
  if (shared_.world.hosts.is_sick(node_)) {
    if (tracing()) trace("ignored_sick", {{"msg", "heartbeat_request"}, {"from", from.node}});
    return;
  }
  send(
      Msg::heartbeat, from, 0,
      [me = me_, request_id](Member& d) { d.on_heartbeat(me, request_id, 0, SimTime::zero()); },
      /*reliable_reply=*/true);
}

// --- Contact (docs/models/geode-membership.md, "Heartbeats and watching"). ---

void Member::contacted_by(const MemberId& from, SimTime stamp) {
  if (!in_view(from) || from == me_) return;
  auto [it, fresh] = contact_.try_emplace(from, stamp);  // no node allocated when present
  if (!fresh && it->second < stamp) it->second = stamp;
  if (suspected_.count(from)) {
    unsuspect(from);
    recompute_neighbour();
  }
}

void Member::unsuspect(const MemberId& m) {
  const bool was = suspected_.erase(m) > 0;
  if (was) walk_ = {};
  recorded_.erase(m);
  if (was && tracing()) trace("unsuspect", {{"member", m.node}});
}

void Member::set_neighbour(std::optional<MemberId> n) {
  if (n == neighbour_) return;
  neighbour_ = n;
  if (tracing()) trace("watch", {{"neighbour", n ? json(n->node) : json(nullptr)}});
}

void Member::recompute_neighbour() {
  set_neighbour(view_ ? next_neighbour(*view_, me_, me_, suspected_, walk_) : std::nullopt);
}

// --- Monitor tick and neighbour checks (docs/models/geode-membership.md). ---

void Member::monitor_tick() {
  // Fixed rate: the next tick keeps the phase. Source rules (GMSHealthMonitor.start:
  // scheduleAtFixedRate): a tick missed during a pause runs as soon as possible, so all the
  // missed ticks run back to back at the resume. wiki: the deferred tick runs once.
  const SimTime due = next_tick_;
  next_tick_ += shared_.config.monitor_period;
  if (source_rules()) {
    if (due < now() && tracing()) trace("late_tick", {{"due_ms", (due - SimTime::zero()).millis()}});
    at(std::max(next_tick_, now()), shared_.kinds.monitor, [this] { monitor_tick(); });
  } else {
    while (next_tick_ <= now()) next_tick_ += shared_.config.monitor_period;
    at(next_tick_, shared_.kinds.monitor, [this] { monitor_tick(); });
  }

  last_tick_ = now();
  if (!participating() || !neighbour_) return;
  const MemberId n = *neighbour_;
  auto it = contact_.find(n);
  if (it == contact_.end()) {
    contact_.emplace(n, now());
    if (tracing()) trace("grace_stamp", {{"neighbour", n.node}});
    return;
  }
  if (neighbour_checking(n)) return;
  if (check_due(n, it->second)) start_neighbour_check(n);
}

bool Member::check_due(const MemberId& n, SimTime last) const {
  if (shared_.arm.detector) {
    auto it = detectors_.find(n);
    if (it != detectors_.end() && it->second->suspect_at() != SimTime::max())
      return it->second->suspects(now());
  }
  return now() - last >= shared_.config.check_threshold;
}

void Member::start_neighbour_check(const MemberId& target) {
  if (!participating() || !in_view(target) || target == me_) return;
  if (source_rules() && (sick() || shared_.world.hosts.is_play_dead(node_))) {
    // GMSHealthMonitor.doCheckMember returns true at once for a sick (or play-dead) member:
    // no request, no suspicion, the watch stays.
    if (tracing()) trace("check_skipped_sick", {{"target", target.node}});
    return;
  }
  const auto last = last_contact(target);
  if (tracing()) trace("check_start", {{"target", target.node},
                        {"silence_ms", last ? json((now() - *last).millis()) : json(nullptr)}});
  set_neighbour(next_neighbour(*view_, me_, target, suspected_, walk_));
  const int64_t rid = next_request_id_++;
  NeighbourCheck c{target, now(), {}};
  c.timer = after(shared_.config.heartbeat_request_wait, shared_.kinds.check_wait,
                  [this, rid] { finish_neighbour_check(rid, false); });
  neighbour_checks_.emplace(rid, c);
  send(Msg::heartbeat_request, target, 1,
       [from = me_, rid](Member& d) { d.on_heartbeat_request(from, rid); });
}

void Member::finish_neighbour_check(int64_t request_id, bool replied) {
  auto it = neighbour_checks_.find(request_id);
  if (it == neighbour_checks_.end()) return;
  const NeighbourCheck c = it->second;
  neighbour_checks_.erase(it);
  if (replied) shared_.world.sim.cancel(c.timer);
  if (!participating() || !in_view(c.target)) return;
  const auto last = last_contact(c.target);
  const bool passed = replied || (last && *last > c.start);
  if (passed) {
    if (tracing()) trace("check_passed", {{"target", c.target.node}, {"replied", replied}});
    unsuspect(c.target);
    recompute_neighbour();
    return;
  }
  if (tracing()) trace("check_failed", {{"target", c.target.node}});
  if (removal_requested_.count(c.target)) return;  // already being removed
  suspected_.insert(c.target);
  set_neighbour(next_neighbour(*view_, me_, c.target, suspected_, walk_));
  initiate_suspicion(c.target);
}

}  // namespace fdsim::geode
