#include "models/loadsharing/buddies.h"

#include <algorithm>

namespace fdsim::loadsharing {

std::vector<int64_t> preference_offsets(size_t b) {
  std::vector<int64_t> out;
  out.reserve(b);
  for (size_t k = 0; k < b; ++k) {
    const int64_t step = int64_t(k / 2) + 1;
    out.push_back(k % 2 == 0 ? step : -step);
  }
  return out;
}

BuddyGraph::BuddyGraph(size_t node_count, size_t buddy_size)
    : n_(node_count), b_(node_count == 0 ? 0 : std::min(buddy_size, node_count - 1)) {
  const std::vector<int64_t> offsets = preference_offsets(b_);
  const int64_t n = int64_t(n_);
  preferred_.assign(n_, {});
  observers_.assign(n_, {});
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t o : offsets) {
      preferred_[size_t(i)].push_back(NodeId(((i + o) % n + n) % n));
      observers_[size_t(i)].push_back(NodeId(((i - o) % n + n) % n));
    }
  }
}

}  // namespace fdsim::loadsharing
