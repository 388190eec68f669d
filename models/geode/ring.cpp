#include "models/geode/ring.h"

namespace fdsim::geode {

std::optional<MemberId> next_neighbour(const View& view, const MemberId& me,
                                       const MemberId& after, const std::set<MemberId>& suspects) {
  const size_t n = view.size();
  auto my_index = view.index_of(me);
  if (n < 2 || !my_index) return std::nullopt;
  bool other_trusted = false;
  for (const MemberId& m : view.members)
    if (!(m == me) && !suspects.count(m)) other_trusted = true;
  if (!other_trusted) return std::nullopt;
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
