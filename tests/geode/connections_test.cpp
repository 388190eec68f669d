// Issue 26 items 1-3: detection paths outside the ring (EOF on peer connections, send errors)
// and auto-reconnect, on the `current` profile, M = 1000 ms, 1 ms constant delays, locators
// m0 and m1 (m0 coordinates).
#include <gtest/gtest.h>

#include <set>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

GeodeConfig conn_config(size_t n = 7) {
  GeodeConfig c = config(Profile::current, n);
  c.locators = {0, 1};
  c.peer_connections = true;  // the current profile's default
  return c;
}

// Time from the crash at `crash` to the coordinator's first view without node `n`.
std::optional<Duration> removal_after(const Harness& h, NodeId n, SimTime crash) {
  for (const json& r : h.records("view_installed", 0)) {
    bool has = false;
    for (const json& m : r["members"]) has = has || m == n;
    if (!has && Harness::time_of(r) >= crash) return Harness::time_of(r) - crash;
  }
  return std::nullopt;
}

}  // namespace

TEST(GeodeConnections, ProcessCrashEofStartsVerifyMember) {
  // With application traffic over kept connections, m4's process crash gives each member m4
  // had sent to an EOF one latency later; verifyMember's availability check fails at once
  // (refused), the self-check passes, the suspicion reaches the coordinator and its final
  // check removes m4 after M: about M + collection instead of a neighbour check first.
  GeodeConfig c = conn_config();
  c.app_messages_per_s = 20;
  ASSERT_TRUE(GeodeConfig::defaults(Profile::current, c.member_timeout, 7).peer_connections);
  Harness h(c);
  h.at(at_ms(2000), [&] {
    ASSERT_FALSE(h.m(4).connected_peers().empty());
    h.hosts.crash(4);
  });
  h.run_until_s(6);
  const auto eof = h.first("connection_lost", std::nullopt, [](const json& r) { return r["peer"] == 4; });
  ASSERT_TRUE(eof);
  EXPECT_EQ(Harness::time_of(*eof), at_ms(2001));
  EXPECT_TRUE(h.first("availability_check_start", std::nullopt,
                      [](const json& r) { return about(r, "suspect", 4) && r["t_ns"] == 2001000000; }));
  const auto removed = removal_after(h, 4, at_ms(2000));
  ASSERT_TRUE(removed);
  EXPECT_LT(*removed, h.cfg.member_timeout + Duration::ms(400));
  EXPECT_GE(*removed, h.cfg.member_timeout);
}

TEST(GeodeConnections, WithoutPeerConnectionsTheRingDetects) {
  // The same run without the connection model: no EOF, removal through the ring (later).
  GeodeConfig c = conn_config();
  c.app_messages_per_s = 20;
  c.peer_connections = false;
  Harness h(c);
  h.at(at_ms(2000), [&] { h.hosts.crash(4); });
  h.run_until_s(8);
  EXPECT_FALSE(h.first("connection_lost"));
  const auto removed = removal_after(h, 4, at_ms(2000));
  ASSERT_TRUE(removed);
  EXPECT_GE(*removed, h.cfg.member_timeout + Duration::ms(400));
}

TEST(GeodeConnections, HostCrashAndPauseGiveNoEof) {
  for (const bool host : {true, false}) {
    GeodeConfig c = conn_config();
    c.app_messages_per_s = 20;
    c.crash_is_host = host;
    Harness h(c);
    h.at(at_ms(2000), [&] {
      if (host)
        h.hosts.crash(4);
      else
        h.hosts.pause(4);
    });
    h.at(at_ms(2700), [&] {
      if (!host) h.hosts.resume(4);
    });
    h.run_until_s(4);
    EXPECT_FALSE(h.first("connection_lost")) << (host ? "host crash" : "pause");
  }
}

TEST(GeodeConnections, HostCrashConnectsTimeOutInsteadOfBeingRefused) {
  // crash_kind "host": the machine is down, nothing answers a connect with a reset, so each
  // TCP attempt of a check hangs until its timeout M (doTCPCheckMember's connect). The
  // coordinator's final check of m4 is then one attempt that times out at start + M; a
  // process crash (the host's kernel refuses the connect) takes an attempt every R + 2d
  // until start + M.
  for (const bool host : {true, false}) {
    GeodeConfig c = conn_config();
    c.crash_is_host = host;
    c.peer_connections = false;  // only the ring detects
    Harness h(c);
    h.at(at_ms(2000), [&] { h.hosts.crash(4); });
    h.run_until_s(8);
    const auto fc = h.first("final_check_start", 0, [](const json& r) { return about(r, "suspect", 4); });
    ASSERT_TRUE(fc) << host;
    const auto res = h.first("tcp_check_result", 0, [](const json& r) { return about(r, "suspect", 4); });
    ASSERT_TRUE(res) << host;
    if (host) {
      EXPECT_EQ((*res)["outcome"], "timed_out");
      EXPECT_EQ((*res)["attempt"], 1);
      EXPECT_EQ(Harness::time_of(*res), Harness::time_of(*fc) + c.member_timeout);
    } else {
      EXPECT_EQ((*res)["outcome"], "refused");
      EXPECT_EQ((*res)["attempt"], 11);  // the 10th ends at 2d + 9 (R + 2d) = 920 ms < M
    }
    EXPECT_TRUE(removal_after(h, 4, at_ms(2000))) << host;
  }
}

TEST(GeodeConnections, UnreachableSendErrorStartsFinalCheck) {
  // m4's host is unreachable: the first membership datagram sent to it after the crash (a
  // heartbeat from m5 or m6, its ring successors, within M/2) fails at the sender, which
  // final-checks m4 at once (JGroupsMessenger.handleJGroupsIOException).
  GeodeConfig c = conn_config();
  c.unreachable_send_errors = true;
  c.crash_is_host = true;
  Harness h(c);
  h.at(at_ms(2000), [&] { h.hosts.crash(4); });
  h.run_until_s(6);
  const auto err = h.first("send_error", std::nullopt, [](const json& r) { return r["to"] == 4; });
  ASSERT_TRUE(err);
  EXPECT_LE(Harness::time_of(*err), at_ms(2000) + h.cfg.heartbeat_period);
  const auto fc = h.first("final_check_start", std::nullopt, [](const json& r) { return about(r, "suspect", 4); });
  ASSERT_TRUE(fc);
  EXPECT_EQ(Harness::time_of(*fc), Harness::time_of(*err));
  const auto removed = removal_after(h, 4, at_ms(2000));
  ASSERT_TRUE(removed);
  EXPECT_LT(*removed, h.cfg.heartbeat_period + h.cfg.member_timeout + Duration::ms(400));
  // Without the option no datagram fails.
  GeodeConfig d = conn_config();
  d.crash_is_host = true;
  Harness g(d);
  g.at(at_ms(2000), [&] { g.hosts.crash(4); });
  g.run_until_s(6);
  EXPECT_FALSE(g.first("send_error"));
}

TEST(GeodeConnections, ProcessCrashGivesNoSendError) {
  // A dead process on a live host: the datagram leaves, the host's kernel drops it (an
  // unconnected UDP socket reports no ICMP port-unreachable), so no send error, only the
  // ring (and the EOF path, off here) detects m4.
  GeodeConfig c = conn_config();
  c.unreachable_send_errors = true;
  c.crash_is_host = false;
  c.peer_connections = false;
  Harness h(c);
  h.at(at_ms(2000), [&] { h.hosts.crash(4); });
  h.run_until_s(8);
  EXPECT_FALSE(h.first("send_error"));
  EXPECT_TRUE(removal_after(h, 4, at_ms(2000)));
}

TEST(GeodeConnections, SendErrorBlocksTheHeartbeatThread) {
  // m5's Heart thread sends to the coordinator m0, then to its predecessors m4 and m3. m4's
  // host is down: the heartbeat to m4 fails on the Heart thread, whose final check of m4
  // (one connect that times out after M: the host sends no reset) blocks the thread, so the
  // heartbeat to m3 of that round leaves exactly M later, and the next round after that.
  GeodeConfig c = conn_config();
  c.unreachable_send_errors = true;
  c.crash_is_host = true;
  Harness h(c);
  h.at(at_ms(2000), [&] { h.hosts.crash(4); });
  h.run_until_s(6);
  const auto err = h.first("send_error", 5, [](const json& r) { return r["to"] == 4; });
  ASSERT_TRUE(err);
  const SimTime t_err = Harness::time_of(*err);
  EXPECT_LE(t_err, at_ms(2000) + h.cfg.heartbeat_period);
  const auto to_m3 = h.first("send", 5, [&](const json& r) {
    return r["msg"] == "geode.heartbeat" && r["to"] == 3 && Harness::time_of(r) >= t_err;
  });
  ASSERT_TRUE(to_m3);
  EXPECT_EQ(Harness::time_of(*to_m3), t_err + h.cfg.member_timeout);
  // Nothing else leaves the Heart thread in between: no heartbeat from m5 to m0 either.
  EXPECT_FALSE(h.first("send", 5, [&](const json& r) {
    return r["msg"] == "geode.heartbeat" && r["to"] == 0 && Harness::time_of(r) > t_err &&
           Harness::time_of(r) < t_err + h.cfg.member_timeout;
  }));
}

TEST(GeodeConnections, PartitionGivesSendErrors) {
  // With unreachable_send_errors, a membership datagram across a partition fails at the
  // sender (EHOSTUNREACH / EPERM) and starts a final check at once; without the option, or
  // before this rule, a partition stalls silently.
  for (const bool errors : {true, false}) {
    GeodeConfig c = conn_config();
    c.unreachable_send_errors = errors;
    Harness h(c);
    h.at(at_ms(2000), [&] { h.net.add_partition({6}, {}, /*one_way=*/false); });
    h.run_until_s(4);
    const auto err = h.first("send_error");
    EXPECT_EQ(bool(err), errors);
    if (errors) {
      EXPECT_LE(Harness::time_of(*err), at_ms(2000) + h.cfg.heartbeat_period);
    }
  }
}

TEST(GeodeConnections, LaterJoinersHoldStartUpConnectionsWithoutAppTraffic) {
  // No application traffic: every member admitted after m4 (m5, m6: later in view order)
  // holds m4's shared unordered connection (m4's replies to their StartupMessages), so m4's
  // process crash gives them EOF one latency later; m0..m3 joined before m4 and hold none.
  GeodeConfig c = conn_config();
  ASSERT_EQ(c.app_messages_per_s, 0.0);
  Harness h(c);
  h.at(at_ms(2000), [&] { h.hosts.crash(4); });
  h.run_until_s(6);
  std::set<NodeId> told;
  for (const json& r : h.records("connection_lost")) {
    if (r["peer"] != 4) continue;
    told.insert(r["node"].get<NodeId>());
    EXPECT_EQ(Harness::time_of(r), at_ms(2001));
  }
  EXPECT_EQ(told, (std::set<NodeId>{5, 6}));
}

TEST(GeodeConnections, AppRequestersHoldTheReplyConnection) {
  // An application message is a request answered over the receiver's shared unordered
  // connection: when m6 (the last joiner: no start-up connections from it) dies, exactly the
  // members that had sent m6 requests see EOF, not the members m6 had sent to.
  GeodeConfig c = conn_config();
  c.app_messages_per_s = 1;
  Harness h(c);
  h.at(at_ms(3000), [&] { h.hosts.crash(6); });
  h.run_until_s(4);
  std::set<NodeId> requesters, receivers, told;
  for (const json& r : h.records("recv")) {
    if (r["msg"] != "geode.app_message" || Harness::time_of(r) >= at_ms(3000)) continue;
    if (r["to"] == 6) requesters.insert(r["from"].get<NodeId>());
    if (r["from"] == 6) receivers.insert(r["to"].get<NodeId>());
  }
  for (const json& r : h.records("connection_lost"))
    if (r["peer"] == 6) told.insert(r["node"].get<NodeId>());
  ASSERT_FALSE(requesters.empty());
  ASSERT_NE(requesters, receivers);  // the run tells the two directions apart
  EXPECT_EQ(told, requesters);
}

TEST(GeodeConnections, GracefulLeaveGivesNoSuspicionOnItsConnections) {
  // A churn leave: m4 sent ShutdownMessage over its connections before closing them, so the
  // EOF of its connections makes no one verify it (GMSMembership.suspectMember skips
  // members shutting down); with application traffic and start-up connections both present.
  GeodeConfig c = conn_config();
  c.app_messages_per_s = 20;
  Harness h(c);
  h.at(at_ms(2000), [&] {
    h.m(4).leave();
    h.hosts.crash(4);
  });
  h.run_until_s(6);
  EXPECT_FALSE(h.first("connection_lost"));
  EXPECT_FALSE(h.first("availability_check_start", std::nullopt,
                       [](const json& r) { return about(r, "suspect", 4); }));
  EXPECT_TRUE(removal_after(h, 4, at_ms(2000)));
}

TEST(GeodeReconnect, AttemptGivesUpAfterJoinTimeoutThenWaitsAgain) {
  // m3 is removed at 1 s and cut off from everyone: its reconnect at 1 + 4 M = 5 s sends a
  // JoinRequest every M that nobody answers; after join_timeout (24 s) the attempt gives up
  // (GMSJoinLeave.join throws, InternalDistributedSystem.reconnect continues), the member
  // waits max(max_wait_time_reconnect, 4 M) = 4 s without sending, and tries again at 33 s.
  GeodeConfig c = conn_config();
  c.max_wait_time_reconnect = Duration::zero();
  ASSERT_EQ(c.join_timeout, Duration::ms(24000));
  Harness h(c);
  h.at(at_ms(1000), [&] {
    h.net.add_partition({3}, {}, /*one_way=*/false);
    h.m(3).on_remove_member(mid(0), mid(3));
  });
  h.run_until_s(40);
  const auto rc = h.records("reconnect", 3);
  ASSERT_GE(rc.size(), 2u);
  EXPECT_EQ(Harness::time_of(rc[0]), at_ms(5000));
  EXPECT_EQ(Harness::time_of(rc[1]), at_ms(33000));
  const auto failed = h.first("reconnect_attempt_failed", 3);
  ASSERT_TRUE(failed);
  EXPECT_EQ(Harness::time_of(*failed), at_ms(29000));
  EXPECT_FALSE(h.first("send", 3, [](const json& r) {
    return (r["msg"] == "geode.join_request" || r["msg"] == "geode.find_coordinator") &&
           Harness::time_of(r) > at_ms(29000) && Harness::time_of(r) < at_ms(33000);
  }));
  // Within an attempt it asks the locators (0 and 1) every M: at 5, 6, ..., 28 s.
  size_t asks = 0;
  for (const json& r : h.records("send", 3))
    if (r["msg"] == "geode.find_coordinator" && Harness::time_of(r) < at_ms(29000)) ++asks;
  EXPECT_EQ(asks, 2u * 24u);
}

TEST(GeodeReconnect, ForcedOutMemberRejoinsWithNewIdentity) {
  // m3 is told it is removed at 1 s; it waits max(max_wait_time_reconnect = 0, 4 M) = 4 s and
  // re-joins as a new identity; its old identity is removed by failure detection.
  GeodeConfig c = conn_config();
  c.max_wait_time_reconnect = Duration::zero();
  Harness h(c);
  h.at(at_ms(1000), [&] { h.m(3).on_remove_member(mid(0), mid(3)); });
  h.run_until_s(15);
  const auto rc = h.first("reconnect", 3);
  ASSERT_TRUE(rc);
  EXPECT_EQ(Harness::time_of(*rc), at_ms(5000));
  EXPECT_EQ((*rc)["incarnation"], 1u << kReconnectShift);
  EXPECT_TRUE(h.m(3).participating());
  EXPECT_EQ(h.m(3).id().incarnation, 1u << kReconnectShift);
  ASSERT_NE(h.m(0).view(), nullptr);
  EXPECT_TRUE(h.m(0).view()->contains(MemberId{3, 1u << kReconnectShift, -1}));
  EXPECT_FALSE(h.m(0).view()->contains(mid(3)));
  EXPECT_EQ(h.model->recorder().reconnects(), 1u);
  EXPECT_EQ(h.model->recorder().reconnects_completed(), 1u);
  // Out of the view from the disconnect to the install of the first view with the new
  // identity at m3.
  const auto back = h.first("view_installed", 3, [](const json& r) { return Harness::time_of(r) > at_ms(5000); });
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(h.model->recorder().out_of_view_s(3), (Harness::time_of(*back) - at_ms(1000)).seconds());
  EXPECT_EQ(h.model->recorder().participating_now(), 7u);
  const json m = h.model->metrics();
  EXPECT_EQ(m["reconnects_count"], 1);
  EXPECT_EQ(m["members_in_view_at_horizon_count"], 7);
}

TEST(GeodeReconnect, DisabledStaysOut) {
  GeodeConfig c = conn_config();
  c.max_wait_time_reconnect = Duration::zero();
  c.auto_reconnect = false;
  Harness h(c);
  h.at(at_ms(1000), [&] { h.m(3).on_remove_member(mid(0), mid(3)); });
  h.run_until_s(15);
  EXPECT_FALSE(h.first("reconnect"));
  EXPECT_TRUE(h.m(3).disconnected());
  EXPECT_DOUBLE_EQ(h.model->recorder().out_of_view_s(3), 14.0);
  EXPECT_EQ(h.model->recorder().participating_now(), 6u);
}

TEST(GeodeReconnect, WaitIsAtLeastFourMemberTimeouts) {
  GeodeConfig c = conn_config();
  EXPECT_EQ(c.reconnect_wait(), Duration::ms(60000));
  c.member_timeout = Duration::ms(20000);
  EXPECT_EQ(c.reconnect_wait(), Duration::ms(80000));
}

}  // namespace fdsim::geode::test
