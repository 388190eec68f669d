// MERGE2 (src/org/jgroups/protocols/MERGE2.java), its discovery (Discovery.java, as TCPPING runs
// it) and GMS's merge (pbcast/Merger.java) of JGroups 2.12.2: after a partition heals, the
// coordinators of the sub-groups find each other and one of them installs a merged view.
//
// Modelled departures: sanitizeViews (Merger.java:219-242: views listing members that do not list
// them back) is not applied; merge_fast (MERGE2.java:189-211: a multicast from a non-member)
// never fires over TCP, whose multicast goes only to the sender's view, and is not modelled; a
// merge digest is modelled by its round trip only (GET_DIGEST_REQ / RSP); FLUSH is not in the
// shipped stacks; ViewHandler.resume's own timer (GMS resume_task_timeout) is not modelled: the
// MergeCanceller (1.5 x merge_timeout, Merger.java:452-463) and the end of the merge resume it.
#include <algorithm>
#include <set>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

namespace {
bool contains(const std::vector<NodeId>& v, NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}
}  // namespace

// FindSubgroupsTask.computeInterval() (MERGE2.java:314-316): min_interval + Util.random(max -
// min), Util.random(r) = (long)(Math.random() * r % r) + 1 (Util.java:1441-1443): whole ms.
Duration Member::merge_interval() {
  const int64_t range = (s_.config.merge_max_interval - s_.config.merge_min_interval).count_ns() / 1000000;
  return s_.config.merge_min_interval + Duration::ms(merge_rng_.uniform_int(1, std::max<int64_t>(1, range)));
}

// down(VIEW_CHANGE) (MERGE2.java:154-178): a member that is the view's first starts the task if
// it is not running (scheduleWithFixedDelay, initial delay max(5000, interval), period another
// interval: MERGE2.java:223-231); one that is not stops it. At t = 0 the coordinator's task has
// been running since it became coordinator: start_phases "view" starts it at t = 0, "random"
// puts its first run uniformly in (0, period].
void Member::merge_task_update(bool at_start) {
  if (!s_.arm.merge2) return;
  if (!coord_) {
    if (merge_task_) {
      merge_task_ = false;
      ++merge_task_gen_;
    }
    return;
  }
  if (merge_task_) return;
  merge_task_ = true;
  const uint64_t gen = ++merge_task_gen_;
  Duration first = std::max(Duration::ms(5000), merge_interval());
  merge_period_ = merge_interval();
  if (at_start && !s_.config.phases_from_view)
    first = Duration::ns(merge_rng_.uniform_int(1, merge_period_.count_ns()));
  s_.world.hosts.schedule_after(self_, first, s_.kinds.merge_task, [this, gen] { merge_task_run(gen); });
}

// findAndNotify() -> findAllViews() (MERGE2.java:245-330) -> Discovery.findAllViews()
// (Discovery.java:205-230): a GET_MBRS_REQ to every initial host (every node, myself included),
// then wait until num_expected answers came or timeout; num_expected = max(max_found_members,
// num_initial_members, view size), and max_found_members keeps the largest.
void Member::merge_task_run(uint64_t gen) {
  if (!up_ || gen != merge_task_gen_) return;
  const uint64_t disc = ++disc_gen_;
  disc_active_ = true;
  disc_rsps_.clear();
  disc_expected_ = std::max({max_found_members_, size_t(s_.config.discovery_num_initial_members),
                             view_.size()});
  max_found_members_ = disc_expected_;
  s_.trace(self_, "jgroups_merge2_discovery", {{"expected", disc_expected_}});
  for (NodeId n = 0; n < s_.config.node_count; ++n) {
    send(n, Msg::discovery_req, [asker = self_, disc](Member& m) {
      const ViewInfo v{m.view_id_, m.view_};
      m.send(asker, Msg::discovery_rsp,
             [disc, from = m.self_, v](Member& x) { x.merge_on_discovery_rsp(disc, from, v); });
    });
  }
  s_.world.hosts.schedule_after(self_, s_.config.discovery_timeout, s_.kinds.merge_timeout,
                                [this, disc] { merge_discovery_done(disc); });
}

void Member::merge_on_discovery_rsp(uint64_t disc, NodeId from, const ViewInfo& v) {
  if (!disc_active_ || disc != disc_gen_) return;
  disc_rsps_[from] = v;
  if (disc_rsps_.size() >= disc_expected_) merge_discovery_done(disc);
}

// _findAndNotify() (MERGE2.java:256-308): two or more different views (by creator and id) and
// two or more merge participants send MERGE up (one participant: only after
// inconsistent_view_threshold = 1 earlier such check). The participants
// (Util.determineMergeParticipants, Util.java:2152-2176) are the views' creators plus every
// member listed in some view but in none of the creators' own views (it is in a view whose
// creator does not count it). Merger.merge() (Merger.java:54-77): the smallest creator leads, the
// others wait. The task runs again one period after this run ended (fixed delay).
void Member::merge_discovery_done(uint64_t disc) {
  if (!up_ || !disc_active_ || disc != disc_gen_) return;
  disc_active_ = false;
  std::map<NodeId, ViewInfo> views = disc_rsps_;
  if (coord_) views[self_] = ViewInfo{view_id_, view_};  // findAllViews adds me (MERGE2.java:323-327)
  std::set<std::pair<NodeId, uint64_t>> distinct;
  std::set<NodeId> coords, all;
  for (const auto& [n, v] : views) {
    if (v.members.empty()) continue;
    distinct.insert({v.members.front(), v.id});
    coords.insert(v.members.front());
    all.insert(v.members.begin(), v.members.end());
  }
  for (NodeId c : coords)
    if (views.count(c) != 0)
      for (NodeId m : views[c].members) all.erase(m);
  std::set<NodeId> participants = coords;
  participants.insert(all.begin(), all.end());
  bool merge = distinct.size() >= 2;
  if (merge && participants.size() == 1) {
    merge = merge_inconsistent_views_ >= 1;
    merge_inconsistent_views_ = merge ? 0 : merge_inconsistent_views_ + 1;
  } else {
    merge_inconsistent_views_ = 0;
  }
  if (merge) {
    NodeId leader = *coords.begin();
    for (NodeId c : coords)
      if (s_.address_order[c] < s_.address_order[leader]) leader = c;
    s_.trace(self_, "jgroups_merge2_different_views",
             {{"views", distinct.size()}, {"participants", participants.size()}, {"leader", leader}});
    if (leader == self_ && merge_id_ == 0) {
      // MergeTask.start() (Merger.java:499-529): each creator that answered with its view's
      // members, each other participant alone.
      std::map<NodeId, std::vector<NodeId>> asked;
      for (NodeId c : coords)
        if (views.count(c) != 0) asked[c] = views[c].members;
      for (NodeId p : participants)
        if (asked.count(p) == 0) asked[p] = {p};
      merge_start(asked);
    }
  }
  if (merge_task_) {
    const uint64_t gen = merge_task_gen_;
    s_.world.hosts.schedule_after(self_, merge_period_, s_.kinds.merge_task,
                                  [this, gen] { merge_task_run(gen); });
  }
}

// MergeTask.run() (Merger.java:541-594): a new merge id; MERGE_REQ to every coordinator (myself
// included) with its members; wait for all MERGE_RSPs or merge_timeout (:606-632). The merge id
// starts the MergeCanceller (1.5 x merge_timeout, :452-463).
void Member::merge_start(const std::map<NodeId, std::vector<NodeId>>& asked) {
  const uint64_t id = s_.next_merge_id++;
  merge_id_ = id;
  merge_leading_ = true;
  merge_coords_.clear();
  merge_rsps_.clear();
  merge_coords_ = asked;
  s_.trace(self_, "jgroups_merge_start", {{"merge_id", id}, {"coords", merge_coords_.size()}});
  s_.world.hosts.schedule_after(self_, s_.config.merge_timeout * 3 / 2, s_.kinds.merge_timeout,
                                [this, id] { merge_cancel(id); });
  for (const auto& [c, mbrs] : merge_coords_) {
    send_reliable(c, Msg::merge_req,
                  [leader = self_, id, mbrs = mbrs](Member& m) { m.merge_on_req(leader, id, mbrs); });
  }
  s_.world.hosts.schedule_after(self_, s_.config.merge_timeout, s_.kinds.merge_timeout,
                                [this, id] { merge_leader_done(id); });
}

// handleMergeRequest() (Merger.java:88-137): accept if this merge id is mine or none is set
// (else answer "rejected"); suspend the ViewHandler (its queue is cleared and requests are
// dropped); fetch the digests of the members (GET_DIGEST_REQ multicast, wait for all or
// merge_timeout / 2, :343-374); answer MERGE_RSP with my view id and those members.
void Member::merge_on_req(NodeId leader, uint64_t id, const std::vector<NodeId>& mbrs) {
  fd_heard_from(leader);
  if (merge_id_ != 0 && merge_id_ != id) {
    send_reliable(leader, Msg::merge_rsp, [me = self_, id](Member& l) {
      l.merge_on_rsp(me, id, true, ViewInfo{});
    });
    return;
  }
  if (merge_id_ == 0) {
    merge_id_ = id;
    s_.world.hosts.schedule_after(self_, s_.config.merge_timeout * 3 / 2, s_.kinds.merge_timeout,
                                  [this, id] { merge_cancel(id); });
  }
  handler_suspended_ = true;
  pending_.clear();
  merge_leader_ = leader;
  merge_req_mbrs_ = mbrs;
  digest_wait_.clear();
  for (NodeId n : mbrs)
    if (n != self_) digest_wait_.push_back(n);
  if (digest_wait_.empty()) {
    merge_send_rsp(id);
    return;
  }
  digest_active_ = true;
  multicast(Msg::digest_req, [asker = self_, id](Member& m) {
    m.fd_heard_from(asker);
    m.send_reliable(asker, Msg::digest_rsp, [from = m.self_, id](Member& x) {
      x.fd_heard_from(from);
      if (!x.digest_active_ || x.merge_id_ != id) return;
      x.digest_wait_.erase(std::remove(x.digest_wait_.begin(), x.digest_wait_.end(), from),
                           x.digest_wait_.end());
      if (x.digest_wait_.empty()) x.merge_send_rsp(id);
    });
  }, true);
  s_.world.hosts.schedule_after(self_, s_.config.merge_timeout / 2, s_.kinds.merge_timeout,
                                [this, id] {
                                  if (digest_active_ && merge_id_ == id) merge_send_rsp(id);
                                });
}

void Member::merge_send_rsp(uint64_t id) {
  digest_active_ = false;
  const ViewInfo v{view_id_, merge_req_mbrs_};
  send_reliable(merge_leader_, Msg::merge_rsp,
                [me = self_, id, v](Member& l) { l.merge_on_rsp(me, id, false, v); });
}

void Member::merge_on_rsp(NodeId from, uint64_t id, bool rejected, const ViewInfo& v) {
  fd_heard_from(from);
  if (!merge_leading_ || merge_id_ != id || merge_coords_.count(from) == 0) return;
  merge_rsps_[from] = rejected ? std::nullopt : std::optional<ViewInfo>(v);
  if (merge_rsps_.size() == merge_coords_.size()) merge_leader_done(id);
}

// The rest of MergeTask.run(): without every answer, or when I rejected, CANCEL_MERGE to the
// coordinators (:579-583); else consolidateMergeData() (:658-699): the members of every accepted
// answer, sorted by address, id = the largest view id + 1, and INSTALL_MERGE_VIEW to the
// accepting coordinators (sendMergeView, :265-308). Either way my ViewHandler resumes (:585).
void Member::merge_leader_done(uint64_t id) {
  if (!up_ || !merge_leading_ || merge_id_ != id) return;
  merge_leading_ = false;
  handler_suspended_ = false;
  std::vector<NodeId> accepted;
  for (const auto& [c, r] : merge_rsps_)
    if (r) accepted.push_back(c);
  const bool ok = merge_rsps_.size() == merge_coords_.size() && contains(accepted, self_);
  if (!ok) {
    s_.trace(self_, "jgroups_merge_cancelled", {{"merge_id", id}});
    for (const auto& [c, mbrs] : merge_coords_)
      send_reliable(c, Msg::cancel_merge, [id](Member& m) { m.merge_cancel(id); });
    return;
  }
  uint64_t max_id = 0;
  std::vector<NodeId> members;
  for (NodeId c : accepted) {
    max_id = std::max(max_id, merge_rsps_[c]->id);
    for (NodeId n : merge_rsps_[c]->members)
      if (!contains(members, n)) members.push_back(n);
  }
  std::sort(members.begin(), members.end(),
            [this](NodeId a, NodeId b) { return s_.address_order[a] < s_.address_order[b]; });
  const ViewInfo merged{max_id + 1, members};
  s_.trace(self_, "jgroups_merge_view", {{"merge_id", id}, {"view_id", merged.id}, {"members", members}});
  for (NodeId c : accepted)
    send_reliable(c, Msg::install_merge_view, [id, merged](Member& m) { m.merge_on_install(id, merged); });
}

// handleMergeView() (Merger.java:154-181): with the matching merge id, cast the merged view to my
// current members (castViewChangeWithDest: each installs it on receipt and acks), wait for their
// acks up to view_ack_collection_timeout, then cancelMerge() (the merge id is cleared and the
// ViewHandler resumes).
void Member::merge_on_install(uint64_t id, const ViewInfo& v) {
  if (merge_id_ != id) return;
  merge_cast_view_ = v.id;
  merge_awaiting_acks_.clear();
  const std::vector<NodeId> to = view_;
  for (NodeId n : to)
    if (n != self_) merge_awaiting_acks_.push_back(n);
  for (NodeId n : to) {
    send_reliable(n, Msg::view, [from = self_, v](Member& m) { m.on_view(from, v.id, v.members); });
  }
  const uint64_t cast = v.id;
  s_.world.hosts.schedule_after(self_, s_.config.view_ack_collection_timeout, s_.kinds.ack_timeout,
                                [this, id, cast] {
                                  if (merge_cast_view_ == cast) {
                                    merge_cast_view_ = 0;
                                    merge_cancel(id);
                                  }
                                });
  if (merge_awaiting_acks_.empty()) {
    merge_cast_view_ = 0;
    merge_cancel(id);
  }
}

// cancelMerge() (Merger.java:395-401) / handleMergeCancelled (:183-195) / the MergeCanceller.
void Member::merge_cancel(uint64_t id) {
  if (!up_ || id == 0 || merge_id_ != id) return;
  merge_id_ = 0;
  merge_leading_ = false;
  digest_active_ = false;
  handler_suspended_ = false;
}

}  // namespace fdsim::jgroups
