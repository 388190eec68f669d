#pragma once
// One Geode member: the GMSHealthMonitor of docs/models/geode-membership.md (heartbeats, neighbour watch,
// monitor tick, neighbour checks, suspicion fan-out and receipt, final checks) plus the
// member side of "Removal and views" there (removal requests, view prepare/install, forced disconnect, the
// minimal re-join of a recovered host). The coordinator side lives in view_creator.h.
//
// Contract:
// - All of a member's activity runs "on its host": timers go through Hosts (dropped on crash,
//   deferred over a pause) and messages through the Network (delivered through Hosts::run_on).
//   Every timer and callback also carries the member's epoch, bumped on crash, recovery and
//   forced disconnect, so nothing of an old life ever runs in a new one.
// - A message is accepted only if it is addressed to this member's current identity (node
//   and incarnation) and the member is not disconnected; messages from members outside the
//   installed view are ignored, except the view messages a joining member waits for.
// - Sick (Hosts::is_sick): heartbeat requests and other members' suspicions are ignored;
//   heartbeats are still sent and the TCP check is still answered. With the source rules
//   (`current`, GMSHealthMonitor.beSick): received heartbeats are ignored too (no contact is
//   recorded), every suspicion (its own included) is ignored, and a due neighbour check
//   passes at once without a message (doCheckMember returns true): a sick member never
//   suspects anyone.
// - Source rules (`current`; GeodeConfig::source_rules, see README.md "Differences"):
//   heartbeat replies and refutations go over the reliable channel; the reliable channel
//   is JGroups UNICAST3 with its periodic xmit task (when reliable_retransmit > 0); contact is recorded
//   only from heartbeats, heartbeat replies, FinalCheckPassed (about the suspect) and
//   application messages; a TCP final check retries every answer other than OK; a check
//   marks its subject suspected and moves the watch past it while it runs; removal requests
//   go to the preferred coordinators; the quorum check runs when any member installs a
//   view; ticks missed during a pause run back to back at the resume.
// - Disconnected (told it is removed, or a declared partition): the member stops; its TCP
//   check answers "error". With auto_reconnect (default) it re-joins after
//   GeodeConfig::reconnect_wait() as a new identity (incarnation = host incarnation +
//   reconnects << kReconnectShift), through the re-join below.
// - Peer connections (source rules, peer_connections): a member records a connection to each
//   member its application messages reached; when its process crashes (crash_kind
//   "process") each of those gets an EOF one latency later (not across a partition) and
//   verifies it (on_peer_connection_lost). unreachable_send_errors: a membership message to
//   a crashed host fails at the sender, which final-checks the destination (on_send_error).
// - Re-join (a simplification of GMSJoinLeave): a recovered host is a new incarnation with
//   empty state. It sends a JoinRequest to the coordinator of the last view its host knew
//   (then round-robin over that view's nodes, every join_retry) until a view admits it; a
//   non-coordinator forwards the request to its coordinator, which admits the joiner at the
//   end of its next view (wiki: and removes the joiner's old identity in the same view;
//   source rules: the old identity stays until failure detection removes it, as in Geode,
//   whose GMSJoinLeave.createAndSendView never fills its `oldIDs`).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "models/detectors/detector.h"
#include "models/geode/context.h"
#include "models/geode/member_id.h"
#include "models/geode/ring.h"
#include "models/geode/view.h"
#include "sim/engine/rng.h"

namespace fdsim::geode {

class ViewCreator;

// TCP check answers.
inline constexpr int64_t kTcpOk = 1;
inline constexpr int64_t kTcpError = 2;

// The node numbers of `members`, in order: how trace records list members.
nlohmann::json nodes_of(const std::vector<MemberId>& members);

class Member {
 public:
  Member(Shared& shared, NodeId node);
  ~Member();
  Member(const Member&) = delete;
  Member& operator=(const Member&) = delete;

  // --- Lifecycle (driven by GeodeModel). ---
  // `initial_view` is shared by every member (one copy for the whole ring).
  void start(const std::shared_ptr<const View>& initial_view, Duration start_offset);
  void on_crash();
  void on_recover(uint32_t incarnation);
  // Churn (sim/faults/churn.h). leave(): GMSJoinLeave.leave (GMSJoinLeave.java:1774-1790):
  // a participating member of a view with more than one member sends a LeaveRequest to
  // view.getPreferredCoordinators(emptySet, me, 5); its host goes down right after.
  // mark_churn_joiner(): the next on_recover joins (JoinRequest to a locator, else to the
  // configured members, round-robin every join_retry) even if this slot was never a member:
  // a fresh identity (the new host incarnation), admitted by the coordinator's next view.
  void leave();
  void mark_churn_joiner() { churn_joiner_ = true; }

  // --- Queries (tests, metrics, load sharing). ---
  NodeId node() const { return node_; }
  const MemberId& id() const { return me_; }
  bool participating() const { return view_ != nullptr && !disconnected_; }
  bool disconnected() const { return disconnected_; }
  bool joining() const { return joining_; }
  const View* view() const { return view_.get(); }
  std::optional<MemberId> neighbour() const { return neighbour_; }
  const std::set<MemberId>& suspects() const { return suspected_; }
  bool suspects(const MemberId& m) const { return suspected_.count(m) > 0; }
  const std::set<MemberId>& recorded_suspects() const { return recorded_; }
  bool is_coordinator() const;
  // Geode's GMSJoinLeave.isMemberLeaving (GMSJoinLeave.java:554-571): m is not in the
  // installed view, or a removal request for it was seen (pending or in removedMembers), or
  // a leave request (leftMembers; on the coordinator the queued request).
  bool member_leaving(const MemberId& m) const {
    return !in_view(m) || removal_requested_.count(m) > 0 || left_.count(m) > 0;
  }
  // Geode's membersInFinalCheck: a final check of m runs here (source rules: or the
  // prepare's availability check of m).
  bool final_checking(const MemberId& m) const;
  // The coordinator is waiting for view-prepare acks (tests).
  bool prepare_waiting() const;
  bool neighbour_checking(const MemberId& m) const;
  std::optional<SimTime> last_contact(const MemberId& m) const;

  // --- Protocol steps (run by the protocol itself; public so tests can drive a step). ---
  void start_neighbour_check(const MemberId& target);
  // `then` (if set) runs when the check ends, whatever its result (a blocked thread resumes).
  void start_final_check(const MemberId& suspect, const MemberId& initiator,
                         std::function<void()> then = {});
  void initiate_suspicion(const MemberId& target);
  void request_removal(const MemberId& target);
  // The prepare's availability check of a member that did not ack (source rules: Geode's
  // checkIfAvailable(m, reason, false, false) -> inlineCheckIfAvailable, not final): one TCP
  // attempt plus a HeartbeatRequest; if it fails without contact since the start, a
  // self-check: if that passes, `target` stays suspected and a suspicion is initiated (the
  // final check follows), result false; if it fails, result true. A member being removed
  // (or not in the view) fails at once. `assume_final_checking_available` is Geode's
  // assumeMembersInFinalCheckAreAvailable (GMSHealthMonitor.java:676-683): when true, a
  // member already in a final or availability check here passes at once ("someone is
  // checking"). The prepare's check passes false (GMSJoinLeave.java:1826-1830),
  // GMSMembership.verifyMember true (GMSMembership.java:1263-1267, the 3-argument overload).
  void check_if_available(const MemberId& target, std::function<void(bool)> done,
                          bool assume_final_checking_available = false);

  // --- Message handlers (run on this member's host on arrival). ---
  void on_heartbeat(const MemberId& from, int64_t request_id, uint64_t seq, SimTime send_time);
  void on_heartbeat_request(const MemberId& from, int64_t request_id);
  void on_suspect_members(const MemberId& from, const std::vector<MemberId>& suspects);
  void on_final_check_passed(const MemberId& from, const MemberId& suspect);
  void on_remove_member(const MemberId& from, const MemberId& target);
  void on_prepare_view(const MemberId& from, const std::shared_ptr<const View>& view);
  void on_view_ack(const MemberId& from, int64_t view_id);
  void on_install_view(const MemberId& from, const std::shared_ptr<const View>& view,
                       const std::vector<MemberId>& removed);
  void on_network_partition(const MemberId& from);
  void on_join_request(const MemberId& from, const MemberId& joiner);
  // A LeaveRequest for `leaving` (GMSJoinLeave.processLeaveRequestMessage, ~626-687; source
  // rules only): ignored from an old non-member; about me: forced disconnect; a
  // non-coordinator records `leaving` in leftMembers and takes over if the view without the
  // removed and left members has it as coordinator; the coordinator queues it for the next
  // view (as a removal request: see README "No graceful leave"). Sent by a churn leave
  // (leave()); in both profiles (the wiki profile has no source for it, and it changes
  // nothing in runs without churn).
  void on_leave_request(const MemberId& from, const MemberId& leaving);
  // An application message on the direct channel (GMSMembership.processMessage): contact,
  // stamped with the last tick (source rules only).
  void on_app_message(const MemberId& from);
  // The reader of a connection from `peer` saw EOF (peer's process died; Connection.java
  // run() -> initiateSuspicionIfSharedUnordered, ~1517/~1849): GMSMembership.suspectMember
  // -> verifyMember (GMSMembership.java:1245-1267): if `peer` is in my view,
  // checkIfAvailable(peer, reason, initiateRemoval = false), i.e. check_if_available with
  // members in a final check assumed available. Source rules and peer_connections only.
  void on_peer_connection_lost(const MemberId& peer);
  // A membership datagram to `to` failed at the sender (unreachable host): JGroupsMessenger
  // .handleJGroupsIOException (JGroupsMessenger.java:498-528): if `to` is in my view,
  // checkIfAvailable(to, reason, initiateRemoval = true): a final check unless one runs.
  void on_send_error(const MemberId& to);
  // Members this process holds outbound application connections to (peer_connections).
  const std::set<MemberId>& connected_peers() const { return peers_out_; }
  // Auto-reconnects of the current process (reset when its host restarts).
  uint32_t reconnects() const { return reconnects_; }
  bool reconnect_pending() const { return reconnect_pending_; }
  // The TCP final check, served on this host: OK iff `target` is this member (node,
  // incarnation and join view id) and it is still a member.
  int64_t serve_tcp_check(const MemberId& target) const;

 private:
  friend class ViewCreator;

  // Heartbeat reply ids are > 0; periodic heartbeats carry 0; refutations of a suspicion -1.
  static constexpr int64_t kPeriodic = 0;
  static constexpr int64_t kRefutation = -1;

  struct NeighbourCheck {
    MemberId target;
    SimTime start;
    EventId timer;
  };
  struct Availability {
    MemberId suspect;
    SimTime start;
    SimTime deadline;
    bool retry;  // final check: retry refused connects until the budget is spent
    bool final_check;
    int attempts = 0;
    std::function<void(bool)> done;
  };

  SimTime now() const { return shared_.now(); }
  // Records a protocol decision when the run is traced. Every call is written
  // `if (tracing()) trace(...)`: the fields are built by the caller, and building them for
  // nothing (json objects, member lists) was about a tenth of a removal's CPU at 10^5 members.
  bool tracing() const { return shared_.world.sim.trace() != nullptr; }
  void trace(std::string_view kind, nlohmann::json fields = nlohmann::json::object()) const;
  EventId after(Duration d, EventKind kind, std::function<void()> fn);
  EventId at(SimTime t, EventKind kind, std::function<void()> fn);
  // `reliable_reply`: a heartbeat reply or refutation, reliable under the source rules
  // (GMSHealthMonitor sends them with Messenger.send, periodic heartbeats with sendUnreliably).
  void send(Msg m, const MemberId& to, size_t ids, std::function<void(Member&)> on_arrival,
            bool reliable_reply = false);
  // The reliable channel when reliable_retransmit > 0: JGroups UNICAST3 as Geode configures it
  // (member_unicast3.cpp; docs/models/geode-membership.md "Reliable channel"). Per destination
  // identity a send window of sequence numbers; every copy is a datagram; the receiver's
  // cumulative ack is implicit and instant (the highest seqno received without a gap). The
  // member's xmit task runs every reliable_retransmit at its own phase (the start of its
  // process, re-anchored when a run was deferred by a pause) while it has anything to do:
  // it resends the highest sent message of a window whose (acked, sent) watermark did not
  // move since the previous run, and asks the senders of messages missing below a received
  // one to resend them (second run after the gap was seen). A message is delivered at most
  // once; its copies stop when it is acked, the destination identity is gone, or the
  // network's reliable give-up time has passed.
  struct Unicast3Window;
  void send_unicast3(const MemberId& to, net::MsgType type, uint32_t bytes,
                     std::function<void()> deliver);
  void unicast3_copy(const std::shared_ptr<Unicast3Window>& w, uint64_t seq);
  void unicast3_receive(const std::shared_ptr<Unicast3Window>& w, uint64_t seq);
  void on_xmit_request(const MemberId& from, const std::vector<uint64_t>& seqs);
  void xmit_task_wake();
  void xmit_task_run();
  bool xmit_task_busy() const;
  void unicast3_reset();
  bool source_rules() const { return shared_.config.source_rules(); }
  bool sick() const;
  // Services.memberSuspected on this member (a check of m starts): m is suspected here, the
  // watch moves past it, and a coordinator's prepare stops waiting for m.
  void member_suspected(const MemberId& m);
  bool accepts(const MemberId& to) const { return !disconnected_ && to == me_; }
  bool in_view(const MemberId& m) const { return view_ && view_->contains(m); }
  void reset_state();

  // Heartbeats and monitoring.
  void start_loops(Duration offset);
  void heartbeat_loop();
  // One round of the Heart thread from target `next` on (heartbeat sequence `seq`); a
  // send error blocks it on a final check, after which it continues with the next target.
  void heart_round(std::vector<MemberId> targets, size_t next, uint64_t seq);
  // unreachable_send_errors: a membership datagram to `to` fails at this sender now.
  bool send_fails(const MemberId& to) const;
  void monitor_tick();
  bool check_due(const MemberId& n, SimTime last_contact) const;
  void contacted_by(const MemberId& from, SimTime stamp);
  void app_loop();
  void send_app_message();
  void recompute_neighbour();
  void set_neighbour(std::optional<MemberId> n);
  void unsuspect(const MemberId& m);
  void finish_neighbour_check(int64_t request_id, bool replied);

  // Final and availability checks.
  uint64_t run_availability_check(const MemberId& suspect, bool final_check,
                                  std::function<void(bool)> done);
  void tcp_attempt(uint64_t check);
  void tcp_result(uint64_t check, net::ProbeResult r);
  void complete_availability(uint64_t check, bool tcp_ok);
  void availability_outcome(const MemberId& suspect, bool passed,
                            const std::function<void(bool)>& done);
  void self_check(std::function<void(bool)> done);
  void tell_final_check_passed(const MemberId& suspect);
  void final_check_done(const MemberId& suspect, bool passed);

  // Removal, views, joins.
  void consider_take_over(const MemberId& removed);
  void become_coordinator(const MemberId& old);
  // Whether installing `v` (not created here) drops at least half of view_'s weight in
  // crashed members (GMSJoinLeave.installView -> isMajorityLost).
  bool quorum_lost_installing(const View& v, const std::vector<MemberId>& removed);
  void install_view(const std::shared_ptr<const View>& v, const std::vector<MemberId>& removed,
                    bool created_here);
  void forced_disconnect(DisconnectReason why);
  // Auto-reconnect (InternalDistributedSystem.reconnect, IDS.java:2471-2560): after
  // reconnect_wait() a disconnected member re-joins with a new identity.
  void reconnect();
  // A reconnect attempt that no view admitted within join_timeout: wait and try again.
  void reconnect_attempt_failed();
  // A process crash closes this member's outbound connections: each live receiver gets EOF
  // one latency later (not across a partition).
  void close_connections_on_crash();
  // Joining through a locator (GMSJoinLeave.join and findCoordinator, GMSJoinLeave.java:
  // 320-420, 1149-1266): every join_retry the joiner asks each locator host for the
  // coordinator (a FindCoordinatorRequest carrying the coordinators it already tried and the
  // newest view id it heard of) and sends a JoinRequest to the first coordinator named in
  // that round that it has not tried. A JoinRequest that got no view within join_retry puts
  // its coordinator on the tried list. The joiner uses nothing but what a locator told it:
  // while no locator host answers, it sends no JoinRequest.
  void send_join();
  // On a locator host: GMSLocator.processFindCoordinatorRequest (GMSLocator.java:241-348).
  void on_find_coordinator(const MemberId& joiner, uint64_t round, int64_t joiner_view_id,
                           const std::set<MemberId>& tried);
  // The locator's answer, or none: a participating member answers from its installed view, a
  // joining one from the view it installed last (the locator's persisted view, recovered at
  // start-up: GMSLocator.recover), a disconnected one not at all. Identities on the joiner's
  // host are left out (GMSLocator.java:279-290), and so are the tried coordinators unless the
  // view is newer than the joiner's (294-299); then GMSMembershipView.getCoordinator(rejected):
  // the first preferred member, else the first member (GMSMembershipView.java:323-341).
  std::optional<std::pair<MemberId, int64_t>> locator_answer(
      const MemberId& joiner, int64_t joiner_view_id, const std::set<MemberId>& tried) const;
  // At the joiner: a locator named `coordinator` (from its view `view_id`).
  void on_coordinator_found(uint64_t round, const MemberId& coordinator, int64_t view_id);
  // Clears the search state of a join (GMSJoinLeave's SearchState): a new join starts afresh.
  void reset_join_search();

  Shared& shared_;
  const NodeId node_;
  MemberId me_;
  uint64_t epoch_ = 0;
  bool disconnected_ = false;
  bool joining_ = false;
  bool ever_member_ = false;
  bool churn_joiner_ = false;  // a churn slot: joins when its host comes up

  // Views are immutable and shared: every member that installs a view holds the same copy
  // (per-member copies made the model's memory quadratic in the view size, issue 16).
  std::shared_ptr<const View> view_;
  std::optional<MemberId> neighbour_;
  // Last contact per member. Hashed: the coordinator holds an entry for every member and
  // looks one up per heartbeat it receives; a tree of 10^5 entries cost ~17 dependent cache
  // misses per lookup, most of the CPU of a 10^5-member ring. Nothing iterates it in an
  // order that matters (install_view only erases departed members).
  std::unordered_map<MemberId, SimTime, MemberIdHash> contact_;
  std::set<MemberId> suspected_;
  // The last next_neighbour walk (ring.h): reset whenever view_ changes or suspected_ loses a
  // member (reset_state, unsuspect, install_view), the only places that erase from it.
  NeighbourWalk walk_;
  std::set<MemberId> recorded_;                    // suspect requests recorded in this view
  std::set<MemberId> removal_requested_;           // "being removed" in this view
  std::set<MemberId> left_;                        // leftMembers: leave requests seen
  std::map<int64_t, NeighbourCheck> neighbour_checks_;  // by request id
  std::map<uint64_t, Availability> availability_;        // by check id
  // The checks of availability_ that final_checking counts (final checks; every check under
  // the source rules), per suspect: final_checking is one lookup instead of a scan of the
  // checks in progress, which the next in line runs for each recorded suspect (a partition
  // of a tenth of the ring made that quadratic). Updated wherever availability_ changes.
  std::map<MemberId, uint32_t> final_checks_of_;
  std::map<MemberId, std::unique_ptr<detectors::Detector>> detectors_;
  int64_t next_request_id_ = 1;
  uint64_t next_check_id_ = 1;
  uint64_t heartbeat_seq_ = 0;
  SimTime last_tick_;
  SimTime next_tick_;

  // UNICAST3 (member_unicast3.cpp): send windows by destination, receive windows by sender,
  // the xmit task's phase anchor and whether a run is scheduled.
  std::map<MemberId, std::shared_ptr<Unicast3Window>> send_windows_;
  std::map<MemberId, std::shared_ptr<Unicast3Window>> recv_windows_;
  SimTime xmit_anchor_;
  bool xmit_scheduled_ = false;

  bool leaving_ = false;            // a graceful leave is under way (churn)
  bool heart_sending_ = false;     // the Heart thread's send is in progress
  bool heart_send_failed_ = false;  // and it failed (send_fails)
  std::set<MemberId> peers_out_;  // outbound application connections (peer_connections)
  uint32_t reconnects_ = 0;
  bool reconnect_pending_ = false;

  // Survives crashes: the last installed view. Only a locator uses it after a restart (its
  // location service answers from the view it persisted, GMSLocator.recover); a joiner
  // learns the coordinator from the locators.
  std::shared_ptr<const View> last_view_;

  // The search state of the current join (GMSJoinLeave.SearchState).
  uint64_t join_round_ = 0;        // FindCoordinator rounds sent
  uint64_t join_sent_round_ = 0;   // the round whose answer was acted on
  int64_t join_view_id_ = -1;      // newest view id a locator reported (state.viewId)
  std::set<MemberId> join_tried_;  // coordinators whose JoinRequest got no view (alreadyTried)
  std::optional<MemberId> join_target_;  // the coordinator of the last JoinRequest

  // Keyed streams, created on first use (a member that never draws holds none: an engine is
  // 2.5 KB); keying makes the draws independent of when a stream is created.
  Rng& stream(std::unique_ptr<Rng>& slot, const char* purpose);
  std::unique_ptr<Rng> fanout_rng_;    // "geode.fanout": the wiki random recipient
  std::unique_ptr<Rng> jitter_rng_;    // "geode.jitter": heartbeat send jitter
  std::unique_ptr<Rng> takeover_rng_;  // "geode.takeover": the take-over view id jump
  std::unique_ptr<Rng> app_rng_;       // "geode.app": application message times and targets
  // Created when this member first coordinates (creator(): activate, take-over, requests it
  // queues as coordinator): a ViewCreator is about 0.9 KB and only coordinators use one (one
  // per member made 90 MB of a 10^5-member ring). A member without one acts as one whose
  // creator is inactive (deactivate() on a fresh creator changes nothing it could observe).
  std::unique_ptr<ViewCreator> creator_;
  ViewCreator& creator();
};

}  // namespace fdsim::geode
