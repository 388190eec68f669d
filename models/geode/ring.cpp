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

std::optional<MemberId> next_neighbour(const View& view, const MemberId& me,
                                       const MemberId& after, const std::set<MemberId>& suspects,
                                       NeighbourWalk& walk) {
  const size_t n = view.size();
  auto my_index = view.index_of(me);
  if (n < 2 || !my_index) return std::nullopt;
  const size_t start = view.index_of(after).value_or(*my_index);
  // Distance walked forward from a to b (wrapping).
  auto dist = [n](size_t a, size_t b) { return (b + n - a) % n; };
  size_t i = start;
  size_t from = start;
  if (walk.view == &view) {
    const size_t span = walk.to == walk.from ? n : dist(walk.from, walk.to);
    const size_t d = dist(walk.from, start);
    if (d < span) {
      // start lies in [from, to): every position after it up to `to` is still suspected.
      from = walk.from;
      i = (walk.to + n - 1) % n;
    }
  }
  std::optional<MemberId> found;
  size_t end = i;
  for (size_t step = 0; step < n; ++step) {
    i = (i + 1) % n;
    const MemberId& cand = view.members[i];
    end = i;
    if (cand == me) break;
    if (!suspects.count(cand)) {
      found = cand;
      break;
    }
  }
  walk = NeighbourWalk{&view, from, end};
  return found;
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
