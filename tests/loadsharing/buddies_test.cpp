#include "models/loadsharing/buddies.h"

#include <gtest/gtest.h>

#include <set>

namespace fdsim::loadsharing {
namespace {

TEST(PreferredLists, OffsetsAlternatePlusMinus) {
  EXPECT_EQ(preference_offsets(5), (std::vector<int64_t>{1, -1, 2, -2, 3}));
  EXPECT_TRUE(preference_offsets(0).empty());
}

TEST(PreferredLists, KthPreferenceIsNodePlusOffsetModN) {
  const BuddyGraph g(16, 10);
  ASSERT_EQ(g.buddy_count(), 10u);
  EXPECT_EQ(g.preferred(0), (std::vector<NodeId>{1, 15, 2, 14, 3, 13, 4, 12, 5, 11}));
  EXPECT_EQ(g.preferred(7), (std::vector<NodeId>{8, 6, 9, 5, 10, 4, 11, 3, 12, 2}));
}

TEST(PreferredLists, BuddySizeIsCappedAtNMinusOne) {
  EXPECT_EQ(BuddyGraph(5, 10).buddy_count(), 4u);
  EXPECT_EQ(BuddyGraph(1, 10).buddy_count(), 0u);
  EXPECT_EQ(BuddyGraph(11, 10).buddy_count(), 10u);
}

// The "each node is the k-th choice of exactly one other node" property, for several N and B,
// including odd B (asymmetric offsets) and B = N - 1 with N even (the +N/2 offset).
TEST(PreferredLists, EachNodeIsTheKthChoiceOfExactlyOneOtherNode) {
  for (size_t n : {2u, 3u, 4u, 7u, 10u, 16u, 17u, 32u}) {
    for (size_t b : {1u, 2u, 3u, 5u, 10u, 15u, 40u}) {
      const BuddyGraph g(n, b);
      const size_t bb = g.buddy_count();
      ASSERT_EQ(bb, std::min(b, n - 1));
      for (size_t k = 0; k < bb; ++k) {
        std::vector<int> chosen_by(n, 0);
        for (size_t i = 0; i < n; ++i) ++chosen_by[g.preferred(NodeId(i))[k]];
        for (size_t j = 0; j < n; ++j)
          EXPECT_EQ(chosen_by[j], 1) << "n=" << n << " b=" << b << " k=" << k << " node " << j;
      }
      for (size_t i = 0; i < n; ++i) {
        const auto& p = g.preferred(NodeId(i));
        std::set<NodeId> distinct(p.begin(), p.end());
        EXPECT_EQ(distinct.size(), bb) << "n=" << n << " b=" << b << " node " << i;
        EXPECT_EQ(distinct.count(NodeId(i)), 0u) << "n=" << n << " b=" << b << " node " << i;
      }
    }
  }
}

TEST(PreferredLists, ObserversAreTheInverseOfPreferences) {
  for (size_t n : {3u, 8u, 13u}) {
    for (size_t b : {1u, 4u, 5u, 12u}) {
      const BuddyGraph g(n, b);
      for (size_t i = 0; i < n; ++i) {
        const auto& obs = g.observers(NodeId(i));
        ASSERT_EQ(obs.size(), g.buddy_count());
        for (size_t k = 0; k < obs.size(); ++k)
          EXPECT_EQ(g.preferred(obs[k])[k], NodeId(i)) << "n=" << n << " b=" << b;
      }
    }
  }
}

TEST(PreferredLists, SymmetricOffsetsMakeObserversEqualToBuddies) {
  const BuddyGraph g(16, 10);
  for (size_t i = 0; i < 16; ++i) {
    const auto& p = g.preferred(NodeId(i));
    const auto& o = g.observers(NodeId(i));
    EXPECT_EQ(std::set<NodeId>(p.begin(), p.end()), std::set<NodeId>(o.begin(), o.end()));
  }
}

}  // namespace
}  // namespace fdsim::loadsharing
