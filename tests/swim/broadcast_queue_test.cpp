// The broadcast queue against memberlist's TransmitLimitedQueue rules.
#include <gtest/gtest.h>

#include "models/swim/broadcast_queue.h"

namespace fdsim::swim {
namespace {

Update suspect(NodeId n, uint32_t inc = 1) { return Update{UpdateKind::suspect, n, inc, 0}; }
Update alive(NodeId n, uint32_t inc = 1) { return Update{UpdateKind::alive, n, inc, n}; }

std::vector<NodeId> nodes(const Updates& u) {
  std::vector<NodeId> out;
  for (const Update& x : u) out.push_back(x.node);
  return out;
}

TEST(BroadcastQueue, NewUpdateAboutAMemberReplacesTheQueuedOne) {
  BroadcastQueue q;
  q.push(suspect(3));
  q.push(suspect(4));
  q.push(alive(3, 2));
  ASSERT_EQ(q.size(), 2u);
  const Updates u = q.take(2, 1400, 4);
  ASSERT_EQ(u.size(), 2u);
  // Same transmits: the larger message (alive) first, then the newest.
  EXPECT_EQ(u[0].kind, UpdateKind::alive);
  EXPECT_EQ(u[0].incarnation, 2u);
  EXPECT_EQ(u[1].node, 4u);
}

TEST(BroadcastQueue, FewestTransmitsFirstThenNewestAndDroppedAtTheLimit) {
  BroadcastQueue q;
  q.push(suspect(1));
  EXPECT_EQ(nodes(q.take(2, 1400, 3)), (std::vector<NodeId>{1}));  // 1 transmit
  q.push(suspect(2));
  q.push(suspect(5));
  // Node 1 has one transmit; 2 and 5 none: newest (5) first, then 2, then 1.
  EXPECT_EQ(nodes(q.take(2, 1400, 3)), (std::vector<NodeId>{5, 2, 1}));
  EXPECT_EQ(nodes(q.take(2, 1400, 3)), (std::vector<NodeId>{5, 2, 1}));  // 1 reaches 3
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(nodes(q.take(2, 1400, 3)), (std::vector<NodeId>{5, 2}));
  EXPECT_EQ(q.size(), 0u);
  EXPECT_TRUE(q.take(2, 1400, 3).empty());
}

TEST(BroadcastQueue, OnlyWhatFitsTheByteBudget) {
  BroadcastQueue q;
  q.push(suspect(1));
  q.push(suspect(2));
  q.push(suspect(3));
  // Each suspect takes 2 + 38 bytes: a budget of 80 fits two.
  EXPECT_EQ(q.take(2, 80, 4).size(), 2u);
  EXPECT_EQ(q.take(2, 39, 4).size(), 0u);  // free = 37 < 38
}

}  // namespace
}  // namespace fdsim::swim
