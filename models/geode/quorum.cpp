#include "models/geode/quorum.h"

#include <algorithm>

namespace fdsim::geode {

std::optional<MemberId> lead_member(const View& view, const Roles& roles) {
  if (view.weighed_with == &roles) return view.lead;
  for (const MemberId& m : view.members)
    if (!roles.is_locator(m.node)) return m;
  return std::nullopt;
}

int64_t member_weight(const MemberId& m, const View& view, const Roles& roles) {
  const int64_t extra = roles.extra(m.node);
  if (roles.is_locator(m.node)) return extra + 3;
  auto lead = lead_member(view, roles);
  return extra + (lead && *lead == m ? 15 : 10);
}

int64_t view_weight(const View& view, const Roles& roles) {
  if (view.weighed_with == &roles) return view.weight;  // cached by make_view
  const std::optional<MemberId> lead = lead_member(view, roles);
  int64_t w = 0;
  for (const MemberId& m : view.members)
    w += roles.extra(m.node) + (roles.is_locator(m.node) ? 3 : lead && *lead == m ? 15 : 10);
  return w;
}

int64_t removed_weight(const View& old_view, const std::vector<MemberId>& new_members,
                       const Roles& roles) {
  // A sorted copy of the new members: a binary search per old member, not a scan.
  std::vector<MemberId> sorted = new_members;
  std::sort(sorted.begin(), sorted.end());
  int64_t w = 0;
  for (const MemberId& m : old_view.members)
    if (!std::binary_search(sorted.begin(), sorted.end(), m))
      w += member_weight(m, old_view, roles);
  return w;
}

bool quorum_lost(const View& old_view, const std::vector<MemberId>& new_members,
                 const Roles& roles) {
  const int64_t removed = removed_weight(old_view, new_members, roles);
  return removed > 0 && 2 * removed >= view_weight(old_view, roles);
}

bool quorum_lost_dropping(const View& old_view, const std::vector<MemberId>& dropped,
                          const Roles& roles) {
  // The members of old_view that `without` would drop: each old member equal to some dropped
  // identity, counted once (with the entry stored in the view, as removed_weight does).
  std::vector<MemberId> distinct = dropped;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  int64_t removed = 0;
  for (const MemberId& d : distinct)
    if (const MemberId* m = old_view.find(d)) removed += member_weight(*m, old_view, roles);
  return removed > 0 && 2 * removed >= view_weight(old_view, roles);
}

}  // namespace fdsim::geode
