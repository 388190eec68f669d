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
}  // namespace

EventId ViewCreator::timer_at(SimTime t, EventKind kind, std::function<void()> fn) {
  return m_.at(t, kind, [this, g = gen_, fn = std::move(fn)] {
    if (g == gen_) fn();
  });
}

void ViewCreator::activate() {
  if (active_) return;
  active_ = true;
  m_.trace("coordinator_active", json::object());
}

void ViewCreator::deactivate() {
  ++gen_;
  Simulator& sim = m_.shared_.world.sim;
  sim.cancel(collection_timer_);
  sim.cancel(ack_timer_);
  active_ = false;
  busy_ = false;
  pending_removals_.clear();
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

void ViewCreator::queue_removal(const MemberId& target) {
  if (!active_ || !m_.in_view(target) || target == m_.me_) return;
  if (listed(pending_removals_, target)) return;               // duplicate
  if (busy_ && !preparing_.contains(target)) return;           // the view in the making drops it
  pending_removals_.push_back(target);
  if (!first_queued_) first_queued_ = m_.now();
  if (!busy_) schedule_collection();
}

void ViewCreator::queue_join(const MemberId& joiner) {
  if (!active_ || m_.in_view(joiner) || listed(pending_joins_, joiner)) return;
  if (busy_ && preparing_.contains(joiner)) return;
  // The joiner's old identity (same host, earlier incarnation) goes in the same view.
  for (const MemberId& m : m_.view_->members)
    if (m.node == joiner.node && !listed(pending_removals_, m)) pending_removals_.push_back(m);
  pending_joins_.push_back(joiner);
  m_.trace("join_queued", {{"joiner", joiner.node}, {"incarnation", joiner.incarnation}});
  if (!first_queued_) first_queued_ = m_.now();
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
  std::vector<MemberId> members = without(cur.members, pending_removals_);
  for (MemberId j : pending_joins_) {
    j.join_view = id;
    members.push_back(j);
  }
  pending_removals_.clear();
  pending_joins_.clear();
  first_queued_.reset();
  prepare(make_view(id, std::move(members), m_.shared_.roles));
}

void ViewCreator::take_over(View v) {
  deactivate();
  active_ = true;
  prepare(std::move(v));
}

void ViewCreator::prepare(View v) {
  busy_ = true;
  preparing_ = std::move(v);
  const std::vector<MemberId> removed = removed_from_installed(preparing_);
  if (m_.shared_.config.partition_detection &&
      quorum_lost(*m_.view_, preparing_.members, m_.shared_.roles)) {
    declare_partition(preparing_);
    return;
  }
  m_.trace("view_prepare", {{"view_id", preparing_.id},
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
  ack_timer_ = timer_at(m_.now() + m_.shared_.config.view_ack_timeout,
                        m_.shared_.kinds.ack_timeout, [this] { ack_deadline(); });
}

void ViewCreator::on_ack(const MemberId& from, int64_t view_id) {
  if (!busy_ || view_id != preparing_.id || !awaiting_.erase(from)) return;
  if (awaiting_.empty() && checking_.empty() && m_.shared_.world.sim.pending(ack_timer_)) {
    m_.shared_.world.sim.cancel(ack_timer_);
    install();
  }
}

void ViewCreator::ack_deadline() {
  if (awaiting_.empty()) {
    install();
    return;
  }
  const std::vector<MemberId> silent(awaiting_.begin(), awaiting_.end());
  m_.trace("view_ack_timeout", {{"view_id", preparing_.id}, {"unresponsive", nodes_of(silent)}});
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
  m_.trace("view_unresponsive_removed", {{"view_id", preparing_.id}, {"removed", nodes_of(failed_)}});
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
  for (const MemberId& m : v.members)
    if (!(m == m_.me_))
      m_.send(Msg::install_view, m, v.size(), [from = m_.me_, shared_view, removed](Member& d) {
        d.on_install_view(from, shared_view, removed);
      });
  for (const MemberId& m : removed)
    m_.send(Msg::install_view, m, v.size(), [from = m_.me_, shared_view, removed](Member& d) {
      d.on_install_view(from, shared_view, removed);
    });
  m_.install_view(v, removed, /*created_here=*/true);
  if (active_ && first_queued_) schedule_collection();
}

void ViewCreator::declare_partition(const View& v) {
  const std::vector<MemberId> removed = removed_from_installed(v);
  m_.trace("partition_declared", {{"view_id", v.id}, {"lost", nodes_of(removed)}});
  m_.shared_.signals.partition_declared(m_.now(), m_.node_);
  for (const MemberId& m : v.members)
    if (!(m == m_.me_))
      m_.send(Msg::network_partition, m, 0,
              [from = m_.me_](Member& d) { d.on_network_partition(from); });
  timer_at(m_.now() + m_.shared_.config.partition_shutdown, m_.shared_.kinds.partition_shutdown,
           [this] { m_.forced_disconnect(DisconnectReason::partition); });
}

}  // namespace fdsim::geode
