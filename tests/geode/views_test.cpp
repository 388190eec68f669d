// Acceptance cases 7, 8, 11 and 14: final-check budget, coordinator take-over, identity and
// incarnation in the TCP check, quorum loss. M = 1000 ms, 1 ms constant latency.
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {

TEST(GeodeAcceptance, Case07_CoordinatorRequestsRemovalNoEarlierThanTheFinalCheckBudget) {
  // m1 crashes; the coordinator m0 watches it, suspects it at 2.5 s and final-checks it. Each
  // TCP attempt is refused after one round trip (2 ms) and retried 100 ms later: attempts end
  // at +2, +104, ..., +1022 ms, the first end >= the 1000 ms budget: 11 attempts.
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(100), [&] { h.hosts.crash(1); });
  h.run_until_s(4);
  const auto received = h.first("suspicion_received", 0);
  ASSERT_TRUE(received);
  EXPECT_EQ((*received)["action"], "final_check");
  const auto removal = h.first("removal_requested", 0);
  ASSERT_TRUE(removal);
  EXPECT_EQ((*removal)["target"], 1);
  const Duration waited = Harness::time_of(*removal) - Harness::time_of(*received);
  EXPECT_GE(waited, h.cfg.final_check_timeout);
  EXPECT_EQ(waited, Duration::ms(1022));
  const auto tcp = h.first("tcp_check_result", 0);
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "refused");
  EXPECT_EQ((*tcp)["attempt"], 11);
  size_t probes = 0;
  for (const json& r : h.records("send", 0)) probes += r["msg"] == "geode.tcp_check";
  EXPECT_EQ(probes, 11u);
}

TEST(GeodeAcceptance, Case08_NextInLineFinalChecksDeadCoordinatorAndTakesOver) {
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(100), [&] { h.hosts.crash(0); });
  h.at(at_ms(200), [&] { h.m(4).initiate_suspicion(mid(0)); });
  h.run_until_s(2);
  // m1 would be coordinator without m0: it final-checks m0 on m4's suspicion.
  const auto start = h.first("final_check_start", 1);
  ASSERT_TRUE(start);
  EXPECT_EQ((*start)["suspect"], 0);
  EXPECT_EQ((*start)["initiator"], 4);
  EXPECT_EQ(Harness::time_of(*start), at_ms(201));
  // Everyone else only records it.
  for (NodeId n : {2u, 3u, 5u, 6u}) {
    const auto rec = h.first("suspicion_received", n);
    ASSERT_TRUE(rec) << n;
    EXPECT_EQ((*rec)["action"], "record") << n;
    EXPECT_FALSE(h.first("final_check_start", n)) << n;
  }
  const auto removal = h.first("removal_requested", 1);
  ASSERT_TRUE(removal);
  EXPECT_EQ((*removal)["target"], 0);
  EXPECT_EQ(Harness::time_of(*removal), at_ms(201 + 1022));
  const auto takeover = h.first("become_coordinator", 1);
  ASSERT_TRUE(takeover);
  EXPECT_EQ(Harness::time_of(*takeover), Harness::time_of(*removal));
  // The new view (id jumped by 5 + 0..9, sent at once) is installed at every survivor.
  const int64_t id = (*takeover)["view_id"].get<int64_t>();
  EXPECT_GE(id, 1 + 5);
  EXPECT_LE(id, 1 + 14);
  for (NodeId n = 1; n < 7; ++n) {
    ASSERT_TRUE(h.m(n).view()) << n;
    EXPECT_EQ(h.m(n).view()->id, id) << n;
    EXPECT_EQ(h.m(n).view()->coordinator, mid(1)) << n;
    EXPECT_FALSE(h.m(n).view()->contains(mid(0))) << n;
  }
  EXPECT_TRUE(h.m(1).is_coordinator());
  // No collection wait: prepared at the take-over instant, installed a round trip later.
  const auto installed = h.first("view_installed", 1, [&](const json& r) { return r["view_id"] == id; });
  ASSERT_TRUE(installed);
  EXPECT_EQ(Harness::time_of(*installed), Harness::time_of(*takeover) + Duration::ms(2));
}

TEST(GeodeAcceptance, Case11_TcpCheckMatchesIdentityIncarnationAndViewId) {
  Harness h(config(Profile::wiki, 7));
  h.run_until(at_ms(900));
  EXPECT_EQ(h.m(3).serve_tcp_check(MemberId{3, 0, 1}), kTcpOk);
  EXPECT_EQ(h.m(3).serve_tcp_check(MemberId{3, 0, 7}), kTcpError);  // another view id
  EXPECT_EQ(h.m(3).serve_tcp_check(MemberId{3, 1, 1}), kTcpError);  // another incarnation
  EXPECT_EQ(h.m(3).serve_tcp_check(MemberId{2, 0, 1}), kTcpError);  // another member

  // m3 restarts (incarnation 1); a final check of its old identity gets "error" at once.
  h.at(at_ms(1000), [&] { h.hosts.crash(3); });
  h.at(at_ms(1050), [&] { h.hosts.recover(3); });
  h.at(at_ms(1100), [&] { h.m(0).start_final_check(MemberId{3, 0, 1}, mid(0)); });
  h.run_until(at_ms(1200));
  const auto tcp = h.first("tcp_check_result", 0);
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "error");
  EXPECT_EQ((*tcp)["attempt"], 1);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(1102));
  EXPECT_TRUE(h.first("final_check_failed", 0));

  // The new incarnation re-joins: admitted at the end of the next view, the old identity
  // dropped in the same view.
  h.run_until_s(3);
  const MemberId fresh = h.m(3).id();
  EXPECT_EQ(fresh.incarnation, 1u);
  for (NodeId n = 0; n < 7; ++n) {
    const View* v = h.m(n).view();
    ASSERT_TRUE(v) << n;
    EXPECT_EQ(v->members.back(), fresh) << n;
    EXPECT_FALSE(v->contains(MemberId{3, 0, 1})) << n;
  }
  EXPECT_EQ(fresh.join_view, h.m(0).view()->id);
  EXPECT_EQ(h.m(3).serve_tcp_check(fresh), kTcpOk);
  EXPECT_EQ(h.m(3).serve_tcp_check(MemberId{3, 0, 1}), kTcpError);
}

TEST(GeodeAcceptance, Case14_QuorumLossMakesTheCoordinatorDeclareAPartition) {
  // [L1, L2, S1, S2] = nodes 0..3, locators 0 and 1: weights 3, 3, 15 (lead), 10 = 31.
  GeodeConfig c = config(Profile::wiki, 4);
  c.locators = {0, 1};
  Harness h(c);
  EXPECT_EQ(h.m(0).view()->coordinator, mid(0));
  h.at(at_ms(1000), [&] {
    h.hosts.crash(3);  // S2
    h.hosts.crash(1);  // L2
  });
  h.run_until_s(9);
  // 13 of 31 lost: the cluster carries on with [L1, S1].
  ASSERT_TRUE(h.m(0).view());
  EXPECT_EQ(h.m(0).view()->members, (std::vector<MemberId>{mid(0), mid(2)}));
  EXPECT_EQ(h.m(2).view()->members, (std::vector<MemberId>{mid(0), mid(2)}));
  EXPECT_FALSE(h.first("partition_declared"));
  // Then S1 (15 of the remaining 18) crashes: L1 declares a partition and shuts down 1 s later.
  h.at(at_s(10), [&] { h.hosts.crash(2); });
  h.run_until_s(20);
  const auto declared = h.first("partition_declared", 0);
  ASSERT_TRUE(declared);
  const auto down = h.first("forced_disconnect", 0);
  ASSERT_TRUE(down);
  EXPECT_EQ((*down)["reason"], "partition");
  EXPECT_EQ(Harness::time_of(*down), Harness::time_of(*declared) + Duration::ms(1000));
  EXPECT_FALSE(h.m(0).participating());
  EXPECT_TRUE(h.m(0).disconnected());
  EXPECT_EQ(h.model->recorder().partition_declarations(), 1u);
  EXPECT_EQ(h.m(0).view(), nullptr);
  EXPECT_TRUE(h.model->considers_failed(0, 2));
}

}  // namespace fdsim::geode::test
