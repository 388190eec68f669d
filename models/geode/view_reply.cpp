#include "models/geode/view_reply.h"

#include <algorithm>

namespace fdsim::geode {

void ViewReplyProcessor::initialize(int64_t view_id, std::set<MemberId> recipients) {
  view_id_ = view_id;
  waiting_ = true;
  done_early_ = false;
  not_replied_ = std::move(recipients);
  pending_removals_.clear();
}

void ViewReplyProcessor::process_pending_requests(const std::vector<MemberId>& leaves,
                                                  const std::vector<MemberId>& removals) {
  // GMSJoinLeave.java:1974-1989: no checkIfDone here.
  for (const MemberId& m : leaves) not_replied_.erase(m);
  for (const MemberId& m : removals)
    if (not_replied_.count(m)) pending_removals_.insert(m);
}

void ViewReplyProcessor::member_suspected(const MemberId& m) {
  if (!waiting_) return;
  if (not_replied_.count(m) && !pending_removals_.count(m)) {
    pending_removals_.insert(m);
    check_if_done();
  }
}

void ViewReplyProcessor::process_remove_request(const MemberId& m) {
  if (!waiting_) return;
  pending_removals_.insert(m);
  check_if_done();
}

void ViewReplyProcessor::process_leave_request(const MemberId& m) {
  if (!waiting_) return;
  not_replied_.erase(m);
  check_if_done();
}

void ViewReplyProcessor::process_view_response(int64_t view_id, const MemberId& from) {
  if (!waiting_ || view_id != view_id_) return;
  not_replied_.erase(from);
  check_if_done();
}

void ViewReplyProcessor::check_if_done() {
  if (!waiting_) return;
  const bool all_pending = std::includes(pending_removals_.begin(), pending_removals_.end(),
                                         not_replied_.begin(), not_replied_.end());
  if (not_replied_.empty() || all_pending) {
    waiting_ = false;
    done_early_ = true;
  }
}

std::set<MemberId> ViewReplyProcessor::finish_wait() {
  if (done_early_) return pending_removals_;
  std::set<MemberId> out = not_replied_;
  out.insert(pending_removals_.begin(), pending_removals_.end());
  waiting_ = false;
  return out;
}

}  // namespace fdsim::geode
