#include "models/geode/ring.h"

namespace fdsim::geode {

std::optional<MemberId> next_neighbour(const View& view, const MemberId& me,
                                       const MemberId& after, const std::set<MemberId>& suspects) {
  const size_t n = view.size();
  auto my_index = view.index_of(me);
  if (n < 2 || !my_index) return std::nullopt;
  // No scan for "is any other member trusted": the walk below reaches `me` within n steps
  // (me is in the view), so it finds a trusted member exactly when one exists after `after`
  // before `me`; it takes at most (suspected members in the view) + 1 steps, O(log n) for the
  // start index and O(log s) per step. (A scan of the view here made start-up, one call per
  // member, quadratic in the view size: issue 26 item 7.)
  size_t i = view.index_of(after).value_or(*my_index);
  for (size_t step = 0; step < n; ++step) {
    i = (i + 1) % n;
    const MemberId& cand = view.members[i];
    if (cand == me) return std::nullopt;
    if (!suspects.count(cand)) return cand;
  }
  return std::nullopt;
}

std::vector<MemberId> heartbeat_targets(const View& view, const MemberId& me,
                                        size_t predecessors) {
  std::vector<MemberId> out;
  const size_t n = view.size();
  auto my_index = view.index_of(me);
  if (n < 2 || !my_index) return out;
  if (!(view.coordinator == me)) out.push_back(view.coordinator);
  size_t i = *my_index;
  size_t sent = 0;
  while (sent < predecessors) {
    i = (i + n - 1) % n;
    const MemberId& cand = view.members[i];
    if (cand == me) break;
    if (cand == view.coordinator) continue;
    out.push_back(cand);
    ++sent;
  }
  return out;
}

}  // namespace fdsim::geode
