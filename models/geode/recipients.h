#pragma once
// Recipients of a SuspectMembersMessage (docs/models/geode-membership.md, "Suspicion recipients").
//
// Contract:
// - view size <= small_view_size: every member of the view, in view order (the suspects and
//   the sender included).
// - larger views: candidates are the members other than the sender, the suspects and the
//   members the sender already suspects, in view order.
//   `current` (random_recipient = false): preferred coordinators until there are
//   preferred_in_fanout, then the sender, then non-preferred candidates in view order while
//   the list is shorter than max_recipients.
//   `wiki` (random_recipient = true): up to preferred_in_fanout preferred candidates, then the
//   sender, then, if the list is shorter than max_recipients, one candidate not yet listed
//   drawn uniformly with `rng` (exactly one uniform_int draw, and only when there is a
//   choice to make; `rng` is only read then, and may be null when random_recipient is false,
//   so that a member of a `current` ring holds no fan-out stream). The preferred part is capped at max_recipients - 1 so the total never
//   exceeds max_recipients.
// The sender is always in the list (it processes its own message).

#include <set>
#include <vector>

#include "models/geode/view.h"
#include "sim/engine/rng.h"

namespace fdsim::geode {

struct FanoutRules {
  size_t small_view_size = 4;
  size_t max_recipients = 7;
  size_t preferred_in_fanout = 5;
  bool random_recipient = true;
};

std::vector<MemberId> suspect_recipients(const View& view, const MemberId& sender,
                                         const std::vector<MemberId>& suspects,
                                         const std::set<MemberId>& sender_suspects,
                                         const Roles& roles, const FanoutRules& rules, Rng* rng);

// Geode's GMSMembershipView.getPreferredCoordinators(filter, me, max): the preferred
// coordinators other than me and not in `filter`, in view order, until there are `max`
// (the scan stops there); then me; then, while the list is shorter than `max`, the
// non-preferred members not in `filter` met before the scan stopped, in view order.
// (The recipients of a removal request: GMSJoinLeave.remove.)
std::vector<MemberId> preferred_coordinators(const View& view, const std::set<MemberId>& filter,
                                             const MemberId& me, size_t max,
                                             const Roles& roles);

}  // namespace fdsim::geode
