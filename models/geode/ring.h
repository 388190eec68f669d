#pragma once
// Ring geometry of a view: whom a member watches and whom it sends heartbeats to (docs/models/geode-membership.md,
// "Heartbeats and watching").
//
// Contract (pure functions of the view, the member and its suspect set):
// - next_neighbour(view, me, after, suspects): the first member after `after` in view order
//   (wrapping) that is not suspected; none if that walk reaches `me`, or if every member other
//   than `me` is suspected (Geode's setNextNeighbor). `after` = me gives the normal neighbour;
//   `after` = a member being checked gives "the member after the one being checked". If
//   `after` is not in the view, the walk starts from `me`.
// - heartbeat_targets(view, me, predecessors): the coordinator (unless I am it), then the ring
//   predecessors walking backwards from me (wrapping), skipping the coordinator, stopping after
//   `predecessors` sends or on reaching me. Empty for views of fewer than 2 members.

#include <optional>
#include <set>
#include <vector>

#include "models/geode/view.h"

namespace fdsim::geode {

std::optional<MemberId> next_neighbour(const View& view, const MemberId& me,
                                       const MemberId& after, const std::set<MemberId>& suspects);

// The last walk of next_neighbour on `view`: it went from position `from` to position `to`,
// every position strictly between them (wrapping; the whole ring but `from` when to == from)
// being suspected. Valid only while the view is the same and no member has left the suspect
// set (members added keep it true): the caller resets it (= {}) when its view changes or a
// suspect is removed. A walk that starts inside that stretch jumps to `to`, so that checks of
// the k members of a suspected block, started one after another, cost O(k) in all instead of
// O(k^2) (a partition of a tenth of the ring).
struct NeighbourWalk {
  const View* view = nullptr;
  size_t from = 0, to = 0;
};
// next_neighbour with the memo: the same answer, read and updated through `walk`.
std::optional<MemberId> next_neighbour(const View& view, const MemberId& me,
                                       const MemberId& after, const std::set<MemberId>& suspects,
                                       NeighbourWalk& walk);

std::vector<MemberId> heartbeat_targets(const View& view, const MemberId& me,
                                        size_t predecessors);

}  // namespace fdsim::geode
