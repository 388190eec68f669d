// Member: removal requests, coordinator take-over, view prepare/install, forced disconnect,
// partition announcements and the minimal re-join (docs/models/geode-membership.md, "Removal and views"; see member.h for the
// simplifications).
#include <algorithm>

#include "models/geode/member.h"
#include "models/geode/quorum.h"
#include "models/geode/recipients.h"
#include "models/geode/ring.h"
#include "models/geode/view_creator.h"

namespace fdsim::geode {

using nlohmann::json;

void Member::request_removal(const MemberId& target) {
  if (!participating() || target == me_) return;
  if (!in_view(target)) {
    // Source rules (GMSJoinLeave.remove): a member no longer in the view is told directly
    // that it is removed; no view is requested.
    if (source_rules() && target.valid()) {
      if (tracing()) trace("removal_of_non_member", {{"target", target.node}});
      send(Msg::remove_member, target, 1,
           [from = me_, target](Member& d) { d.on_remove_member(from, target); });
    }
    return;
  }
  if (!removal_requested_.insert(target).second) return;  // duplicate
  if (tracing()) trace("removal_requested", {{"target", target.node}});
  if (is_coordinator()) {
    creator().queue_removal(target);
    return;
  }
  if (source_rules()) {
    // GMSJoinLeave.remove: processed here first (processRemoveMemberMessage: I may take
    // over), then, if I am still not the coordinator, sent to the preferred coordinators (up
    // to SMALL_CLUSTER_SIZE + 1 = 10, me included; the subject is not filtered out, so a live
    // subject learns at once that it is removed).
    consider_take_over(target);
    if (!participating() || is_coordinator()) return;
    for (const MemberId& r : preferred_coordinators(*view_, {}, me_, 10, shared_.roles)) {
      if (r == me_) continue;
      send(Msg::remove_member, r, 1,
           [from = me_, target](Member& d) { d.on_remove_member(from, target); });
    }
    return;
  }
  // To the coordinator, unless it is the member being removed (a live subject learns from
  // the view that drops it).
  if (!(view_->coordinator == me_) && !(view_->coordinator == target))
    send(Msg::remove_member, view_->coordinator, 1,
         [from = me_, target](Member& d) { d.on_remove_member(from, target); });
  consider_take_over(target);
}

void Member::on_remove_member(const MemberId& from, const MemberId& target) {
  if (!participating()) return;
  // Source rules (GMSJoinLeave.processRemoveMemberMessage): requests from non-members are
  // ignored.
  if (source_rules() && !in_view(from)) return;
  if (target == me_) {
    if (tracing()) trace("removal_request_about_me", {{"from", from.node}});
    forced_disconnect(DisconnectReason::removed);
    return;
  }
  if (!in_view(target)) {
    // Source rules (GMSJoinLeave.java:761-767): the coordinator tells a target outside its
    // view ("removing a rogue process") at once that it is removed. (Geode also records the
    // request, so the next view creation tells it once more; that second message is not
    // modelled: the rogue has disconnected on the first.)
    if (source_rules() && is_coordinator() && target.valid()) {
      if (tracing()) trace("removal_of_rogue", {{"target", target.node}, {"from", from.node}});
      send(Msg::remove_member, target, 1,
           [from = me_, target](Member& d) { d.on_remove_member(from, target); });
    }
    return;
  }
  if (is_coordinator()) {
    removal_requested_.insert(target);
    creator().queue_removal(target);
    return;
  }
  if (removal_requested_.insert(target).second) consider_take_over(target);
}

void Member::on_leave_request(const MemberId& from, const MemberId& leaving) {
  if (!participating()) return;
  if (tracing()) trace("leave_request_received", {{"from", from.node}, {"member", leaving.node}});
  // GMSJoinLeave.java:649-652: a leave of an old member that is no longer in the view.
  if (!in_view(leaving) && leaving.join_view < view_->id) return;
  if (leaving == me_) {  // ~654-658: "I am being told to leave"
    forced_disconnect(DisconnectReason::removed);
    return;
  }
  left_.insert(leaving);
  if (!is_coordinator()) {
    consider_take_over(leaving);  // ~660-678: the check view without removed and left members
    return;
  }
  creator().queue_removal(leaving);  // ~680-685: recordViewRequest
}

void Member::consider_take_over(const MemberId& removed) {
  if (!participating() || is_coordinator()) return;
  // The view without removed and left members (leftMembers: GMSJoinLeave ~671, ~743).
  if (coordinator_without(view_->members, {&removal_requested_, &left_}, shared_.roles) == me_)
    become_coordinator(removed);
}

void Member::become_coordinator(const MemberId& old) {
  std::vector<MemberId> gone;
  for (const MemberId& m : view_->members)
    if (removal_requested_.count(m) || left_.count(m) || m == old) gone.push_back(m);
  const int64_t jump = 5 + stream(takeover_rng_, "geode.takeover").uniform_int(0, 9);
  const int64_t id = view_->id + jump;
  if (tracing()) trace("become_coordinator", {{"old_coordinator", view_->coordinator.node},
                               {"view_id", id}, {"removed", nodes_of(gone)}});
  creator().take_over(make_view(id, without(view_->members, gone), shared_.roles));
}

void Member::on_prepare_view(const MemberId& from, const std::shared_ptr<const View>& v) {
  if (disconnected_) return;
  if (view_ && v->id <= view_->id) return;  // stale
  if (!v->contains(me_)) return;
  if (tracing()) trace("view_prepared", {{"view_id", v->id}, {"from", from.node}});
  send(Msg::view_ack, from, 0,
       [me = me_, id = v->id](Member& d) { d.on_view_ack(me, id); });
}

void Member::on_view_ack(const MemberId& from, int64_t view_id) {
  if (!participating() || !creator_ || !creator_->active()) return;
  creator_->on_ack(from, view_id);
}

void Member::on_install_view(const MemberId& from, const std::shared_ptr<const View>& v,
                             const std::vector<MemberId>& removed) {
  if (disconnected_) return;
  if (view_ && v->id <= view_->id) return;  // stale
  if (!view_ && !v->contains(me_)) return;   // joining, and not admitted by this view
  (void)from;
  install_view(v, removed, false);
}

void Member::install_view(const std::shared_ptr<const View>& shared_view,
                          const std::vector<MemberId>& removed, bool created_here) {
  const View& v = *shared_view;
  if (!v.contains(me_)) {
    if (view_) {
      if (tracing()) trace("removed_from_view", {{"view_id", v.id}});
      forced_disconnect(DisconnectReason::removed);
    }
    return;
  }
  // Source rules (GMSJoinLeave.installView -> isMajorityLost): every member that installs a
  // view checks the weight of the members it drops (its own view, its own lead member) and
  // shuts down instead if it is at least half. (The coordinator checked before preparing.)
  if (source_rules() && shared_.config.partition_detection && view_ && !created_here &&
      v.id > view_->id && quorum_lost_installing(v, removed)) {
    forced_disconnect(DisconnectReason::partition);
    return;
  }
  // Drop the state of departed members; suspicions of members still in the view are kept.
  for (auto it = contact_.begin(); it != contact_.end();)
    it = v.contains(it->first) ? std::next(it) : contact_.erase(it);
  for (auto it = suspected_.begin(); it != suspected_.end();)
    it = v.contains(*it) ? std::next(it) : suspected_.erase(it);
  for (auto it = detectors_.begin(); it != detectors_.end();)
    it = v.contains(it->first) ? std::next(it) : detectors_.erase(it);
  recorded_.clear();
  if (source_rules()) {
    // GMSJoinLeave.java:1590-1597 (removeMembersFromCollectionIfNotInView): removedMembers
    // keeps every member still in the new view; only departed members are forgotten.
    for (auto it = removal_requested_.begin(); it != removal_requested_.end();)
      it = v.contains(*it) ? std::next(it) : removal_requested_.erase(it);
    for (auto it = left_.begin(); it != left_.end();)  // the same for leftMembers
      it = v.contains(*it) ? std::next(it) : left_.erase(it);
  } else {
    removal_requested_.clear();
  }

  view_ = shared_view;
  walk_ = {};  // a new view, and suspected_ may have lost members above
  last_view_ = shared_view;
  me_.join_view = v.find(me_)->join_view;
  joining_ = false;

  if (tracing()) trace("view_installed", {{"view_id", v.id}, {"coordinator", v.coordinator.node},
                                          {"members", nodes_of(v.members)}});
  if (v.coordinator == me_)
    creator().activate();
  else if (creator_)
    creator_->deactivate();
  recompute_neighbour();
  shared_.signals.view_installed(now(), node_, shared_view, created_here, removed);
  // Source rules (GMSJoinLeave.java:1547-1557): a member that did not create the view checks
  // whether it should coordinate once the members it knows are being removed are gone.
  if (source_rules() && !created_here && !(v.coordinator == me_) &&
      (!removal_requested_.empty() || !left_.empty()))
    consider_take_over(MemberId{});
}

bool Member::quorum_lost_installing(const View& v, const std::vector<MemberId>& removed) {
  // `removed` is a function of `v` (both come from one ViewCreator::install), so the answer
  // depends only on (v, view_): memoised on v (View::quorum_lost_from). A lost quorum ends this
  // member's membership, so the list for the trace is rebuilt only then.
  auto crashed_members = [&] {
    std::vector<MemberId> crashed;  // shutdown (left) members are not crashed members
    for (const MemberId& r : removed)
      if (view_->contains(r) &&
          std::find(v.shutdown.begin(), v.shutdown.end(), r) == v.shutdown.end())
        crashed.push_back(r);
    return crashed;
  };
  auto& memo = v.quorum_lost_from;
  auto hit = std::find_if(memo.begin(), memo.end(),
                          [&](const auto& e) { return e.first.lock() == view_; });
  bool lost = false;
  if (hit != memo.end()) {
    lost = hit->second;
  } else {
    lost = quorum_lost_dropping(*view_, crashed_members(), shared_.roles);
    if (memo.size() == View::kQuorumMemo) memo.erase(memo.begin());
    memo.emplace_back(view_, lost);
  }
  if (lost && tracing()) trace("quorum_lost_at_install", {{"view_id", v.id}, {"lost", nodes_of(crashed_members())}});
  return lost;
}

void Member::forced_disconnect(DisconnectReason why) {
  if (disconnected_) return;
  if (tracing()) trace("forced_disconnect",
        {{"reason", why == DisconnectReason::removed ? "removed" : "partition"}});
  reset_state();
  disconnected_ = true;
  joining_ = false;
  shared_.signals.disconnected(now(), node_, why);
  if (shared_.config.auto_reconnect) {
    reconnect_pending_ = true;
    after(shared_.config.reconnect_wait(), shared_.kinds.reconnect, [this] { reconnect(); });
  }
}

void Member::reconnect() {
  // InternalDistributedSystem.reconnect (IDS.java:2516-2600): after a forced disconnect the
  // attempt limit max-num-reconnect-tries is not checked (the check is inside
  // `if (!forcedDisconnect)`, ~2520-2540); the wait is reconnect_wait(); connectInternal
  // joins as a new member. The join retries (join_retry) until a view admits it.
  if (!disconnected_ || shared_.world.hosts.is_crashed(node_)) return;
  const uint32_t n = reconnects_ + 1;
  reset_state();
  reconnects_ = n;
  me_ = MemberId{node_, shared_.world.hosts.incarnation(node_) | (n << kReconnectShift), -1};
  disconnected_ = false;
  joining_ = true;
  reset_join_search();
  last_tick_ = now();
  xmit_anchor_ = now();  // a new channel: its own xmit task
  if (tracing()) trace("reconnect", {{"attempt", n}, {"incarnation", me_.incarnation}});
  shared_.signals.reconnect_started(now(), node_, me_);
  start_loops(Duration::zero());
  send_join();
  // GMSJoinLeave.join gives up after join-timeout (GMSJoinLeave.java:333-337, 379-381): the
  // attempt throws, InternalDistributedSystem.reconnect catches it (~2617-2630: continue),
  // disconnects the new system and waits max(max-wait-time-reconnect, 4 M) again
  // (~2552-2559) before the next attempt.
  after(shared_.config.join_timeout, shared_.kinds.reconnect, [this] { reconnect_attempt_failed(); });
}

void Member::reconnect_attempt_failed() {
  if (!joining_ || view_ || disconnected_) return;  // admitted (or stopped) meanwhile
  if (tracing()) trace("reconnect_attempt_failed", {{"attempt", reconnects_}});
  reset_state();
  disconnected_ = true;
  joining_ = false;
  reconnect_pending_ = true;
  after(shared_.config.reconnect_wait(), shared_.kinds.reconnect, [this] { reconnect(); });
}

void Member::on_network_partition(const MemberId& from) {
  if (!participating()) return;
  // Source rules (GMSJoinLeave.java:1462-1469): a NetworkPartition message from a member
  // outside the installed view is ignored.
  if (source_rules() && !in_view(from)) {
    if (tracing()) trace("partition_from_non_member_ignored", {{"from", from.node}});
    return;
  }
  if (tracing()) trace("partition_announced", {{"from", from.node}});
  forced_disconnect(DisconnectReason::partition);
}

void Member::reset_join_search() {
  join_round_ = 0;
  join_sent_round_ = 0;
  join_view_id_ = -1;
  join_tried_.clear();
  join_target_.reset();
}

void Member::send_join() {
  if (view_ || disconnected_ || !joining_) return;
  // attemptToJoin waited for a view and none came: the coordinator goes on the tried list
  // (GMSJoinLeave.java:366-368), which the locators skip while their view is not newer.
  if (join_target_) {
    join_tried_.insert(*join_target_);
    join_target_.reset();
  }
  const uint64_t round = ++join_round_;
  // The locators the member is configured with (nodes.locators), all asked every round. A
  // scenario without locators lets every configured member answer as one, asked one per round
  // in node order starting with the joiner's own node (its location service answers
  // in-process), so that a round costs at most one request, as with one locator.
  std::vector<NodeId> locators = shared_.config.locators;
  if (locators.empty()) {
    const std::vector<NodeId>& all = shared_.config.members;
    if (all.empty()) return;
    const auto own = std::find(all.begin(), all.end(), node_);
    const size_t start = own == all.end() ? 0 : size_t(own - all.begin());
    locators = {all[(start + size_t(round - 1)) % all.size()]};
  }
  net::Network& net = shared_.world.net;
  const uint32_t bytes = msg_bytes(Msg::join_request, 1 + join_tried_.size());
  for (NodeId l : locators) {
    if (view_ || round != join_round_) break;  // admitted meanwhile (answered in-process)
    if (l == node_) {
      // This host's own location service answers in-process (a locator that restarts asks
      // itself too: its locator starts before it joins).
      if (auto a = locator_answer(me_, join_view_id_, join_tried_))
        on_coordinator_found(round, a->first, a->second);
      continue;
    }
    shared_.signals.message_sent(now(), node_, Msg::join_request, bytes);
    net.send_reliable(node_, l, shared_.find_coordinator_type(net), bytes,
                      [&sh = shared_, l, joiner = me_, round, vid = join_view_id_,
                       tried = join_tried_] {
                        sh.at(l).on_find_coordinator(joiner, round, vid, tried);
                      });
  }
  after(shared_.config.join_retry, shared_.kinds.join_retry, [this] { send_join(); });
}

std::optional<std::pair<MemberId, int64_t>> Member::locator_answer(
    const MemberId& joiner, int64_t joiner_view_id, const std::set<MemberId>& tried) const {
  const View* v = nullptr;
  if (participating())
    v = view_.get();
  else if (joining_ && last_view_)
    v = last_view_.get();
  if (v == nullptr) return std::nullopt;
  const bool skip_tried = v->id <= joiner_view_id;
  auto eligible = [&](const MemberId& m) {
    return m.node != joiner.node && !(skip_tried && tried.count(m));
  };
  for (const MemberId& m : v->members)
    if (shared_.roles.preferred(m.node) && eligible(m)) return std::make_pair(m, v->id);
  for (const MemberId& m : v->members)
    if (eligible(m)) return std::make_pair(m, v->id);
  return std::nullopt;
}

void Member::on_find_coordinator(const MemberId& joiner, uint64_t round, int64_t joiner_view_id,
                                 const std::set<MemberId>& tried) {
  const auto a = locator_answer(joiner, joiner_view_id, tried);
  if (!a) return;
  if (tracing()) trace("find_coordinator_answered", {{"joiner", joiner.node}, {"coordinator", a->first.node},
                                      {"view_id", a->second}});
  net::Network& net = shared_.world.net;
  const uint32_t bytes = msg_bytes(Msg::join_request, 1);
  shared_.signals.message_sent(now(), node_, Msg::join_request, bytes);
  net.send_reliable(node_, joiner.node, shared_.find_coordinator_type(net), bytes,
                    [&sh = shared_, joiner, round, c = a->first, vid = a->second] {
                      Member& j = sh.at(joiner.node);
                      if (j.accepts(joiner)) j.on_coordinator_found(round, c, vid);
                    });
}

void Member::on_coordinator_found(uint64_t round, const MemberId& coordinator, int64_t view_id) {
  if (view_ || disconnected_ || !joining_ || round != join_round_) return;
  join_view_id_ = std::max(join_view_id_, view_id);
  if (join_sent_round_ == round) return;  // one JoinRequest per round: the first answer
  if (join_tried_.count(coordinator)) return;  // "still waiting for a join-response" from it
  join_sent_round_ = round;
  join_target_ = coordinator;
  if (tracing()) trace("join_request_sent", {{"coordinator", coordinator.node}, {"view_id", view_id}});
  send(Msg::join_request, coordinator, 1,
       [me = me_](Member& d) { d.on_join_request(me, me); });
}

void Member::on_join_request(const MemberId& from, const MemberId& joiner) {
  if (!participating()) return;
  (void)from;
  if (is_coordinator()) {
    creator().queue_join(joiner);
    return;
  }
  if (view_->coordinator == me_) return;
  if (tracing()) trace("join_forwarded", {{"joiner", joiner.node}, {"to", view_->coordinator.node}});
  send(Msg::join_request, view_->coordinator, 1,
       [me = me_, joiner](Member& d) { d.on_join_request(me, joiner); });
}

}  // namespace fdsim::geode
