// The suspicion-to-view path of pbcast.GMS (GMS.java, ViewHandler; CoordGmsImpl / ParticipantGmsImpl
// .handleMembershipChange) of JGroups 2.12.2.
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

namespace {
bool contains(const std::vector<NodeId>& v, NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}
}  // namespace

// GMS.up(SUSPECT) (GMS.java:892-898): the application hears of it, a SUSPECT request joins the
// ViewHandler, and both ack collectors count the suspect as acked (AckCollector.suspect() ->
// ack(member), AckCollector.java:81-94): a view cast (castViewChange, GMS.java:477-504, or the
// merge's castViewChangeWithDest) that was waiting for the suspect's ack stops waiting at once
// if no other ack is missing, instead of after view_ack_collection_timeout. (A suspect from
// before the cast does not count: reset() at the cast clears the collector's suspects.)
void Member::gms_suspect(NodeId target) {
  handler_add(target);
  if (merge_cast_view_ != 0 && contains(merge_awaiting_acks_, target)) {
    merge_acked(target);
  }
  if (handler_ == Handler::casting && contains(awaiting_acks_, target)) {
    awaiting_acks_.erase(std::remove(awaiting_acks_.begin(), awaiting_acks_.end(), target),
                         awaiting_acks_.end());
    if (awaiting_acks_.empty()) handler_done(handler_gen_);
  }
}

// ViewHandler.run() (GMS.java:1351-1376): the thread sets end_time = now + max_bundling_time,
// then blocks for a request (up to 5 s, then it exits); with view_bundling it collects further
// requests until end_time. So a request that finds a new thread (none was running, or it had
// exited) waits max_bundling_time; one that finds a thread waiting for longer than that is
// processed at once. Requests that come while a view is being cast wait for the end of the
// cast (view_ack_collection_timeout at most), then find a thread that just began waiting.
void Member::handler_add(NodeId target) {
  // A suspended ViewHandler (a merge in progress, Merger.handleMergeRequest) discards requests.
  if (handler_suspended_) return;
  pending_.push_back(target);
  if (handler_ != Handler::idle) return;
  handler_ = Handler::bundling;
  const uint64_t gen = ++handler_gen_;
  const SimTime now = s_.now();
  if (!handler_wait_since_ || now >= *handler_wait_since_ + kViewHandlerIdleExit)
    handler_wait_since_ = now;  // a new thread
  SimTime at = std::max(now, *handler_wait_since_ + s_.config.max_bundling_time);
  if (!s_.config.view_bundling) at = now;
  s_.world.hosts.schedule_at(self_, at, s_.kinds.bundling, [this, gen] {
    if (up_ && gen == handler_gen_) handler_process();
  });
}

bool Member::would_be_coordinator() const {
  for (NodeId n : view_)
    if (!contains(gms_suspected_, n)) return n == self_;
  return false;
}

void Member::handler_process() {
  std::vector<NodeId> reqs;
  reqs.swap(pending_);
  const uint64_t gen = ++handler_gen_;
  if (!coord_) {
    // ParticipantGmsImpl: remember the suspects; if that makes me first in line, become
    // coordinator and queue the same requests again.
    for (NodeId n : reqs)
      if (!contains(gms_suspected_, n)) gms_suspected_.push_back(n);
    if (would_be_coordinator()) {
      gms_suspected_.clear();
      coord_ = true;
      s_.trace(self_, "jgroups_become_coordinator", {{"view_id", view_id_}});
      pending_ = reqs;
    }
    handler_done(gen);
    return;
  }
  // CoordGmsImpl: suspects that are current members, not me, leave in one new view.
  std::vector<NodeId> leave;
  for (NodeId n : reqs)
    if (n != self_ && in_view(n) && !contains(leave, n)) leave.push_back(n);
  if (leave.empty()) {
    handler_done(gen);
    return;
  }
  std::vector<NodeId> members;
  for (NodeId n : view_)
    if (!contains(leave, n)) members.push_back(n);
  const uint64_t id = view_id_ + 1;
  handler_ = Handler::casting;
  casting_view_ = id;
  awaiting_acks_.clear();
  for (NodeId n : members)
    if (n != self_) awaiting_acks_.push_back(n);
  s_.trace(self_, "jgroups_cast_view", {{"view_id", id}, {"leaving", leave}});
  for (NodeId n : members) {
    send_reliable(n, Msg::view, [from = self_, id, members](Member& m) { m.on_view(from, id, members); });
  }
  if (awaiting_acks_.empty()) {
    handler_done(gen);
    return;
  }
  s_.world.hosts.schedule_after(self_, s_.config.view_ack_collection_timeout, s_.kinds.ack_timeout,
                                [this, gen] {
                                  if (up_ && gen == handler_gen_) handler_done(gen);
                                });
}

void Member::handler_done(uint64_t gen) {
  if (gen != handler_gen_) return;
  ++handler_gen_;
  handler_ = Handler::idle;
  handler_wait_since_ = s_.now();
  casting_view_ = 0;
  awaiting_acks_.clear();
  if (pending_.empty()) return;
  std::vector<NodeId> again;
  again.swap(pending_);
  for (NodeId n : again) handler_add(n);
}

void Member::on_view(NodeId from, uint64_t id, const std::vector<NodeId>& members) {
  fd_heard_from(from);
  if (id <= view_id_ || !contains(members, self_)) return;
  install(id, members);
  if (from != self_) {
    send_reliable(from, Msg::view_ack, [me = self_, id](Member& c) {
      c.fd_heard_from(me);
      c.on_view_ack(me, id);
    });
  }
}

// One member of the merge view's cast has acked it, or is confirmed dead (which counts as an
// ack, GMS.java:896-897): the cast ends once none is left.
void Member::merge_acked(NodeId m) {
  merge_awaiting_acks_.erase(
      std::remove(merge_awaiting_acks_.begin(), merge_awaiting_acks_.end(), m),
      merge_awaiting_acks_.end());
  if (merge_awaiting_acks_.empty()) {
    merge_cast_view_ = 0;
    merge_cancel(merge_id_);
  }
}

void Member::on_view_ack(NodeId from, uint64_t id) {
  if (merge_cast_view_ != 0 && id == merge_cast_view_) {
    merge_acked(from);
    return;
  }
  if (handler_ != Handler::casting || id != casting_view_) return;
  awaiting_acks_.erase(std::remove(awaiting_acks_.begin(), awaiting_acks_.end(), from),
                       awaiting_acks_.end());
  if (awaiting_acks_.empty()) handler_done(handler_gen_);
}

// GMS.installView(): the new view goes down the stack (the detector's VIEW_CHANGE) and up to
// the application; ParticipantGmsImpl forgets its suspects.
void Member::install(uint64_t id, const std::vector<NodeId>& members) {
  view_id_ = id;
  view_ = members;
  s_.trace(self_, "jgroups_install_view", {{"view_id", id}, {"members", members}});
  coord_ = view_.front() == self_;
  gms_suspected_.clear();
  // VIEW_CHANGE travels down the stack, top detector first; each handles it without delay.
  for (auto it = s_.arm.detectors.rbegin(); it != s_.arm.detectors.rend(); ++it) {
    switch (*it) {
      case Detector::fd: fd_view_change(); break;
      case Detector::fd_all: fd_all_view_change(); break;
      case Detector::fd_sock: sock_view_change(); break;
    }
  }
  s_.signals.view_installed(s_.now(), self_, id, view_);
  merge_task_update(false);
}

}  // namespace fdsim::jgroups
