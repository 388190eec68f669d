#pragma once
// The coordinator side of spec 5 (Geode's GMSJoinLeave.ViewCreator): it collects removal and
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

#include <optional>
#include <set>
#include <vector>

#include "models/geode/view.h"
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

  Member& m_;
  bool active_ = false;
  bool busy_ = false;  // preparing a view, or shutting down after a partition
  uint64_t gen_ = 0;
  std::vector<MemberId> pending_removals_;
  std::vector<MemberId> pending_joins_;
  std::optional<SimTime> first_queued_;
  EventId collection_timer_;
  View preparing_;
  std::set<MemberId> awaiting_;
  std::set<MemberId> checking_;
  std::vector<MemberId> failed_;
  EventId ack_timer_;
};

}  // namespace fdsim::geode
