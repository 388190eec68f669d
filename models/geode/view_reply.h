#pragma once
// The coordinator's wait for view-prepare acks: Geode's GMSJoinLeave.ViewReplyProcessor, as
// a pure state machine (the ViewCreator owns the timer).
//
// Contract (mirrors the Java class method by method; leave requests are not modelled):
// - initialize(id, recipients): waiting, nobody replied yet, no pending removals.
// - process_pending_requests(leaves, removals): members with a queued leave request stop
//   being waited for; removal requests already queued at the coordinator for members still
//   to reply become pending removals ("no point in waiting" for them). It does not end the
//   wait by itself: Geode's processPendingRequests never calls checkIfDone
//   (GMSJoinLeave.java:1974-1989), so a wait whose every non-replier is a queued removal
//   lasts until the next reply, suspicion or removal request, or the ack timeout.
//   fdsim models no leave requests; `leaves` is there for the mirrored Geode test.
// - member_suspected(m): a final or availability check of m started on the coordinator
//   (Services.memberSuspected): if m has not replied, it becomes a pending removal.
// - process_remove_request(m): a removal request for m was recorded: m becomes a pending
//   removal (whether or not it replied, as in Geode).
// - process_view_response(id, m): m acked view `id` (other ids are ignored).
// - The wait is done (waiting() false) as soon as nobody is left to reply or every member
//   left to reply is a pending removal, checked (checkIfDone, GMSJoinLeave.java:2046-2054)
//   after a reply, a suspicion or a removal request only.
// - finish_wait(): waitForResponses' result: the pending removals if the wait ended early,
//   else (the ack timeout) the members that did not reply plus the pending removals; stops
//   the wait. not_replied() is getUnresponsiveMembers.

#include <cstdint>
#include <set>
#include <vector>

#include "models/geode/member_id.h"

namespace fdsim::geode {

class ViewReplyProcessor {
 public:
  void initialize(int64_t view_id, std::set<MemberId> recipients);
  void process_pending_requests(const std::vector<MemberId>& pending_leaves,
                                const std::vector<MemberId>& pending_removals);
  void member_suspected(const MemberId& m);
  void process_remove_request(const MemberId& m);
  // processLeaveRequest (stopWaitingFor): m is no longer waited for. Only the mirrored Geode
  // tests call it (fdsim models no leave requests).
  void process_leave_request(const MemberId& m);
  void process_view_response(int64_t view_id, const MemberId& from);

  bool waiting() const { return waiting_; }
  int64_t view_id() const { return view_id_; }
  const std::set<MemberId>& not_replied() const { return not_replied_; }
  const std::set<MemberId>& pending_removals() const { return pending_removals_; }
  std::set<MemberId> finish_wait();

 private:
  void check_if_done();

  int64_t view_id_ = -1;
  bool waiting_ = false;
  bool done_early_ = false;
  std::set<MemberId> not_replied_;
  std::set<MemberId> pending_removals_;
};

}  // namespace fdsim::geode
