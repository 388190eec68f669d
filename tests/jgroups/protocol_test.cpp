// The JGroups model against exact hand-computed traces (JGroups 2.12.2 defaults, 1 ms
// constant latency, no loss): FD's timeout x max_tries rule with its 500 ms allowance, then
// VERIFY_SUSPECT's timeout, then GMS's bundling; FD_ALL's coordinator-only check; FD_SOCK's
// broken connection; a refuted suspicion; a coordinator crash (a participant takes over).
#include <gtest/gtest.h>

#include "tests/jgroups/harness.h"

namespace fdsim::jgroups {
namespace {

using test::at_s;
using test::Harness;

constexpr Duration ms(int64_t v) { return Duration::ns(v * 1000000); }

// FD (timeout T = 3000 ms, max_tries 2): the watcher's last ack arrives at t0 + 2 ms (t0 its
// last answered tick). Tick t0 + T: silent T - 2 ms, not > T + 500. Ticks t0 + 2T and t0 + 3T
// count missed heartbeats 1 and 2; tick t0 + 4T suspects, and the broadcaster's SUSPECT reaches
// the watcher itself at once (loopback), the other members 1 ms later. Each member's
// VERIFY_SUSPECT waits 2000 ms; the coordinator's (node 0, SUSPECT at S + 1 ms) then bundles
// 50 ms and installs the view at S + 2051 ms; the others get it 1 ms later.
TEST(JGroupsProtocol, FdCrashIsSuspectedAfterFourTimeoutsThenVerifiedThenBundled) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    test::HarnessOptions o;
    o.seed = seed;
    Harness h(test::config(4, Detector::fd), o);
    h.at(at_s(20.0), [&] { h.hosts.crash(2); });
    h.run_until_s(60.0);
    const auto acks = h.times("recv", 1, "jgroups.fd_heartbeat_ack", NodeId{2});
    ASSERT_FALSE(acks.empty());
    const SimTime t0 = acks.back() - ms(2);
    const auto& f = h.rec().faults();
    ASSERT_EQ(f.size(), 1u);
    ASSERT_TRUE(f[0].first_suspicion && f[0].first_verified && f[0].first_removal &&
                f[0].removal_all);
    const SimTime s = *f[0].first_suspicion;
    EXPECT_EQ(s - t0, ms(4 * 3000)) << "seed " << seed;
    EXPECT_EQ(*f[0].first_verified - s, ms(2000));
    EXPECT_EQ(*f[0].first_removal - s, ms(2051));
    EXPECT_EQ(*f[0].removal_all - s, ms(2052));
    // The watcher's own loopback copy and the two other survivors' copies.
    EXPECT_EQ(h.rec().detector_suspicions(), 3u);
    EXPECT_EQ(h.rec().false_detector_suspicions(), 0u);
    EXPECT_EQ(h.rec().false_removals(), 0u);
    for (NodeId n : {0u, 1u, 3u}) {
      EXPECT_EQ(h.m(n).view_id(), 2u);
      EXPECT_EQ(h.m(n).view(), (std::vector<NodeId>{0, 1, 3}));
    }
    EXPECT_EQ(h.m(1).fd_ping_dest(), 3u);
  }
}

// A hang (the harness's SIGSTOP, here a pause that outlasts the run) is seen exactly like a
// crash by FD: nothing answers, and the pause defers the hung member's own timers.
TEST(JGroupsProtocol, FdHangIsRemovedLikeACrash) {
  Harness h(test::config(4, Detector::fd));
  h.at(at_s(20.0), [&] { h.hosts.pause(2); });
  h.run_until_s(60.0);
  const auto& f = h.rec().faults();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].crash);
  ASSERT_TRUE(f[0].first_suspicion && f[0].first_removal && f[0].removal_all);
  const auto acks = h.times("recv", 1, "jgroups.fd_heartbeat_ack", NodeId{2});
  EXPECT_EQ(*f[0].first_suspicion - (acks.back() - ms(2)), ms(12000));
  EXPECT_EQ(*f[0].first_removal - *f[0].first_suspicion, ms(2051));
}

// FD_ALL (interval 3000 ms, timeout 10000 ms): only the coordinator passes the suspicion up,
// at the first of its checks (which share the heartbeat sender's phase) more than 10 s after
// the last heartbeat from the victim arrived; then 2000 ms of verification and 50 ms of
// bundling at the coordinator itself.
TEST(JGroupsProtocol, FdAllCoordinatorSuspectsAtItsFirstCheckPastTheTimeout) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    test::HarnessOptions o;
    o.seed = seed;
    Harness h(test::config(4, Detector::fd_all), o);
    h.at(at_s(20.0), [&] { h.hosts.crash(2); });
    h.run_until_s(60.0);
    const auto hb = h.times("recv", 0, "jgroups.fd_all_heartbeat", NodeId{2});
    ASSERT_FALSE(hb.empty());
    const auto& f = h.rec().faults();
    ASSERT_EQ(f.size(), 1u);
    ASSERT_TRUE(f[0].first_suspicion && f[0].first_removal && f[0].removal_all);
    const SimTime s = *f[0].first_suspicion;
    EXPECT_GT(s - hb.back(), ms(10000)) << "seed " << seed;
    EXPECT_LE(s - hb.back(), ms(13000)) << "seed " << seed;
    // s is one of the coordinator's ticks (it multicasts a heartbeat at every tick).
    const auto ticks = h.times("send", 0, "jgroups.fd_all_heartbeat");
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), s), ticks.end()) << "seed " << seed;
    // The previous tick was within the timeout.
    EXPECT_LE(s - ms(3000) - hb.back(), ms(10000)) << "seed " << seed;
    EXPECT_EQ(*f[0].first_verified - s, ms(2000));
    EXPECT_EQ(*f[0].first_removal - s, ms(2050));
    EXPECT_EQ(*f[0].removal_all - s, ms(2051));
    EXPECT_EQ(h.rec().detector_suspicions(), 1u);
  }
}

// FD_SOCK: the watcher (node 1) learns of the crash one latency later (the kernel's FIN),
// multicasts SUSPECT, the coordinator passes it up 1 ms after that; 2000 + 50 ms more to its
// view, 1 ms to the others'.
TEST(JGroupsProtocol, FdSockCrashIsSuspectedWithinTwoLatencies) {
  Harness h(test::config(4, Detector::fd_sock));
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.run_until_s(60.0);
  const auto& f = h.rec().faults();
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].first_suspicion && f[0].first_verified && f[0].first_removal &&
              f[0].removal_all);
  EXPECT_EQ(*f[0].first_suspicion - f[0].at, ms(2));
  EXPECT_EQ(*f[0].first_verified - f[0].at, ms(2002));
  EXPECT_EQ(*f[0].first_removal - f[0].at, ms(2052));
  EXPECT_EQ(*f[0].removal_all - f[0].at, ms(2053));
  EXPECT_EQ(h.rec().detector_suspicions(), 1u);
  EXPECT_EQ(h.m(1).sock_ping_dest(), 3u);
}

// FD_SOCK alone never suspects a hung member: its connection stays up.
TEST(JGroupsProtocol, FdSockNeverSuspectsAHang) {
  Harness h(test::config(4, Detector::fd_sock));
  h.at(at_s(20.0), [&] { h.hosts.pause(2); });
  h.run_until_s(60.0);
  EXPECT_EQ(h.rec().faults().size(), 1u);
  EXPECT_EQ(h.rec().detector_suspicions(), 0u);
  EXPECT_FALSE(h.rec().faults()[0].first_removal);
  EXPECT_EQ(h.m(0).view_id(), 1u);
}

// VERIFY_SUSPECT at work: node 1 cannot hear node 2 (a one-way cut 2 -> 1), so its FD
// suspects 2, but the coordinator's ARE_YOU_DEAD is answered and the coordinator drops the
// suspicion; node 1's own verification confirms it, but node 1 is not the coordinator. No
// view change, ever; node 1 watches node 3 from its suspicion on.
TEST(JGroupsProtocol, AnsweredVerificationAtTheCoordinatorKeepsTheView) {
  Harness h(test::config(4, Detector::fd));
  h.at(at_s(20.0), [&] { h.net.add_partition({2}, {1}, true); });
  h.run_until_s(80.0);
  EXPECT_GE(h.rec().false_detector_suspicions(), 3u);
  EXPECT_GE(h.rec().false_verified_suspicions(), 1u);
  EXPECT_EQ(h.rec().false_removals(), 0u);
  for (NodeId n = 0; n < 4; ++n) EXPECT_EQ(h.m(n).view_id(), 1u) << n;
  EXPECT_EQ(h.m(1).fd_ping_dest(), 3u);
  EXPECT_FALSE(h.m(0).verifying(2));
}

// The coordinator crashes: node 3 watches it. Node 1 hears SUSPECT 1 ms after node 3 raised
// it, verifies 2000 ms, bundles 50 ms as a participant, finds itself first in line, becomes
// coordinator and queues the request again: 50 ms more, then view 2 = [1, 2, 3].
TEST(JGroupsProtocol, CoordinatorCrashTheNextMemberTakesOver) {
  Harness h(test::config(4, Detector::fd));
  h.at(at_s(20.0), [&] { h.hosts.crash(0); });
  h.run_until_s(60.0);
  const auto& f = h.rec().faults();
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].first_suspicion && f[0].first_removal && f[0].removal_all);
  const auto acks = h.times("recv", 3, "jgroups.fd_heartbeat_ack", NodeId{0});
  EXPECT_EQ(*f[0].first_suspicion - (acks.back() - ms(2)), ms(12000));
  EXPECT_EQ(*f[0].first_removal - *f[0].first_suspicion, ms(2101));
  EXPECT_EQ(*f[0].removal_all - *f[0].first_suspicion, ms(2102));
  for (NodeId n : {1u, 2u, 3u}) EXPECT_EQ(h.m(n).view(), (std::vector<NodeId>{1, 2, 3}));
}

// FD's 500 ms allowance: with timeout 400 ms a tick counts as missed only when the silence
// exceeds 900 ms, i.e. from t0 + 3T on (2T - 2 ms = 798 ms is not enough): suspicion at
// t0 + (3 + max_tries) T.
TEST(JGroupsProtocol, FdAllowanceDelaysCountingForShortTimeouts) {
  JGroupsConfig c = test::config(4, Detector::fd);
  c.fd_timeout = ms(400);
  Harness h(c);
  h.at(at_s(20.0), [&] { h.hosts.crash(2); });
  h.run_until_s(40.0);
  const auto acks = h.times("recv", 1, "jgroups.fd_heartbeat_ack", NodeId{2});
  const auto& f = h.rec().faults();
  ASSERT_TRUE(f.at(0).first_suspicion);
  EXPECT_EQ(*f[0].first_suspicion - (acks.back() - ms(2)), ms(5 * 400));
}

// Same seed, same everything (loss draws included); another seed differs.
TEST(JGroupsProtocol, Deterministic) {
  const auto run = [](uint64_t seed) {
    test::HarnessOptions o;
    o.seed = seed;
    o.loss = 0.2;
    JGroupsConfig c = test::config(8, Detector::fd);
    c.fd_timeout = ms(1000);
    c.verify_timeout = ms(500);
    Harness h(c, o);
    h.run_until_s(60.0);
    return h.rec().metrics().dump() + std::to_string(h.sim.fingerprint());
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

}  // namespace
}  // namespace fdsim::jgroups

namespace fdsim::jgroups {
namespace {

// GMS's ViewHandler thread: the coordinator's has waited since t = 0 (view 1); a request 2 s
// later finds it waiting for longer than max_bundling_time and is processed at once (no 50
// ms); at 20 s the thread has exited (5 s idle) and a new one bundles for 50 ms (the tests
// above).
TEST(JGroupsProtocol, ViewHandlerAliveSinceViewOneSkipsTheBundlingWait) {
  Harness h(test::config(4, Detector::fd_sock));
  h.at(at_s(1.0), [&] { h.hosts.crash(2); });
  h.run_until_s(10.0);
  const auto& f = h.rec().faults();
  ASSERT_TRUE(f.at(0).first_removal && f[0].removal_all);
  EXPECT_EQ(*f[0].first_removal - f[0].at, Duration::ms(2002));
  EXPECT_EQ(*f[0].removal_all - f[0].at, Duration::ms(2003));
}

// start_phases "view": FD's first tick is one timeout after t = 0 at every member.
TEST(JGroupsProtocol, ViewPhasesTickOneTimeoutAfterTheView) {
  JGroupsConfig c = test::config(4, Detector::fd);
  c.phases_from_view = true;
  Harness h(c);
  h.run_until_s(10.0);
  for (NodeId n = 0; n < 4; ++n) {
    const auto sent = h.times("send", n, "jgroups.fd_heartbeat");
    ASSERT_GE(sent.size(), 3u);
    EXPECT_EQ(sent[0], at_s(3.0));
    EXPECT_EQ(sent[1], at_s(6.0));
  }
}

}  // namespace
}  // namespace fdsim::jgroups
