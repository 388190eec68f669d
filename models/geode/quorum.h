#pragma once
// Quorum weights for partition detection (docs/models/geode-membership.md, "Quorum").
//
// Contract: a member weighs 10, plus 5 if it is the lead member (the first non-locator member
// of the view, in view order); a locator weighs 3; every member adds its extra weight
// (Roles::extra, Geode's member weight: GMSMembershipView.memberWeight). A new view loses quorum when the members of
// the old view that it removes weigh at least half of the old view's weight (lead computed in
// the old view). Pure functions; no randomness.

#include <optional>
#include <vector>

#include "models/geode/view.h"

namespace fdsim::geode {

std::optional<MemberId> lead_member(const View& view, const Roles& roles);
int64_t member_weight(const MemberId& m, const View& view, const Roles& roles);
int64_t view_weight(const View& view, const Roles& roles);
// Weight (in `old_view`) of the members of `old_view` that `new_members` no longer contains.
int64_t removed_weight(const View& old_view, const std::vector<MemberId>& new_members,
                       const Roles& roles);
bool quorum_lost(const View& old_view, const std::vector<MemberId>& new_members,
                 const Roles& roles);
// quorum_lost(old_view, without(old_view.members, dropped), roles), in time proportional to
// the view size plus |dropped| log (view size), without copying the view (every member runs it
// when it installs a view).
bool quorum_lost_dropping(const View& old_view, const std::vector<MemberId>& dropped,
                          const Roles& roles);

}  // namespace fdsim::geode
