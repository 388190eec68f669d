#pragma once
// The coordinator's wait for view-prepare acks: Geode's GMSJoinLeave.ViewReplyProcessor, as
// a pure state machine (the ViewCreator owns the timer).
//
// Contract (mirrors the Java class method by method; leave requests are not modelled):
// - initialize(id, recipients): waiting, nobody replied yet, no pending removals.
// - process_pending_requests(removals): removal requests already queued at the coordinator
//   for members still to reply become pending removals ("no point in waiting" for them).
// - member_suspected(m): a final or availability check of m started on the coordinator
//   (Services.memberSuspected): if m has not replied, it becomes a pending removal.
// - process_remove_request(m): a removal request for m was recorded: m becomes a pending
//   removal (whether or not it replied, as in Geode).
// - process_view_response(id, m): m acked view `id` (other ids are ignored).
// - The wait is done (waiting() false) as soon as nobody is left to reply or every member
//   left to reply is a pending removal (checkIfDone).
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
  void process_pending_requests(const std::vector<MemberId>& pending_removals);
  void member_suspected(const MemberId& m);
  void process_remove_request(const MemberId& m);
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
