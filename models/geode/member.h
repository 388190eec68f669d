#pragma once
// One Geode member: the GMSHealthMonitor of spec sections 2-4 (heartbeats, neighbour watch,
// monitor tick, neighbour checks, suspicion fan-out and receipt, final checks) plus the
// member side of spec 5 (removal requests, view prepare/install, forced disconnect, the
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
//   heartbeats are still sent and the TCP check is still answered.
// - Disconnected (told it is removed, or a declared partition): the member stops for good;
//   its TCP check answers "error". It does not re-join (a simplification).
// - Re-join (a simplification of GMSJoinLeave): a recovered host is a new incarnation with
//   empty state. It sends a JoinRequest to the coordinator of the last view its host knew
//   (then round-robin over that view's nodes, every join_retry) until a view admits it; a
//   non-coordinator forwards the request to its coordinator, which admits the joiner at the
//   end of its next view and removes the joiner's old identity in the same view.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "models/detectors/detector.h"
#include "models/geode/context.h"
#include "models/geode/member_id.h"
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
  void start(const View& initial_view, Duration start_offset);
  void on_crash();
  void on_recover(uint32_t incarnation);

  // --- Queries (tests, metrics, load sharing). ---
  NodeId node() const { return node_; }
  const MemberId& id() const { return me_; }
  bool participating() const { return view_.has_value() && !disconnected_; }
  bool disconnected() const { return disconnected_; }
  bool joining() const { return joining_; }
  const View* view() const { return view_ ? &*view_ : nullptr; }
  std::optional<MemberId> neighbour() const { return neighbour_; }
  const std::set<MemberId>& suspects() const { return suspected_; }
  bool suspects(const MemberId& m) const { return suspected_.count(m) > 0; }
  const std::set<MemberId>& recorded_suspects() const { return recorded_; }
  bool is_coordinator() const;
  bool final_checking(const MemberId& m) const;
  bool neighbour_checking(const MemberId& m) const;
  std::optional<SimTime> last_contact(const MemberId& m) const;

  // --- Protocol steps (run by the protocol itself; public so tests can drive a step). ---
  void start_neighbour_check(const MemberId& target);
  void start_final_check(const MemberId& suspect, const MemberId& initiator);
  void initiate_suspicion(const MemberId& target);
  void request_removal(const MemberId& target);

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
  void trace(std::string_view kind, nlohmann::json fields = nlohmann::json::object()) const;
  EventId after(Duration d, EventKind kind, std::function<void()> fn);
  EventId at(SimTime t, EventKind kind, std::function<void()> fn);
  void send(Msg m, const MemberId& to, size_t ids, std::function<void(Member&)> on_arrival);
  bool accepts(const MemberId& to) const { return !disconnected_ && to == me_; }
  bool in_view(const MemberId& m) const { return view_ && view_->contains(m); }
  void reset_state();

  // Heartbeats and monitoring.
  void start_loops(Duration offset);
  void heartbeat_loop();
  void send_heartbeats();
  void monitor_tick();
  bool check_due(const MemberId& n, SimTime last_contact) const;
  void contacted_by(const MemberId& from, SimTime stamp);
  void note_traffic(const MemberId& from, Msg m);
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
  void final_check_done(const MemberId& suspect, bool passed);

  // Removal, views, joins.
  void consider_take_over(const MemberId& removed);
  void become_coordinator(const MemberId& old);
  void install_view(const View& v, const std::vector<MemberId>& removed, bool created_here);
  void forced_disconnect(DisconnectReason why);
  void send_join();

  Shared& shared_;
  const NodeId node_;
  MemberId me_;
  uint64_t epoch_ = 0;
  bool disconnected_ = false;
  bool joining_ = false;
  bool ever_member_ = false;

  std::optional<View> view_;
  std::optional<MemberId> neighbour_;
  std::map<MemberId, SimTime> contact_;            // last contact per member
  std::set<MemberId> suspected_;
  std::set<MemberId> recorded_;                    // suspect requests recorded in this view
  std::set<MemberId> removal_requested_;           // "being removed" in this view
  std::map<int64_t, NeighbourCheck> neighbour_checks_;  // by request id
  std::map<uint64_t, Availability> availability_;        // by check id
  std::map<MemberId, std::unique_ptr<detectors::Detector>> detectors_;
  int64_t next_request_id_ = 1;
  uint64_t next_check_id_ = 1;
  uint64_t heartbeat_seq_ = 0;
  SimTime last_tick_;
  SimTime next_tick_;

  // Survives crashes: what the host remembers for re-joining.
  std::vector<NodeId> known_nodes_;  // last installed view's nodes, coordinator first
  size_t join_attempts_ = 0;

  // Keyed streams, created on first use (a member that never draws holds none: an engine is
  // 2.5 KB); keying makes the draws independent of when a stream is created.
  Rng& stream(std::unique_ptr<Rng>& slot, const char* purpose);
  std::unique_ptr<Rng> fanout_rng_;    // "geode.fanout": the wiki random recipient
  std::unique_ptr<Rng> jitter_rng_;    // "geode.jitter": heartbeat send jitter
  std::unique_ptr<Rng> takeover_rng_;  // "geode.takeover": the take-over view id jump
  std::unique_ptr<ViewCreator> creator_;
};

}  // namespace fdsim::geode
