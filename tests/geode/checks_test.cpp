// Acceptance cases 3, 5, 6, 9, 10, 12 and 13: the monitor tick, neighbour checks, final checks
// and the ways a suspicion is cleared. M = 1000 ms, 1 ms constant latency, members m0..m6.
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {

TEST(GeodeAcceptance, Case03_GraceTickThenCheck) {
  for (Profile p : {Profile::wiki, Profile::current}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    Harness h(config(p, 7));
    h.at(SimTime::zero(), [&] { h.hosts.crash(4); });  // silent from the start
    h.run_until_s(5);
    const Duration threshold = h.cfg.check_threshold;  // wiki M, current M - T
    const auto grace = h.first("grace_stamp", 3);
    ASSERT_TRUE(grace);
    EXPECT_EQ((*grace)["neighbour"], 4);
    EXPECT_EQ(Harness::time_of(*grace), at_ms(500));  // the first tick only stamps
    const auto check = h.first("check_start", 3);
    ASSERT_TRUE(check);
    EXPECT_EQ(Harness::time_of(*check), Harness::time_of(*grace) + threshold);
    const auto suspect = h.first("suspect", 3);
    ASSERT_TRUE(suspect);
    EXPECT_EQ((*suspect)["suspect"], 4);
    EXPECT_GE(Harness::time_of(*suspect), Harness::time_of(*grace) + threshold + h.cfg.member_timeout);
    EXPECT_EQ(Harness::time_of(*suspect), at_ms(500) + threshold + Duration::ms(1000));
  }
}

TEST(GeodeAcceptance, Case05_HeartbeatDuringCheckPasses_WatchReturns) {
  // m4's heartbeats (and its reply) to m3 are cut from 0.2 s to 1.8 s. m3 grace-stamps m4 at
  // 0.5 s and checks it at 1.5 s (watch -> m5); the reply is cut; m4's heartbeat of 2.0 s
  // arrives at 2.001 s, inside the wait, so the check passes at 2.5 s and the watch returns.
  Harness h(config(Profile::wiki, 7));
  uint32_t cut = 0;
  h.at(at_ms(200), [&] { cut = h.net.add_partition({4}, {3}, /*one_way=*/true); });
  h.at(at_ms(1800), [&] { h.net.heal(cut); });
  h.run_until(at_ms(1600));
  EXPECT_TRUE(h.m(3).neighbour_checking(mid(4)));
  EXPECT_EQ(h.m(3).neighbour(), mid(5));
  h.run_until_s(2.6);
  const auto passed = h.first("check_passed", 3);
  ASSERT_TRUE(passed);
  EXPECT_EQ((*passed)["target"], 4);
  EXPECT_EQ((*passed)["replied"], false);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(2500));
  EXPECT_EQ(h.m(3).neighbour(), mid(4));
  EXPECT_FALSE(h.first("suspect", 3));
}

TEST(GeodeAcceptance, Case06_FailedCheckLeavesTheWatchOnTheNextMember) {
  Harness h(config(Profile::current, 7));
  h.at(at_ms(100), [&] { h.hosts.crash(4); });
  h.run_until(at_ms(2001));
  const auto failed = h.first("check_failed", 3);
  ASSERT_TRUE(failed);
  EXPECT_EQ(Harness::time_of(*failed), at_ms(2000));
  EXPECT_TRUE(h.m(3).suspects(mid(4)));
  EXPECT_EQ(h.m(3).neighbour(), mid(5));
}

TEST(GeodeAcceptance, Case09_FinalCheckPassesOnHeartbeatWhenTcpFails) {
  // m0 -> m3 is cut one way at 1.0 s: the TCP check hangs until its timeout, but m3's
  // heartbeats still reach m0, so the final check started at 1.1 s passes at 2.1 s.
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(1000), [&] { h.net.add_partition({0}, {3}, /*one_way=*/true); });
  h.at(at_ms(1100), [&] { h.m(0).start_final_check(mid(3), mid(0)); });
  h.run_until_s(2.2);
  const auto tcp = h.first("tcp_check_result", 0);
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "timed_out");
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(2100));
  const auto passed = h.first("final_check_passed", 0);
  ASSERT_TRUE(passed);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(2100));
  EXPECT_FALSE(h.first("removal_requested"));
  // The others (not the suspect, not m0) are told.
  std::set<NodeId> told;
  for (const json& r : h.records("send", 0))
    if (r["msg"] == "geode.final_check_passed") told.insert(r["to"].get<NodeId>());
  EXPECT_EQ(told, (std::set<NodeId>{1, 2, 4, 5, 6}));
}

TEST(GeodeAcceptance, Case10_ContactFromASuspectedMemberClearsTheSuspicion) {
  // m4 -> m3 cut from 0.2 s to 2.6 s: m3 suspects m4 at 2.5 s. m0 -> m4 is cut too, so m0's
  // final check can only pass at 3.501 s (by m4's heartbeats). Before that, m4's heartbeat
  // of 3.0 s reaches m3 at 3.001 s and clears m3's suspicion by itself.
  Harness h(config(Profile::wiki, 7));
  uint32_t cut = 0;
  h.at(at_ms(200), [&] {
    cut = h.net.add_partition({4}, {3}, true);
    h.net.add_partition({0}, {4}, true);
  });
  h.at(at_ms(2600), [&] { h.net.heal(cut); });
  h.run_until(at_ms(2700));
  EXPECT_TRUE(h.m(3).suspects(mid(4)));
  EXPECT_EQ(h.m(3).neighbour(), mid(5));
  h.run_until(at_ms(3100));
  const auto cleared = h.first("unsuspect", 3, [](const json& r) { return about(r, "member", 4); });
  ASSERT_TRUE(cleared);
  EXPECT_EQ(Harness::time_of(*cleared), at_ms(3001));
  EXPECT_FALSE(h.m(3).suspects(mid(4)));
  EXPECT_EQ(h.m(3).neighbour(), mid(4));
  EXPECT_FALSE(h.first("final_check_passed", 0));  // still running: the contact alone did it
}

TEST(GeodeAcceptance, Case10_FinalCheckPassedClearsMySuspicion) {
  // m4 -> m3 cut: m3 suspects m4 at 2.5 s; m0's final check gets TCP OK at 2.503 s and tells
  // m3, which clears its suspicion at 2.504 s (m4's heartbeats to m3 are still cut).
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(200), [&] { h.net.add_partition({4}, {3}, true); });
  h.run_until(at_ms(2600));
  const auto passed = h.first("final_check_passed", 0);
  ASSERT_TRUE(passed);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(2503));
  const auto cleared = h.first("unsuspect", 3, [](const json& r) { return about(r, "member", 4); });
  ASSERT_TRUE(cleared);
  EXPECT_EQ(Harness::time_of(*cleared), at_ms(2504));
  EXPECT_FALSE(h.m(3).suspects(mid(4)));
  EXPECT_EQ(h.m(3).neighbour(), mid(4));
}

TEST(GeodeAcceptance, Case10_FinalCheckPassedDoesNotClearWhileIFinalCheckMyself) {
  // As above, but m3 and m4 are cut both ways and m3 runs its own final check of m4 (started
  // just after its suspicion): the FinalCheckPassed from m0 at 2.504 s is ignored.
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(200), [&] { h.net.add_partition({3}, {4}, false); });
  h.at(SimTime::from_ns(2'500'500'000), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  h.run_until(at_ms(2600));
  ASSERT_TRUE(h.first("final_check_passed", 0));
  EXPECT_TRUE(h.m(3).final_checking(mid(4)));
  EXPECT_TRUE(h.m(3).suspects(mid(4)));
  EXPECT_FALSE(h.first("final_check_passed_received", 3));
  // m5, which did not suspect m4, processed the same message.
  EXPECT_TRUE(h.first("final_check_passed_received", 5));
}

TEST(GeodeAcceptance, Case12_SickMemberIgnoresRequestsAndSuspicionsButPassesTcp) {
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(1000), [&] { h.hosts.set_sick(4, true); });
  h.at(at_ms(1200), [&] { h.m(3).start_neighbour_check(mid(4)); });
  h.at(at_ms(2300), [&] { h.m(0).start_final_check(mid(4), mid(0)); });
  h.at(at_ms(2400), [&] { h.m(3).initiate_suspicion(mid(5)); });
  h.run_until_s(2.6);
  // The heartbeat request is ignored (no reply), but m4's periodic heartbeats pass the check.
  const auto ignored = h.first("ignored_sick", 4, [](const json& r) { return r["msg"] == "heartbeat_request"; });
  ASSERT_TRUE(ignored);
  EXPECT_EQ(Harness::time_of(*ignored), at_ms(1201));
  const auto passed = h.first("check_passed", 3);
  ASSERT_TRUE(passed);
  EXPECT_EQ((*passed)["replied"], false);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(2200));
  // The TCP check is still answered OK.
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return r["suspect"] == 4; });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "ok");
  EXPECT_TRUE(h.first("final_check_passed", 0, [](const json& r) { return r["suspect"] == 4; }));
  // Suspicions from others are ignored.
  EXPECT_TRUE(h.first("ignored_sick", 4, [](const json& r) { return r["msg"] == "suspect_members"; }));
  EXPECT_FALSE(h.first("suspicion_received", 4));
  EXPECT_TRUE(h.first("suspicion_received", 6));
}

TEST(GeodeAcceptance, Case12_PlayDeadMemberFailsEverything) {
  Harness h(config(Profile::wiki, 7));
  h.at(at_ms(3000), [&] { h.hosts.set_play_dead(5, true); });
  h.at(at_ms(3100), [&] { h.m(0).start_final_check(mid(5), mid(0)); });
  h.run_until_s(4.2);
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return r["suspect"] == 5; });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "timed_out");
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(4100));
  EXPECT_TRUE(h.first("final_check_failed", 0, [](const json& r) { return r["suspect"] == 5; }));
  EXPECT_TRUE(h.first("removal_requested", 0, [](const json& r) { return r["target"] == 5; }));
  // The heartbeat request of the final check never arrived.
  EXPECT_FALSE(h.first("recv", 5, [](const json& r) { return r["msg"] == "geode.heartbeat_request"; }));
}

TEST(GeodeAcceptance, Case13_SuspectedMemberRefutesWithAHeartbeatToTheSender) {
  // 4 members (every member gets the suspicion, the suspect too). m3 -> m2 is cut until just
  // after m3's periodic heartbeat of 2.5 s: m2 suspects m3 at 2.5 s; m3 gets the suspicion at
  // 2.501 s and sends a heartbeat to m2, which clears its suspicion at 2.502 s.
  Harness h(config(Profile::wiki, 4));
  uint32_t cut = 0;
  h.at(at_ms(200), [&] { cut = h.net.add_partition({3}, {2}, true); });
  h.at(SimTime::from_ns(2'500'500'000), [&] { h.net.heal(cut); });
  h.run_until(at_ms(2600));
  const auto suspect = h.first("suspect", 2);
  ASSERT_TRUE(suspect);
  EXPECT_EQ(Harness::time_of(*suspect), at_ms(2500));
  const auto refute = h.first("refute", 3);
  ASSERT_TRUE(refute);
  EXPECT_EQ((*refute)["to"], 2);
  EXPECT_EQ(Harness::time_of(*refute), at_ms(2501));
  const auto cleared = h.first("unsuspect", 2, [](const json& r) { return about(r, "member", 3); });
  ASSERT_TRUE(cleared);
  EXPECT_EQ(Harness::time_of(*cleared), at_ms(2502));
  EXPECT_FALSE(h.m(2).suspects(mid(3)));
}

}  // namespace fdsim::geode::test
