#include "models/geode/view_creator.h"

#include <algorithm>

#include "models/geode/member.h"
#include "models/geode/quorum.h"

namespace fdsim::geode {

using nlohmann::json;

namespace {
bool listed(const std::vector<MemberId>& v, const MemberId& m) {
  return std::find(v.begin(), v.end(), m) != v.end();
}
// A sorted copy, for binary searches in a list that may hold a tenth of the ring.
std::vector<MemberId> sorted(std::vector<MemberId> v) {
  std::sort(v.begin(), v.end());
  return v;
}
bool in_sorted(const std::vector<MemberId>& v, const MemberId& m) {
  return std::binary_search(v.begin(), v.end(), m);
}
}  // namespace

EventId ViewCreator::timer_at(SimTime t, EventKind kind, std::function<void()> fn) {
  return m_.at(t, kind, [this, g = gen_, fn = std::move(fn)] {
    if (g == gen_) fn();
  });
}

void ViewCreator::activate() {
  if (active_) return;
  active_ = true;
  if (m_.tracing()) m_.trace("coordinator_active", json::object());
}

bool ViewCreator::source_rules() const { return m_.source_rules(); }

void ViewCreator::deactivate() {
  ++gen_;
  Simulator& sim = m_.shared_.world.sim;
  sim.cancel(collection_timer_);
  sim.cancel(ack_timer_);
  sim.cancel(healthy_timer_);
  processor_ = ViewReplyProcessor{};
  healthy_phase_ = false;
  healthy_suspects_.clear();
  healthy_unsettled_ = 0;
  ack_wait_ = false;
  take_over_view_ = false;
  ++healthy_round_;
  active_ = false;
  busy_ = false;
  clear_pending_removals();
  pending_joins_.clear();
  first_queued_.reset();
  awaiting_.clear();
  checking_.clear();
  failed_.clear();
}

std::vector<MemberId> ViewCreator::removed_from_installed(const View& v) const {
  std::vector<MemberId> out;
  if (!m_.view_) return out;
  for (const MemberId& m : m_.view_->members)
    if (!v.contains(m)) out.push_back(m);
  return out;
}

void ViewCreator::add_pending_removal(const MemberId& m) {
  if (!pending_removal_set_.insert(m).second) return;
  pending_removals_.push_back(m);
  if (healthy_phase_ && healthy_suspects_.count(m) > 0) --healthy_unsettled_;
}

void ViewCreator::clear_pending_removals() {
  pending_removals_.clear();
  pending_removal_set_.clear();
  healthy_unsettled_ = healthy_suspects_.size();  // none has a pending removal now
}

void ViewCreator::queue_removal(const MemberId& target) {
  if (!active_ || !m_.in_view(target) || target == m_.me_) return;
  if (removal_pending(target)) return;                         // duplicate
  if (!source_rules()) {
    if (busy_ && !preparing_.contains(target)) return;         // the view in the making drops it
    add_pending_removal(target);
    if (!first_queued_) first_queued_ = m_.now();
    if (!busy_) schedule_collection();
    return;
  }
  // GMSJoinLeave.processRemoveMemberMessage (coordinator): recordViewRequest, then
  // prepareProcessor.processRemoveRequest.
  add_pending_removal(target);
  if (!first_queued_) first_queued_ = busy_ ? last_take_ : m_.now();
  if (!busy_) {
    schedule_collection();
    return;
  }
  if (ack_wait_) {
    processor_.process_remove_request(target);
    if (!processor_.waiting()) wait_over();
  } else if (healthy_phase_) {
    reevaluate_healthy();
  }
}

void ViewCreator::member_suspected(const MemberId& m) {
  if (!active_ || !busy_ || !ack_wait_) return;
  processor_.member_suspected(m);
  if (!processor_.waiting()) wait_over();
}

void ViewCreator::queue_join(const MemberId& joiner) {
  if (!active_ || m_.in_view(joiner) || listed(pending_joins_, joiner)) return;
  if (busy_ && preparing_.contains(joiner)) return;
  // wiki: the joiner's old identity (same host, earlier incarnation) goes in the same view.
  // Source rules: it stays (GMSJoinLeave.createAndSendView's oldIDs is never filled).
  if (!source_rules())
    for (const MemberId& m : m_.view_->members)
      if (m.node == joiner.node) add_pending_removal(m);
  pending_joins_.push_back(joiner);
  if (m_.tracing()) m_.trace("join_queued", {{"joiner", joiner.node}, {"incarnation", joiner.incarnation}});
  if (!first_queued_) first_queued_ = (source_rules() && busy_) ? last_take_ : m_.now();
  if (!busy_) schedule_collection();
}

void ViewCreator::schedule_collection() {
  if (m_.shared_.world.sim.pending(collection_timer_) || !first_queued_) return;
  const SimTime due = std::max(m_.now(), *first_queued_ + m_.shared_.config.request_collection);
  collection_timer_ = timer_at(due, m_.shared_.kinds.collect, [this] { create_view(); });
}

void ViewCreator::create_view() {
  if (!active_ || busy_ || !m_.view_) return;
  if (pending_removals_.empty() && pending_joins_.empty()) return;
  const View& cur = *m_.view_;
  const int64_t id = cur.id + 1;
  if (source_rules()) {
    // GMSJoinLeave.ViewCreator.createAndSendView.
    last_take_ = m_.now();
    std::vector<MemberId> removals, strangers;
    for (const MemberId& r : pending_removals_) (cur.contains(r) ? removals : strangers).push_back(r);
    std::vector<MemberId> joins;
    for (const MemberId& j : pending_joins_)
      if (!cur.contains(j)) joins.push_back(j);
    clear_pending_removals();
    pending_joins_.clear();
    first_queued_.reset();
    tell_removed(strangers);  // "unknown, probably rogue": told, no view for them
    std::vector<MemberId> members = without(cur.members, removals);
    if (joins.empty() && members == cur.members) {
      if (m_.tracing()) m_.trace("view_unchanged", {{"view_id", cur.id}});
      return;  // no membership change: no view
    }
    for (MemberId j : joins) {
      j.join_view = id;
      members.push_back(j);
    }
    // sendRemoveMessages(removalReqs, ..) before the prepare: leavers are leaveReqs, not
    // removalReqs (GMSJoinLeave.java:2508-2520, 2582), so they get no RemoveMember.
    std::vector<MemberId> told;
    for (const MemberId& r : removals)
      if (m_.left_.count(r) == 0) told.push_back(r);
    tell_removed(told);
    prepare(make_view(id, std::move(members), m_.shared_.roles));
    return;
  }
  std::vector<MemberId> members = without(cur.members, pending_removals_);
  for (MemberId j : pending_joins_) {
    j.join_view = id;
    members.push_back(j);
  }
  clear_pending_removals();
  pending_joins_.clear();
  first_queued_.reset();
  prepare(make_view(id, std::move(members), m_.shared_.roles));
}

void ViewCreator::tell_removed(const std::vector<MemberId>& removed) {
  for (const MemberId& r : removed)
    m_.send(Msg::remove_member, r, 1,
            [from = m_.me_, r](Member& d) { d.on_remove_member(from, r); });
}

void ViewCreator::take_over(View v) {
  deactivate();
  active_ = true;
  take_over_view_ = true;
  prepare(std::move(v));
}

void ViewCreator::prepare(View v) {
  busy_ = true;
  preparing_ = std::move(v);
  const std::vector<MemberId> removed = removed_from_installed(preparing_);
  // Members removed because they left (leftMembers) are the view's shutdownMembers, not its
  // crashedMembers: GMSJoinLeave.isMajorityLost weighs only getCrashedMemberWeight
  // (GMSJoinLeave.java:1671-1690), so they stay in the list the quorum check keeps.
  preparing_.shutdown.clear();
  for (const MemberId& r : removed)
    if (m_.left_.count(r) > 0) preparing_.shutdown.push_back(r);
  std::vector<MemberId> kept = preparing_.members;
  kept.insert(kept.end(), preparing_.shutdown.begin(), preparing_.shutdown.end());
  if (m_.shared_.config.partition_detection &&
      quorum_lost(*m_.view_, kept, m_.shared_.roles)) {
    declare_partition(preparing_);
    return;
  }
  if (m_.tracing()) m_.trace("view_prepare", {{"view_id", preparing_.id},
                            {"members", nodes_of(preparing_.members)},
                            {"removed", nodes_of(removed)}});
  awaiting_.clear();
  checking_.clear();
  failed_.clear();
  for (const MemberId& m : preparing_.members)
    if (!(m == m_.me_)) awaiting_.insert(m);
  if (awaiting_.empty()) {
    install();
    return;
  }
  auto shared_view = std::make_shared<const View>(preparing_);
  for (const MemberId& m : awaiting_)
    m_.send(Msg::prepare_view, m, preparing_.size(),
            [from = m_.me_, shared_view](Member& d) { d.on_prepare_view(from, shared_view); });
  if (source_rules()) {
    // GMSJoinLeave.sendView(preparing): initialize, processPendingRequests (pending removal
    // requests minus the view's own removals), then waitForResponses.
    processor_.initialize(preparing_.id, awaiting_);
    std::vector<MemberId> pending;
    const std::vector<MemberId> removed_sorted = sorted(removed);
    for (const MemberId& r : pending_removals_)
      if (!in_sorted(removed_sorted, r)) pending.push_back(r);
    processor_.process_pending_requests({}, pending);
    ack_wait_ = true;
    // No early end here even if every recipient already has a queued removal: Geode's
    // processPendingRequests does not call checkIfDone (GMSJoinLeave.java:1974-1989), so the
    // wait runs to the next reply/suspicion/removal request or to view_ack_timeout.
  }
  ack_timer_ = timer_at(m_.now() + m_.shared_.config.view_ack_timeout,
                        m_.shared_.kinds.ack_timeout,
                        [this] { source_rules() ? wait_over() : ack_deadline(); });
}

void ViewCreator::on_ack(const MemberId& from, int64_t view_id) {
  if (source_rules()) {
    if (!busy_ || !ack_wait_) return;
    processor_.process_view_response(view_id, from);
    if (!processor_.waiting()) wait_over();
    return;
  }
  if (!busy_ || view_id != preparing_.id || !awaiting_.erase(from)) return;
  if (awaiting_.empty() && checking_.empty() && m_.shared_.world.sim.pending(ack_timer_)) {
    m_.shared_.world.sim.cancel(ack_timer_);
    install();
  }
}

// --- Source rules: the end of the wait, removeHealthyMembers, the prepare loop. ---

void ViewCreator::wait_over() {
  if (!ack_wait_) return;
  ack_wait_ = false;
  m_.shared_.world.sim.cancel(ack_timer_);
  const std::set<MemberId> failed = processor_.finish_wait();
  if (failed.empty()) {
    install();
    return;
  }
  // prepareAndSendView: the unresponsive members are those that did not ack, less the
  // members this view removes anyway.
  const std::vector<MemberId> removed = sorted(removed_from_installed(preparing_));
  std::set<MemberId> unresponsive;
  for (const MemberId& m : processor_.not_replied())
    if (!in_sorted(removed, m)) unresponsive.insert(m);
  if (m_.tracing()) m_.trace("view_ack_wait_over",
           {{"view_id", preparing_.id},
            {"not_acked", nodes_of(std::vector<MemberId>(processor_.not_replied().begin(),
                                                          processor_.not_replied().end()))},
            {"failed_to_respond", nodes_of(std::vector<MemberId>(failed.begin(), failed.end()))}});
  if (unresponsive.empty()) {
    install();
    return;
  }
  remove_healthy(std::move(unresponsive));
}

void ViewCreator::remove_healthy(std::set<MemberId> unresponsive) {
  // ViewCreator.removeHealthyMembers: members with a pending removal request are not
  // checked; the others get one availability check each, in parallel.
  healthy_phase_ = true;
  healthy_suspects_ = std::move(unresponsive);
  const uint64_t round = ++healthy_round_;
  // filterMembers (GMSJoinLeave.java:2838-2851): members with a pending removal request are
  // "matching" (Geode's testFlagForRemovalRequest) and are not checked.
  std::vector<MemberId> to_check, filtered;
  for (const MemberId& m : healthy_suspects_)
    (removal_pending(m) ? filtered : to_check).push_back(m);
  healthy_unsettled_ = to_check.size();
  if (m_.tracing()) m_.trace("view_availability_checks", {{"view_id", preparing_.id},
                                        {"checking", nodes_of(to_check)},
                                        {"pending_removal", nodes_of(filtered)}});
  if (to_check.empty()) {
    finish_prepare();
    return;
  }
  healthy_timer_ = timer_at(m_.now() + m_.shared_.config.view_ack_timeout,
                            m_.shared_.kinds.prepare_give_up, [this] { finish_prepare(); });
  for (const MemberId& m : to_check) {
    if (round != healthy_round_) break;  // ended by a result that came at once
    m_.check_if_available(m, [this, g = gen_, round, m](bool available) {
      if (g == gen_ && round == healthy_round_) healthy_result(m, available);
    });
  }
  if (round == healthy_round_) reevaluate_healthy();
}

void ViewCreator::healthy_result(const MemberId& m, bool available) {
  if (!healthy_phase_) return;
  if (available && healthy_suspects_.erase(m) > 0 && !removal_pending(m)) --healthy_unsettled_;
  reevaluate_healthy();
}

void ViewCreator::reevaluate_healthy() {
  if (!healthy_phase_) return;
  if (healthy_unsettled_ > 0) return;  // still waiting for a check (or a request)
  finish_prepare();
}

void ViewCreator::finish_prepare() {
  if (!healthy_phase_) return;
  healthy_phase_ = false;
  ++healthy_round_;
  m_.shared_.world.sim.cancel(healthy_timer_);
  const std::vector<MemberId> failures(healthy_suspects_.begin(), healthy_suspects_.end());
  healthy_suspects_.clear();
  healthy_unsettled_ = 0;
  if (failures.empty()) {
    install();
    return;
  }
  // The failures are told they are removed (sendRemoveMessages) and a view without them,
  // id + 1, is prepared again (the do-while loop of prepareAndSendView).
  if (m_.tracing()) m_.trace("view_unresponsive_removed",
           {{"view_id", preparing_.id}, {"removed", nodes_of(failures)}});
  View next = make_view(preparing_.id + 1, without(preparing_.members, failures),
                        m_.shared_.roles);
  tell_removed(failures);
  prepare(std::move(next));
}

void ViewCreator::ack_deadline() {
  if (awaiting_.empty()) {
    install();
    return;
  }
  const std::vector<MemberId> silent(awaiting_.begin(), awaiting_.end());
  if (m_.tracing()) m_.trace("view_ack_timeout", {{"view_id", preparing_.id}, {"unresponsive", nodes_of(silent)}});
  checking_ = awaiting_;
  awaiting_.clear();
  for (const MemberId& s : silent)
    m_.run_availability_check(s, false, [this, g = gen_, s](bool passed) {
      if (g == gen_) availability_result(s, passed);
    });
}

void ViewCreator::availability_result(const MemberId& m, bool passed) {
  if (!checking_.erase(m)) return;
  if (!passed) failed_.push_back(m);
  if (!checking_.empty()) return;
  if (failed_.empty()) {
    install();
    return;
  }
  if (m_.tracing()) m_.trace("view_unresponsive_removed", {{"view_id", preparing_.id}, {"removed", nodes_of(failed_)}});
  View next = make_view(preparing_.id + 1, without(preparing_.members, failed_), m_.shared_.roles);
  failed_.clear();
  prepare(std::move(next));
}

void ViewCreator::install() {
  const View v = preparing_;
  const std::vector<MemberId> removed = removed_from_installed(v);
  busy_ = false;
  awaiting_.clear();
  checking_.clear();
  auto shared_view = std::make_shared<const View>(v);
  // One copy of the removed list shared by every message (a copy per recipient made a removal
  // of k members from a view of n cost n k entries of memory).
  auto shared_removed = std::make_shared<const std::vector<MemberId>>(removed);
  auto deliver = [from = m_.me_, shared_view, shared_removed](Member& d) {
    d.on_install_view(from, shared_view, *shared_removed);
  };
  for (const MemberId& m : v.members)
    if (!(m == m_.me_)) m_.send(Msg::install_view, m, v.size(), deliver);
  for (const MemberId& m : removed) m_.send(Msg::install_view, m, v.size(), deliver);
  const bool take_over = take_over_view_;
  take_over_view_ = false;
  m_.install_view(shared_view, removed, /*created_here=*/true);
  // Source rules: after a take-over view the request timer starts afresh (ViewCreator.run
  // sets okayToCreateView after sendInitialView).
  if (source_rules() && take_over && first_queued_) first_queued_ = m_.now();
  if (active_ && first_queued_) schedule_collection();
}

void ViewCreator::declare_partition(const View& v) {
  const std::vector<MemberId> removed = removed_from_installed(v);
  if (m_.tracing()) m_.trace("partition_declared", {{"view_id", v.id}, {"lost", nodes_of(removed)}});
  m_.shared_.signals.partition_declared(m_.now(), m_.node_);
  for (const MemberId& m : v.members)
    if (!(m == m_.me_))
      m_.send(Msg::network_partition, m, 0,
              [from = m_.me_](Member& d) { d.on_network_partition(from); });
  timer_at(m_.now() + m_.shared_.config.partition_shutdown, m_.shared_.kinds.partition_shutdown,
           [this] { m_.forced_disconnect(DisconnectReason::partition); });
}

}  // namespace fdsim::geode
