#pragma once
// Buddy sets and preferred lists (docs/models/load-sharing.md, "Regions, buddies and preferred lists").
//
// Contract: with B = min(buddy_size, N - 1) and offsets o_1, o_2, ... = +1, -1, +2, -2, ...,
// node i's k-th preference is (i + o_k) mod N (k = 0..B-1 here). For every k the map
// i -> preferred(i)[k] is a bijection of the nodes (a cyclic shift), so each node is the k-th
// choice of exactly one other node, and the B preferences of a node are distinct and never the
// node itself. observers(i) are the nodes that have i in their preferred list, in the same k
// order: observers(i)[k] = (i - o_k) mod N has i as its k-th preference. A node's broadcasts go
// to its observers (equal, as a set, to its preferred list whenever the offsets are symmetric,
// i.e. B even or B = N - 1 with N even).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/engine/ids.h"

namespace fdsim::loadsharing {

// The first b offsets +1, -1, +2, -2, ...
std::vector<int64_t> preference_offsets(size_t b);

class BuddyGraph {
 public:
  BuddyGraph(size_t node_count, size_t buddy_size);

  size_t node_count() const { return n_; }
  size_t buddy_count() const { return b_; }  // B after the cap
  const std::vector<NodeId>& preferred(NodeId i) const { return preferred_[i]; }
  const std::vector<NodeId>& observers(NodeId i) const { return observers_[i]; }

 private:
  size_t n_;
  size_t b_;
  std::vector<std::vector<NodeId>> preferred_;
  std::vector<std::vector<NodeId>> observers_;
};

}  // namespace fdsim::loadsharing
