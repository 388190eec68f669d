// Joining through a locator (GMSJoinLeave.join -> findCoordinator, GMSJoinLeave.java:320-420,
// 1149-1266; GMSLocator.processFindCoordinatorRequest, GMSLocator.java:241-348): a joiner
// learns the coordinator only from a locator, so a repaired member cannot join while no
// locator host is up, and joins through the coordinator a locator names once one is.

#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
TEST(GeodeJoin, RepairedMemberCannotJoinWhileNoLocatorIsReachable) {
  // 5 members, the only locator is node 0 (also the coordinator), M = 1000 ms. Host 4 crashes
  // at 1 s, the locator's host at 2 s; m1 takes over and removes both. Host 4 is repaired at
  // 10 s: it asks locator 0 for the coordinator every join_retry (M), gets no answer and
  // sends no JoinRequest until the locator's host is back at 30 s. The restarted locator asks
  // its own location service, which answers from the view it persisted (m0's old identity
  // left out: m1); once it is in a view it names a coordinator to host 4, which then joins.
  GeodeConfig c = config(Profile::current, 5);
  c.locators = {0};
  Harness h(c);
  h.at(at_ms(1000), [&] { h.hosts.crash(4); });
  h.at(at_ms(2000), [&] { h.hosts.crash(0); });
  h.at(at_ms(10000), [&] { h.hosts.recover(4); });
  h.run_until_s(29.9);
  // By now m1 coordinates a view without the crashed identities, and the new m4 is outside it.
  ASSERT_TRUE(h.m(1).is_coordinator());
  EXPECT_FALSE(h.m(1).view()->contains(mid(0)));
  EXPECT_FALSE(h.m(1).view()->contains(mid(4)));
  EXPECT_TRUE(h.m(4).joining());
  EXPECT_FALSE(h.m(4).participating());
  EXPECT_FALSE(h.m(1).view()->contains(MemberId{4, 1, -1}));
  // It asked the locator every M from 10 s (the network drops what reaches a crashed host) and
  // sent no JoinRequest: it knows no coordinator.
  size_t asks = 0;
  for (const json& r : h.records("send", 4))
    if (r["msg"] == "geode.find_coordinator") {
      EXPECT_EQ(r["to"], 0);
      ++asks;
    }
  EXPECT_EQ(asks, 20u);  // 10 s, 11 s, ..., 29 s
  EXPECT_FALSE(h.first("send", 4, [](const json& r) { return r["msg"] == "geode.join_request"; }));

  h.at(at_ms(30000), [&] { h.hosts.recover(0); });
  h.run_until_s(40);
  // The restarted locator joined through m1, which its persisted view named.
  const auto m0_join = h.first("join_request_sent", 0);
  ASSERT_TRUE(m0_join);
  EXPECT_EQ((*m0_join)["coordinator"], 1);
  EXPECT_EQ(Harness::time_of(*m0_join), at_ms(30000));
  ASSERT_TRUE(h.m(0).participating());
  // Host 4's first JoinRequest goes to the coordinator a locator named, after 30 s.
  const auto m4_join = h.first("join_request_sent", 4);
  ASSERT_TRUE(m4_join);
  EXPECT_GT(Harness::time_of(*m4_join), at_ms(30000));
  const auto answer = h.first("find_coordinator_answered", 0, [](const json& r) { return r["joiner"] == 4; });
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["coordinator"], (*m4_join)["coordinator"]);
  EXPECT_TRUE(h.m(4).participating());
  const MemberId new0{0, 1, -1}, new4{4, 1, -1};
  for (NodeId n = 0; n < 5; ++n) {
    const View* v = h.m(n).view();
    ASSERT_NE(v, nullptr) << n;
    // The restarted locator, preferred, coordinates once it is in the view
    // (GMSMembershipView.getCoordinator: the first preferred member).
    EXPECT_EQ(v->coordinator.node, 0u) << n;
    EXPECT_EQ(v->coordinator.incarnation, 1u) << n;
    EXPECT_EQ(v->size(), 5u) << n;
    EXPECT_TRUE(v->contains(new0) && v->contains(new4)) << n;
  }
}

}  // namespace fdsim::geode::test
