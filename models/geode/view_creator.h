#pragma once
// The coordinator side of docs/models/geode-membership.md, "Removal and views" (Geode's GMSJoinLeave.ViewCreator): it collects removal and
// join requests, makes the next view, prepares it, and installs it everywhere.
//
// Contract:
// - Active only while its member coordinates (installed a view naming it coordinator, or took
//   over). Deactivating drops every pending request and invalidates every pending timer.
// - Collection: the next view is made `request_collection` after the first request queued
//   since the last view (immediately if that instant has passed); duplicate requests, and
//   removals of members not in the installed view, are dropped. A take-over view is prepared
//   at once (no collection wait).
// - Prepare: if partition detection is on and the members the new view removes weigh at least
//   half of the installed view (quorum.h), the coordinator sends NetworkPartition to the
//   remaining members, waits `partition_shutdown`, and disconnects instead. Otherwise it sends
//   PrepareView to every other member of the new view and waits for acks up to
//   `view_ack_timeout` (done early when all acked). Each member that did not ack gets a
//   one-shot availability check (one TCP attempt, or any contact since); if any fails, a view
//   without them (id + 1) is prepared again, else the view is installed.
// - Install: the coordinator installs locally and sends InstallView to every other member and
//   to every removed member (a live removed member learns it is out and disconnects).
// Source rules (`current`; GMSJoinLeave.ViewCreator, method names in the .cpp):
// - Requests: every removal request for a member of the installed view is recorded, even
//   while a view is being prepared. Making a view drops (and tells directly) the removals of
//   members no longer in the view; when membership would not change, no view is made. The
//   members a view removes get a RemoveMember message before the prepare. A request queued
//   while a view was prepared is served at max(now, time the last requests were taken +
//   request_collection).
// - Joins: the joiner's old identity is not dropped (failure detection removes it).
// - Prepare: the wait (ViewReplyProcessor, view_reply.h) ends early as soon as every member
//   that has not acked is a pending removal (a removal request was queued for it, or a
//   final or availability check of it started on this member), checked at each reply,
//   suspicion or removal request; removals already queued when the prepare starts do not end
//   it by themselves (processPendingRequests has no checkIfDone). If some did not ack, those
//   without a pending removal get one availability check each (Member::check_if_available,
//   in parallel); the phase ends when every one passed, or every one left has a pending
//   removal, or view_ack_timeout after it began. The members left (failed, or with a pending
//   removal) are told they are removed and a view with id + 1 without them is prepared
//   again; if none is left the view is installed as is.

#include <optional>
#include <set>
#include <vector>

#include "models/geode/view.h"
#include "models/geode/view_reply.h"
#include "sim/engine/simulator.h"

namespace fdsim::geode {

class Member;

class ViewCreator {
 public:
  explicit ViewCreator(Member& m) : m_(m) {}

  bool active() const { return active_; }
  bool busy() const { return busy_; }
  void activate();
  void deactivate();

  void queue_removal(const MemberId& target);
  void queue_join(const MemberId& joiner);
  void take_over(View v);
  void on_ack(const MemberId& from, int64_t view_id);
  // Services.memberSuspected on this member: a check of m started (source rules).
  void member_suspected(const MemberId& m);
  bool prepare_waiting() const { return busy_ && processor_.waiting(); }

 private:
  void schedule_collection();
  void create_view();
  void prepare(View v);
  void ack_deadline();
  void availability_result(const MemberId& m, bool passed);
  void install();
  void declare_partition(const View& v);
  EventId timer_at(SimTime t, EventKind kind, std::function<void()> fn);
  std::vector<MemberId> removed_from_installed(const View& v) const;
  // Source rules.
  void wait_over();
  void remove_healthy(std::set<MemberId> unresponsive);
  void healthy_result(const MemberId& m, bool available);
  void reevaluate_healthy();
  void finish_prepare();
  void tell_removed(const std::vector<MemberId>& removed);
  bool source_rules() const;

  Member& m_;
  bool active_ = false;
  bool busy_ = false;  // preparing a view, or shutting down after a partition
  uint64_t gen_ = 0;
  // Removal requests queued for the next view, in arrival order (the order the view drops
  // them in), and the same members as a set for membership tests: a partition queues a
  // tenth of the ring, and a scan of the list per request, per pending check and per
  // prepare made the coordinator's work quadratic (cubic in reevaluate_healthy) in it.
  std::vector<MemberId> pending_removals_;
  std::set<MemberId> pending_removal_set_;
  bool removal_pending(const MemberId& m) const { return pending_removal_set_.count(m) > 0; }
  void add_pending_removal(const MemberId& m);
  void clear_pending_removals();
  std::vector<MemberId> pending_joins_;
  std::optional<SimTime> first_queued_;
  EventId collection_timer_;
  View preparing_;
  std::set<MemberId> awaiting_;
  std::set<MemberId> checking_;
  std::vector<MemberId> failed_;
  EventId ack_timer_;
  // Source rules.
  ViewReplyProcessor processor_;
  bool healthy_phase_ = false;           // removeHealthyMembers is running
  std::set<MemberId> healthy_suspects_;  // its `suspects`
  // Members of healthy_suspects_ without a pending removal: the phase ends when none is left
  // (reevaluate_healthy). Kept up to date instead of a scan of the suspects at every removal
  // request, which made a partition of a tenth of the ring quadratic at the coordinator.
  size_t healthy_unsettled_ = 0;
  EventId healthy_timer_;
  SimTime last_take_;                    // when the last requests were taken into a view
  bool ack_wait_ = false;                // waiting for prepare acks
  bool take_over_view_ = false;          // the view being prepared is a take-over view
  uint64_t healthy_round_ = 0;           // invalidates late availability results
};

}  // namespace fdsim::geode
