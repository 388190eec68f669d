#pragma once
// A membership view and the node roles that decide who may coordinate it.
//
// Contract: a view is an id and an ordered member list (view order = admission order; the
// initial view is in node order). Its coordinator is the first member, in view order, that is
// a preferred coordinator; if no member is preferred, the first member. Preferred coordinators
// are the locators when partition detection is on, every member when it is off, and (a
// simplification of this simulator) every member when the scenario names no locators at all,
// so that a locator-less cluster still has a coordinator that receives suspicions.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <optional>
#include <set>
#include <vector>

#include "models/geode/member_id.h"

namespace fdsim::geode {

struct Roles {
  std::vector<bool> locator;  // by node
  bool partition_detection = true;
  std::vector<int64_t> extra_weight;  // by node (Geode's member weight); empty = all 0

  int64_t extra(NodeId n) const { return n < extra_weight.size() ? extra_weight[n] : 0; }

  bool is_locator(NodeId n) const { return n < locator.size() && locator[n]; }
  bool any_locator() const;
  // May become coordinator (Geode's preferredForCoordinator).
  bool preferred(NodeId n) const;
};

struct View {
  int64_t id = 0;
  std::vector<MemberId> members;  // view order
  MemberId coordinator;           // see the contract above
  // Positions in `members`, sorted by identity (node, incarnation; equal identities in view
  // order), filled by make_view(): lookups are O(log n) instead of a scan of the view (with a
  // scan per heartbeat and per installing member, large rings were quadratic or worse in
  // time). Lookups scan `members` when it does not match (a view built by hand).
  std::vector<uint32_t> by_identity;
  // Position in `members` of the one entry of each node (indexed by node id), kNoEntry when the
  // node has none, kSeveralEntries when it has more than one (two incarnations: the lookup then
  // binary-searches by_identity). Filled by make_view(). A lookup is one read instead of a
  // binary search: every heartbeat looks its sender up, and at 1e5 members the ~17 dependent
  // cache misses of the search made per-event cost grow with the ring.
  static constexpr uint32_t kNoEntry = UINT32_MAX;
  static constexpr uint32_t kSeveralEntries = UINT32_MAX - 1;
  std::vector<uint32_t> at_node;
  // Members of the previous view this view drops because they left (a leave request:
  // GMSMembershipView.shutdownMembers, GMSJoinLeave.java:2546-2552). They are not crashed
  // members: the quorum checks (getCrashedMemberWeight) do not count them. Filled by the
  // coordinator when it prepares the view; empty without churn.
  std::vector<MemberId> shutdown;
  // The quorum weight of the whole view and its lead member (quorum.h), computed once by
  // make_view() under `weighed_with`: every member that installs a view checks quorum against
  // the view it drops, and recomputing the O(n) weight there made one removal cost O(n^2)
  // across the ring. quorum.cpp uses them only when `weighed_with` is the Roles it is given
  // (a view built by hand, or weighed under other roles, is weighed from scratch).
  const Roles* weighed_with = nullptr;
  int64_t weight = 0;
  std::optional<MemberId> lead;
  // Positions of the preferred coordinators in `members` (view order), under weighed_with,
  // when only some members are preferred (locators with partition detection); the suspicion
  // fan-out reads them instead of scanning the view.
  bool some_preferred = false;
  std::vector<uint32_t> preferred_at;
  // The quorum check every member makes when it installs this view (Member::install_view:
  // isMajorityLost over the members this view drops from the member's previous view), memoised
  // per previous view: the check depends only on that view and on this view's install message,
  // and n members repeating it for k dropped members made a partition of a tenth of the ring
  // O(n k log n). Keyed by a weak_ptr, so a freed view's address reused by a later view never
  // hits; at most kQuorumMemo entries (the oldest is dropped). Mutable: a cache, not the view.
  static constexpr size_t kQuorumMemo = 8;
  mutable std::vector<std::pair<std::weak_ptr<const View>, bool>> quorum_lost_from;

  size_t size() const { return members.size(); }
  bool contains(const MemberId& m) const { return index_of(m).has_value(); }
  bool contains_node(NodeId n) const;
  std::optional<size_t> index_of(const MemberId& m) const;
  // The member entry of `m` as stored in the view (with its join_view), if present.
  const MemberId* find(const MemberId& m) const;
};

// Coordinator of a member list under the roles (invalid MemberId if the list is empty).
MemberId coordinator_of(const std::vector<MemberId>& members, const Roles& roles);
View make_view(int64_t id, std::vector<MemberId> members, const Roles& roles);
// `members` minus every member of `drop` (view order kept).
std::vector<MemberId> without(const std::vector<MemberId>& members,
                              const std::vector<MemberId>& drop);
// coordinator_of(`members` minus every member of the `drops` sets), without building the
// list: the scan stops at the first preferred member left (a view's locators come first
// unless they re-joined, so this is short).
MemberId coordinator_without(const std::vector<MemberId>& members,
                             std::initializer_list<const std::set<MemberId>*> drops,
                             const Roles& roles);

}  // namespace fdsim::geode
