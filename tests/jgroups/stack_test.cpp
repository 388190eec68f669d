// Stacks as JGroups ships them (tcp.xml: FD_SOCK + FD + VERIFY_SUSPECT; udp.xml: FD_SOCK +
// FD_ALL + VERIFY_SUSPECT), VERIFY_SUSPECT's timer thread with several suspects, and FD_SOCK's
// connect: exact hand-derived traces at 1 ms constant latency, no loss.
#include <gtest/gtest.h>

#include "tests/jgroups/harness.h"

namespace fdsim::jgroups {
namespace {

using test::at_s;
using test::Harness;

constexpr Duration msec(int64_t v) { return Duration::ns(v * 1000000); }

JGroupsConfig stack(size_t n, std::vector<Detector> ds) {
  JGroupsConfig c = JGroupsConfig::defaults(n);
  JGroupsArm a;
  a.name = "stack";
  a.detectors = std::move(ds);
  c.arms = {a};
  return c;
}

// java.util.Hashtable's order as the JDK 17 of default-jdk-headless printed it for keys with
// these hashCode()s (a 15-line Java program: put in this order, then keys()).
TEST(JavaHashtableOrder, MatchesTheJvm) {
  JavaHashtableOrder t;
  t.put(0, 3);
  t.put(1, 14);
  t.put(2, 5);
  EXPECT_EQ(t.keys(), (std::vector<NodeId>{2, 1, 0}));  // JVM: "c b a"
  JavaHashtableOrder u;
  const int32_t hs[] = {3, 14, 5, -7, 25, 100, 11, 0, 22};
  const std::vector<std::vector<NodeId>> jvm = {
      {0}, {1, 0}, {2, 1, 0}, {3, 2, 1, 0}, {3, 2, 4, 1, 0}, {3, 2, 4, 1, 0, 5},
      {3, 2, 4, 1, 0, 5, 6}, {3, 2, 4, 1, 0, 5, 7, 6},
      {8, 3, 1, 6, 5, 2, 0, 4, 7}};  // the ninth put rehashed to 23 buckets
  for (NodeId i = 0; i < 9; ++i) {
    u.put(i, hs[i]);
    EXPECT_EQ(u.keys(), jvm[i]) << "after put " << i;
  }
  EXPECT_EQ(u.capacity(), 23u);
  u.remove(6);
  EXPECT_EQ(u.keys(), (std::vector<NodeId>{8, 3, 1, 5, 2, 0, 4, 7}));
}

// Two suspects reach the coordinator's VERIFY_SUSPECT 2 ms apart (timeout T = 2000 ms). FD_SOCK
// alone, N = 5; nodes 2 and 3 crash at 20 s. Node 1 reads EOF from 2 at 20.001, multicasts
// SUSPECT(2): the coordinator passes it up at s1 = 20.002 and its timer thread starts; node 1's
// connect to 3 is refused after a round trip (20.003), SUSPECT(3) reaches the coordinator at
// s2 = 20.004. The thread sleeps T (fresh entry) and wakes at s1 + T:
// - if the Hashtable visits 2 first: 2 is confirmed (age T), then 3 (age T - 2 ms) sets the
//   sleep to max(T - 2, 2) = T - 2 ms; 3 is confirmed at s1 + 2T - 2 ms = s2 + 2T - 4 ms;
// - if it visits 3 first: the sleep is set by 2, confirmed at age T: T; 3 is confirmed at
//   s1 + 2T = s2 + 2T - 2 ms.
// Either way 3 waits almost twice the timeout (a model confirming at s2 + T fails). View 3
// follows 3's confirmation after GMS's 50 ms bundling (below).
TEST(JGroupsVerifySuspect, TwoSuspectsTwoMillisecondsApart) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    test::HarnessOptions o;
    o.seed = seed;
    Harness h(test::config(5, Detector::fd_sock), o);
    h.at(at_s(20.0), [&] {
      h.hosts.crash(2);
      h.hosts.crash(3);
    });
    h.run_until_s(40.0);
    const SimTime s1 = at_s(20.002), s2 = at_s(20.004);
    ASSERT_EQ(h.model_times("jgroups_detector_suspect", 0, 2), std::vector<SimTime>{s1});
    // FD_SOCK suspects 3 again when view 2 (which still lists 3) makes node 1 connect to it
    // (down(VIEW_CHANGE) makes every view member pingable, FD_SOCK.java:317-327): VERIFY_SUSPECT
    // is still verifying 3 and ignores it.
    const auto sus3 = h.model_times("jgroups_detector_suspect", 0, 3);
    ASSERT_EQ(sus3.size(), 2u);
    ASSERT_EQ(sus3[0], s2);
    EXPECT_EQ(sus3[1], s1 + msec(2000 + 50 + 1 + 2 + 1));
    JavaHashtableOrder order;
    order.put(2, h.model->address_hash(2));
    order.put(3, h.model->address_hash(3));
    const bool two_first = order.keys().front() == 2;
    const Duration T = msec(2000);
    EXPECT_EQ(h.model_times("jgroups_verified", 0, 2), std::vector<SimTime>{s1 + T}) << seed;
    const SimTime three = two_first ? s2 + T * 2 - msec(4) : s2 + T * 2 - msec(2);
    EXPECT_EQ(h.model_times("jgroups_verified", 0, 3), std::vector<SimTime>{three})
        << "seed " << seed << (two_first ? " (2 visited first)" : " (3 visited first)");
    // View 2 drops 2 (50 ms bundling: the ViewHandler thread exited long ago).
    EXPECT_EQ(h.view_time(0, 2), s1 + T + msec(50));
    // View 2's cast waits for the acks of 1, 3 and 4 (view_ack_collection_timeout 2000 ms, to
    // s1 + T + 2050); 1 and 4 ack 2 ms after it, 3 (crashed) never does, but its confirmation at
    // `three` (s1 + 2T - 2 ms or s1 + 2T, inside the wait) counts as its ack (GMS.up(SUSPECT) ->
    // AckCollector.suspect(), GMS.java:896): the wait ends there, the ViewHandler begins waiting
    // for requests again and bundles 3's SUSPECT for 50 ms. (Before GMS's ack collector was
    // modelled, view 3 came at s1 + T + 50 + 2000 + 50.)
    EXPECT_EQ(h.view_time(0, 3), three + msec(50));
    EXPECT_EQ(h.m(4).view(), (std::vector<NodeId>{0, 1, 4}));
  }
}

// A suspect that arrives while the thread sleeps after its last confirmation. Node 2 crashes at
// 20 s (s1 = 20.002 as above, confirmed at s1 + T = 22.002; the thread then sleeps T, its
// confirmed entry's age, to s1 + 2T = 24.002). Node 3 crashes at 22.502: node 1 (watching it
// since 20.001) reads EOF at 22.503, the coordinator passes SUSPECT(3) up at s2 = 22.504 = s1 +
// 2502 ms. No new thread (the old one is alive); it wakes at 24.002, finds 3 aged 1498 ms < T,
// sleeps max(1498, 502) = 1498 ms, and confirms 3 at 25.500 = s2 + 2996 ms, not s2 + T.
TEST(JGroupsVerifySuspect, SuspectDuringTheFinalSleepWaitsAlmostTwoTimeouts) {
  Harness h(test::config(5, Detector::fd_sock));
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.at(at_s(22.502), [&] { h.hosts.crash(3); });
  h.run_until_s(40.0);
  EXPECT_EQ(h.model_times("jgroups_verified", 0, 2), std::vector<SimTime>{at_s(22.002)});
  ASSERT_EQ(h.model_times("jgroups_detector_suspect", 0, 3), std::vector<SimTime>{at_s(22.504)});
  EXPECT_EQ(h.model_times("jgroups_verified", 0, 3), std::vector<SimTime>{at_s(25.500)});
  EXPECT_FALSE(h.m(0).verify_thread_alive());  // it exited at 25.500 + 2996 ms
}

// tcp.xml's stack (FD_SOCK, FD timeout 3000 max_tries 3, VERIFY_SUSPECT 1500): a killed
// process is suspected by FD_SOCK two latencies after the crash (FD, 5 timeouts, is not
// needed), confirmed 1500 ms later, the view follows after GMS's 50 ms bundling.
JGroupsConfig tcp_xml(size_t n) {
  JGroupsConfig c = stack(n, {Detector::fd_sock, Detector::fd});
  c.fd_max_tries = 3;
  c.verify_timeout = msec(1500);
  return c;
}

TEST(JGroupsStack, TcpXmlCrashIsFdSocksAndItsHangIsFds) {
  Harness h(tcp_xml(4));
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.run_until_s(40.0);
  const auto& f = h.rec().faults();
  ASSERT_TRUE(f.at(0).first_suspicion && f[0].first_verified && f[0].first_removal);
  EXPECT_EQ(*f[0].first_suspicion - f[0].at, msec(2));
  EXPECT_EQ(*f[0].first_verified - f[0].at, msec(1502));
  EXPECT_EQ(*f[0].first_removal - f[0].at, msec(1552));
  EXPECT_EQ(h.m(1).fd_ping_dest(), 3u);
  EXPECT_EQ(h.m(1).sock_ping_dest(), 3u);

  // A hang: FD_SOCK's connection stays up; FD suspects after (2 + max_tries) T = 15 s from
  // the watcher's last answered tick.
  Harness g(tcp_xml(4));
  g.at(at_s(20.0), [&] { g.hosts.pause(2); });
  g.run_until_s(60.0);
  const auto acks = g.times("recv", 1, "jgroups.fd_heartbeat_ack", NodeId{2});
  const auto& e = g.rec().faults();
  ASSERT_TRUE(e.at(0).first_suspicion && e[0].first_removal);
  EXPECT_EQ(*e[0].first_suspicion - (acks.back() - msec(2)), msec(15000));
  EXPECT_EQ(*e[0].first_removal - *e[0].first_suspicion, msec(1551));
}

// udp.xml's stack (FD_SOCK, FD_ALL, VERIFY_SUSPECT 1500): the crash is FD_SOCK's, the hang
// FD_ALL's (the coordinator's first check more than 10 s after the last heartbeat).
TEST(JGroupsStack, UdpXmlCrashIsFdSocksAndItsHangIsFdAlls) {
  JGroupsConfig c = stack(4, {Detector::fd_sock, Detector::fd_all});
  c.verify_timeout = msec(1500);
  Harness h(c);
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.run_until_s(40.0);
  ASSERT_TRUE(h.rec().faults().at(0).first_removal);
  EXPECT_EQ(*h.rec().faults()[0].first_removal - at_s(20.0), msec(1552));
  Harness g(c);
  g.at(at_s(20.0), [&] { g.hosts.pause(2); });
  g.run_until_s(60.0);
  const auto hb = g.times("recv", 0, "jgroups.fd_all_heartbeat", NodeId{2});
  const auto& e = g.rec().faults();
  ASSERT_TRUE(e.at(0).first_suspicion && e[0].first_removal);
  EXPECT_GT(*e[0].first_suspicion - hb.back(), msec(10000));
  EXPECT_LE(*e[0].first_suspicion - hb.back(), msec(13000));
  EXPECT_EQ(*e[0].first_removal - *e[0].first_suspicion, msec(1550));
}

// FD_SOCK's connect to a dead host (crash_kind "host": no FIN, a lost SYN). Hosts 2 and 3 crash
// at 20 s in tcp.xml's stack. FD_SOCK hears nothing; node 1's FD suspects 2, the view drops it,
// and node 1's FD_SOCK, told by the view to watch 3, tries to connect: connect() gives up after
// sock_conn_timeout = 1000 ms (FD_SOCK.java:77, 605) and node 1 broadcasts SUSPECT(3) then.
// With crash_kind "process" the connect is refused after one round trip (2 ms).
TEST(JGroupsStack, FdSockConnectToADeadHostTakesSockConnTimeout) {
  for (bool host : {true, false}) {
    JGroupsConfig c = tcp_xml(5);
    c.crash_is_host = host;
    Harness h(c);
    h.at(at_s(20.0), [&] {
      h.hosts.crash(2);
      h.hosts.crash(3);
    });
    h.run_until_s(60.0);
    const auto sock3 = h.model_times("jgroups_fd_sock_suspect", 1, 3);
    if (!host) {
      // EOF from 2 at 20.001, then the refused connect to 3.
      // (and again when view 2, still listing 3, makes node 1 connect to it: 21.553 + 2 ms)
      EXPECT_EQ(h.model_times("jgroups_fd_sock_suspect", 1, 2), std::vector<SimTime>{at_s(20.001)});
      EXPECT_EQ(sock3, (std::vector<SimTime>{at_s(20.003), at_s(21.555)}));
      continue;
    }
    EXPECT_TRUE(h.model_times("jgroups_fd_sock_suspect", 1, 2).empty());
    const auto v2 = h.view_time(1, 2);
    ASSERT_TRUE(v2);
    EXPECT_EQ(h.m(1).view(), (std::vector<NodeId>{0, 1, 4}));
    ASSERT_FALSE(sock3.empty());
    EXPECT_EQ(sock3.front(), *v2 + msec(1000));
  }
}

// FD_SOCK's connect across a partition times out the same way: node 1 is cut from node 3 before
// node 2's process crashes; node 1 reads EOF from 2 and its connect to 3 gives up after 1000 ms.
TEST(JGroupsStack, FdSockConnectAcrossAPartitionTimesOut) {
  Harness h(test::config(5, Detector::fd_sock));
  h.at(at_s(10.0), [&] { h.net.add_partition({1}, {3}, false); });
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.run_until_s(30.0);
  EXPECT_EQ(h.model_times("jgroups_fd_sock_suspect", 1, 2), std::vector<SimTime>{at_s(20.001)});
  // 3 answers the coordinator's ARE_YOU_DEAD and stays; view 2 (dropping 2: 22.052, at node 1
  // 22.053) makes node 1 connect to 3 again, which times out again.
  EXPECT_EQ(h.model_times("jgroups_fd_sock_suspect", 1, 3),
            (std::vector<SimTime>{at_s(21.001), at_s(23.053)}));
}

// MERGE2 after a partition heals (tcp.xml's stack with MERGE2 10 to 30 s, TCPPING timeout 3000 ms,
// num_initial_members 3; 1 ms latency). Nodes {0, 1} and {2, 3} are cut at 20 s and split into
// two views; the cut heals at 80 s. Each side's coordinator runs its merge check every period
// after the previous check ended; while cut, a check waits the whole TCPPING timeout (2 of the
// 4 expected answers come: expected = max(max_found_members 4, 3, view size)). The first check
// the merge leader (the smaller coordinator by address) starts after the heal gets all 4 answers
// at d + 2 ms, and the merge takes: MERGE_REQ to the other coordinator (+1), its digest round
// trip (+2), MERGE_RSP (+1): d + 6 ms; INSTALL_MERGE_VIEW to it (+1) and its cast (+1): every
// member has the merged view, sorted by address, id = largest + 1, at d + 8 ms.
TEST(JGroupsMerge2, PartitionHealsIntoOneMergedView) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    test::HarnessOptions o;
    o.seed = seed;
    o.horizon_s = 300.0;
    JGroupsConfig c = tcp_xml(4);
    c.arms[0].merge2 = true;
    c.merge_min_interval = msec(10000);
    c.merge_max_interval = msec(30000);
    c.discovery_num_initial_members = 3;
    Harness h(c, o);
    uint32_t cut = 0;
    h.at(at_s(20.0), [&] { cut = h.net.add_partition({0, 1}, {2, 3}, false); });
    h.at(at_s(80.0), [&] { h.net.heal(cut); });
    std::vector<std::vector<NodeId>> at_heal;
    h.at(at_s(79.999), [&] {
      for (NodeId n = 0; n < 4; ++n) at_heal.push_back(h.m(n).view());
    });
    h.run_until_s(200.0);
    // Split before the heal: {0, 1} and {2, 3} (FD, then FD_SOCK's timed-out connect).
    ASSERT_EQ(at_heal.size(), 4u);
    EXPECT_EQ(at_heal[0], (std::vector<NodeId>{0, 1})) << seed;
    EXPECT_EQ(at_heal[3], (std::vector<NodeId>{2, 3})) << seed;
    const NodeId leader = h.model->address_order(0) < h.model->address_order(2) ? 0 : 2;
    const NodeId other = leader == 0 ? 2 : 0;
    std::vector<SimTime> checks;
    for (const auto& r : h.sink.records)
      if (r["kind"] == "jgroups_merge2_discovery" && r["node"] == leader)
        checks.push_back(SimTime::from_ns(r["t_ns"].get<int64_t>()));
    // Two checks in a row while cut, after the split: period + 3000 ms apart.
    std::vector<SimTime> cut_checks;
    for (SimTime t : checks)
      if (t > at_s(55.0) && t < at_s(80.0)) cut_checks.push_back(t);
    if (cut_checks.size() >= 2) {
      EXPECT_EQ(cut_checks[1] - cut_checks[0], h.m(leader).merge_period() + msec(3000)) << seed;
    }
    SimTime d;
    for (SimTime t : checks)
      if (t >= at_s(80.0)) {
        d = t;
        break;
      }
    ASSERT_GT(d, at_s(80.0)) << seed;
    std::vector<NodeId> merged{0, 1, 2, 3};
    std::sort(merged.begin(), merged.end(), [&](NodeId a, NodeId b) {
      return h.model->address_order(a) < h.model->address_order(b);
    });
    const uint64_t id = h.m(0).view_id();
    for (NodeId n = 0; n < 4; ++n) {
      EXPECT_EQ(h.m(n).view(), merged) << "seed " << seed << " node " << n;
      EXPECT_EQ(h.m(n).view_id(), id);
    }
    EXPECT_EQ(h.view_time(leader, id), d + msec(6)) << seed;
    EXPECT_EQ(h.view_time(leader + 1, id), d + msec(7)) << seed;
    EXPECT_EQ(h.view_time(other, id), d + msec(7)) << seed;
    EXPECT_EQ(h.view_time(other + 1, id), d + msec(8)) << seed;
  }
}

}  // namespace
}  // namespace fdsim::jgroups
