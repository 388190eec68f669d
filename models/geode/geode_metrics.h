#pragma once
// Membership metrics of the Geode ring (docs/models/metrics.md section 2), recorded from the
// members' signals plus the ground truth of Hosts (a HostListener).
//
// Contract (every metric counts only what happens at or after warmup_end; a crash is measured
// if it happens at or after warmup_end to a member that was participating, i.e. had installed
// a view and was not disconnected):
// - false suspicion: a suspicion raised about a member whose host is up (running, paused,
//   sick or playing dead) on the same incarnation and that is still participating.
// - false removal: a coordinator installs a view that drops a member that is alive in that
//   sense, or that was alive until it was told it is removed (the `current` profile tells
//   removed members before the view is prepared); counted once per member identity. A forced
//   disconnect is also counted under forced_disconnects_count, split by reason.
// - detection times of a measured crash: to the first suspicion raised about the crashed
//   identity; to its removal (the first view installed at a coordinator without it); to the
//   instant every survivor (up, participating, other than the crashed host) has installed a
//   view without it. Crashes not removed by the horizon count as undetected. Each of the three
//   is summarised ({"mean","min","p50","max","count"}) and its samples are listed under
//   "samples_s" in crash order, at most kMaxDetectionSamples of them (the first ones; "count"
//   says how many there were), so `figure cdf` plots single events and result files stay
//   bounded.
// - rates per member-hour and per member per second divide by (initial view size) x (length
//   of the measurement window); message counts are logical sends (network retransmissions
//   are not counted), by message type.
// - a crash of a member that was already suspected when it crashed (a suspicion about that
//   identity raised before the crash and not cleared since by a passed final check, so the
//   removal may already be under way) counts in already_suspected_at_crash_count and gives no
//   detection sample and no undetected count: the removal it gets was started by the false
//   suspicion, and counting it would reward arms that suspect a lot (as Chen's T_D = 0 does
//   for the heartbeat detectors). The detection summaries are over the other crashes.
// - auto-reconnect (issue 26): reconnects_count = re-joins started by disconnected members
//   (a new identity each), reconnects_completed_count = those whose new identity installed a
//   view; out_of_view_s = per node that was ever a member, the time in the measurement window
//   during which its host was up (running, paused, sick or playing dead) but no identity of
//   it participated (removed, disconnected, waiting to reconnect or joining), summarised over
//   those nodes, with out_of_view_member_s their sum; members_in_view_at_horizon_count = the
//   nodes participating at the end of the run.
// - churn (sim/faults/churn.h; only when enable_churn() was called, so runs without churn emit
//   exactly the metrics above): a graceful leave is not a crash (no crash record, no
//   detection sample, its removal is not a false removal): churn_leaves_graceful_count and
//   churn_leave_to_removal_s (leave instant to the first view installed at a coordinator
//   without the leaver; leaves not removed by the horizon count in
//   churn_leaves_unremoved_count); a crash leave (leave "crash") is a crash like any other and
//   also counts in churn_leaves_crash_count; churn_joins_count = fresh identities started,
//   churn_joins_completed_count = those that installed a view, churn_join_to_view_s = join
//   instant to that view. Suspicions of a leaver count in suspicions_count (never as false:
//   its host is down). The per-member rates divide by the initial view size, which excludes
//   absent slots; messages_per_member_per_s gains "leave_request".

#include <array>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/geode/messages.h"
#include "models/geode/signals.h"
#include "sim/net/world.h"

namespace fdsim::geode {

inline constexpr size_t kMaxDetectionSamples = 1000;

class GeodeRecorder final : public Signals, public net::HostListener {
 public:
  struct CrashRecord {
    MemberId id;
    SimTime crashed;
    std::optional<SimTime> first_suspicion;
    std::optional<SimTime> removal;
    std::optional<SimTime> all_survivors;
    bool already_suspected = false;  // a suspicion of this identity was pending at the crash
  };

  GeodeRecorder(World& world, size_t initial_members);
  void set_initial_members(size_t k) { initial_members_ = k; }

  // Churn (contract above): called by GeodeModel before the host goes down / comes up.
  void enable_churn() { churn_ = true; }
  void churn_leave(NodeId n, bool graceful);
  void churn_join(NodeId n);

  // Signals.
  void message_sent(SimTime t, NodeId from, Msg m, uint32_t bytes) override;
  void suspicion_raised(SimTime t, NodeId by, const MemberId& suspect) override;
  void final_check_done(SimTime t, NodeId by, const MemberId& suspect, bool passed) override;
  void view_installed(SimTime t, NodeId at, const std::shared_ptr<const View>& v, bool created_here,
                      const std::vector<MemberId>& removed) override;
  void disconnected(SimTime t, NodeId n, DisconnectReason why) override;
  void partition_declared(SimTime t, NodeId coordinator) override;
  void reconnect_started(SimTime t, NodeId n, const MemberId& id) override;
  // HostListener.
  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t incarnation) override;

  nlohmann::json metrics() const;

  const std::vector<CrashRecord>& crashes() const { return crashes_; }
  uint64_t suspicions() const { return suspicions_; }
  uint64_t false_suspicions() const { return false_suspicions_; }
  uint64_t false_removals() const { return false_removals_.size(); }
  uint64_t views_installed() const { return views_installed_; }
  uint64_t final_checks() const { return final_checks_; }
  uint64_t final_checks_passed() const { return final_checks_passed_; }
  uint64_t partition_declarations() const { return partition_declarations_; }
  uint64_t disconnects(DisconnectReason why) const { return disconnects_[size_t(why)]; }
  uint64_t reconnects() const { return reconnects_; }
  uint64_t reconnects_completed() const { return reconnects_completed_; }
  // Seconds node n has spent out of the view (host up, not participating) in the window up
  // to now (or the horizon, whichever is earlier).
  double out_of_view_s(NodeId n) const;
  size_t participating_now() const;

 private:
  bool measuring(SimTime t) const { return t >= world_.warmup_end; }
  bool alive(const MemberId& m) const;
  void check_survivors(SimTime t);
  // Out-of-view bookkeeping: node n's participation or host state changed at t.
  void set_out(NodeId n, bool out, SimTime t);
  uint32_t current_incarnation(NodeId n) const;

  World& world_;
  size_t initial_members_;
  std::vector<bool> participating_;                  // by node
  std::vector<std::shared_ptr<const View>> views_;   // last installed view per node (shared)
  std::vector<CrashRecord> crashes_;
  // Indices into crashes_ of the records removed but not yet out of every survivor's view (the
  // only ones check_survivors looks at), and per record the node whose view last still held
  // it (its scan starts there: that view usually still does, so a check costs O(1), not O(n)
  // per record and view install).
  std::vector<size_t> survivor_checks_;
  std::vector<NodeId> survivor_witness_;  // by crashes_ index
  std::vector<MemberId> false_removals_;
  std::vector<MemberId> told_removed_alive_;  // disconnected (reason removed) while running
  std::vector<MemberId> suspected_;  // suspicion raised, no passed final check since (sorted)
  uint64_t suspicions_ = 0;
  uint64_t false_suspicions_ = 0;
  uint64_t views_installed_ = 0;
  uint64_t final_checks_ = 0;
  uint64_t final_checks_passed_ = 0;
  uint64_t partition_declarations_ = 0;
  std::array<uint64_t, 2> disconnects_{};
  uint64_t reconnects_ = 0;
  uint64_t reconnects_completed_ = 0;
  std::vector<uint32_t> identity_;                 // by node: current member incarnation
  std::vector<bool> ever_member_;                  // by node
  std::vector<bool> awaiting_rejoin_;              // by node: reconnect started, no view yet
  std::vector<std::optional<SimTime>> out_since_;  // by node: out of the view since
  std::vector<Duration> out_total_;                // by node: closed out-of-view time
  struct LeaveRecord {
    MemberId id;
    SimTime left;
    std::optional<SimTime> removal;
  };
  bool churn_ = false;
  std::vector<bool> leaving_gracefully_;           // by node: set by churn_leave until on_crash
  std::vector<std::optional<SimTime>> join_start_;  // by node: churn join, no view yet
  std::vector<LeaveRecord> leaves_;
  uint64_t crash_leaves_ = 0;
  uint64_t joins_ = 0;
  std::vector<double> join_to_view_;
  std::array<uint64_t, kMsgCount> messages_{};
  std::array<uint64_t, kMsgCount> bytes_{};
};

// {"mean", "min", "p50", "max", "count"} of a sample (nulls when empty).
nlohmann::json summarize(std::vector<double> values);

}  // namespace fdsim::geode
