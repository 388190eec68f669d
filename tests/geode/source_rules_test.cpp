// The `current` profile follows Geode's source where issue 15 found fdsim differing (the
// source rules, models/geode/README.md "Differences"): one test per behaviour, each with the
// exact instants of the trace (M = 1000 ms, T = 500 ms, 1 ms constant delays, m0 the
// coordinator unless stated). The `wiki` profile keeps the documented behaviour; where it
// matters the test checks that too.
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

std::vector<int64_t> prepared_ids(const Harness& h, NodeId n) {
  std::vector<int64_t> ids;
  for (const json& r : h.records("view_prepare", n)) ids.push_back(r["view_id"].get<int64_t>());
  return ids;
}

}  // namespace

// 1. The prepare phase.
TEST(GeodeSourceRules, PrepareStopsWaitingWhenTheSilentMemberIsBeingRemoved) {
  // 7 members. m3 crashes at 2.2 s: suspected by m2 at 4.0 s, final-checked by m0 from
  // 4.001 s, removal requested at 5.023 s, view 2 (without m3) prepared at 5.323 s. m5
  // crashes at 2.7 s: suspected by m4 at 4.5 s, final-checked from 4.501 s: it cannot ack
  // view 2, and its removal request (5.523 s) ends the wait at once: view 3 without m3 and
  // m5 is prepared then (m5 told first) and installed at 5.525 s. The old rule waited the
  // whole view_ack_timeout (2487 ms), checked m5 once and installed view 3 at 7.814 s, then
  // prepared an unchanged view 4 for m5's stale request.
  Harness h(config(Profile::current, 7));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.at(at_ms(2700), [&] { h.hosts.crash(5); });
  h.run_until(at_ms(5522));
  EXPECT_TRUE(h.m(0).prepare_waiting());
  h.run_until(at_ms(5526));
  EXPECT_FALSE(h.m(0).prepare_waiting());  // view 3 was prepared at 5.523 s and installed
  h.run_until_s(12);
  EXPECT_EQ(Harness::time_of(*h.first("view_prepare", 0)), at_ms(5323));
  const auto over = h.first("view_ack_wait_over", 0);
  ASSERT_TRUE(over);
  EXPECT_EQ(Harness::time_of(*over), at_ms(5523));
  EXPECT_EQ((*over)["not_acked"], json::array({5}));
  EXPECT_EQ((*over)["failed_to_respond"], json::array({5}));  // ended early: the pending removals
  EXPECT_FALSE(h.first("view_ack_timeout", 0));
  EXPECT_FALSE(h.first("availability_check_start", 0));  // m5 had a removal request
  const auto v3 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ(Harness::time_of(*v3), at_ms(5525));
  EXPECT_EQ((*v3)["members"], json::array({0, 1, 2, 4, 6}));
  // 7. No view when membership would not change: m5's request met a view without m5.
  EXPECT_EQ(prepared_ids(h, 0), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(h.first("view_unchanged", 0));
  const auto& crashes = h.model->recorder().crashes();
  ASSERT_EQ(crashes.size(), 2u);
  EXPECT_EQ(*crashes[0].removal, at_ms(5525));
  EXPECT_EQ(*crashes[1].removal, at_ms(5525));
}

TEST(GeodeSourceRules, PrepareStopsWaitingWhenAFinalCheckOfTheSilentMemberStarts) {
  // As above, but m5 crashes at 5.3225 s, just before view 2 is prepared: its watcher m4
  // suspects it at 7.0 s and m0's final check starts at 7.001 s, which ends the wait
  // (memberSuspected). The availability check of m5 fails at once (refused), and the phase
  // waits for the final check, which requests the removal at 8.023 s: view 3 goes out then.
  Harness h(config(Profile::current, 7));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.at(SimTime::from_ns(5'322'500'000), [&] { h.hosts.crash(5); });
  h.run_until_s(12);
  const auto over = h.first("view_ack_wait_over", 0);
  ASSERT_TRUE(over);
  EXPECT_EQ(Harness::time_of(*over), at_ms(7001));
  const auto check = h.first("availability_check_start", 0);
  ASSERT_TRUE(check);
  EXPECT_EQ(Harness::time_of(*check), at_ms(7001));
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) {
    return about(r, "suspect", 5) && r["attempt"] == 1;
  });
  ASSERT_TRUE(tcp);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(7003));
  const auto removed = h.first("view_unresponsive_removed", 0);
  ASSERT_TRUE(removed);
  EXPECT_EQ(Harness::time_of(*removed), at_ms(8023));
  const auto v3 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ(Harness::time_of(*v3), at_ms(8025));
  EXPECT_EQ(prepared_ids(h, 0), (std::vector<int64_t>{2, 3}));
}

// 2. view_ack_timeout.
TEST(GeodeSourceRules, ViewAckTimeoutIsComputedInIntegerMilliseconds) {
  // GMSJoinLeave.init: memberTimeout * 2 * 12437 / 10000 in long arithmetic.
  EXPECT_EQ(GeodeConfig::defaults(Profile::current, Duration::ms(2000), 5).view_ack_timeout,
            Duration::ms(4974));  // 4974.8 truncated
  EXPECT_EQ(GeodeConfig::defaults(Profile::wiki, Duration::ms(2000), 5).view_ack_timeout,
            Duration::ms(4975));  // the wiki formula, rounded
  EXPECT_EQ(GeodeConfig::defaults(Profile::current, Duration::ms(1000), 5).view_ack_timeout,
            Duration::ms(2487));
  EXPECT_EQ(GeodeConfig::defaults(Profile::current, Duration::ms(5000), 5).view_ack_timeout,
            Duration::ms(12437));
  EXPECT_EQ(GeodeConfig::defaults(Profile::current, Duration::ms(600), 5).view_ack_timeout,
            Duration::ms(1500));
}

// 3. The TCP final check retries.
TEST(GeodeSourceRules, TcpFinalCheckRetriesAnErrorAnswerUntilTheMemberTimeout) {
  // m3 restarts (incarnation 1); the coordinator's final check of the old identity gets
  // "error" at every attempt and keeps trying until start + M: 11 attempts, 1022 ms.
  // (wiki keeps the old rule: Case11 fails the check at the first error, 2 ms.)
  Harness h(config(Profile::current, 7));
  h.at(at_ms(1000), [&] { h.hosts.crash(3); });
  h.at(at_ms(1050), [&] { h.hosts.recover(3); });
  h.at(at_ms(1100), [&] { h.m(0).start_final_check(MemberId{3, 0, 1}, mid(0)); });
  h.run_until(at_ms(2200));
  const auto tcp = h.first("tcp_check_result", 0);
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "error");
  EXPECT_EQ((*tcp)["attempt"], 11);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(2122));
  const auto failed = h.first("final_check_failed", 0);
  ASSERT_TRUE(failed);
  EXPECT_EQ(Harness::time_of(*failed), at_ms(2122));
}

TEST(GeodeSourceRules, TcpFinalCheckOfAPausedMemberPassesAtTheResumeWithinTheBudget) {
  // m4 paused from 0.95 s to 1.6 s: the connect made at 1.0 s hangs until the resume and
  // is answered then: the final check passes at 1.6015 s (one attempt).
  Harness h(config(Profile::current, 7));
  h.at(at_ms(950), [&] { h.hosts.pause(4); });
  h.at(at_ms(1600), [&] { h.hosts.resume(4); });
  h.at(at_ms(1000), [&] { h.m(0).start_final_check(mid(4), mid(0)); });
  h.run_until_s(3);
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return about(r, "suspect", 4); });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "ok");
  EXPECT_EQ((*tcp)["attempt"], 1);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(1601));
  EXPECT_FALSE(h.first("removal_requested"));
}

// 4. Reliable replies.
TEST(GeodeSourceRules, HeartbeatReplyIsRetransmittedOverTheReliableChannel) {
  // m4 -> m3 is cut from 0.2 s to 1.4 s. m3 grace-stamps m4 at 0.5 s and checks it at
  // 1.0 s; m4 replies at 1.001 s into the cut. current: the reply is a UNICAST3 message;
  // m4's xmit task (runs at 0.5 s, 1.0 s, ...) stores the watermark at 1.5 s and resends the
  // reply at 2.0 s (tests/geode/unicast3_test.cpp); the copy arrives at 2.001 s, after the
  // check's wait ended at 2.0 s, so in both profiles the check passes then by m4's periodic
  // heartbeat of 1.5 s (the old rule resent at 1.501 s: passed at 1.502 s by the reply).
  // wiki: the reply is a datagram, lost, never resent.
  for (Profile p : {Profile::current, Profile::wiki}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    GeodeConfig c = config(p, 7);
    c.check_threshold = Duration::ms(500);  // the same check instant in both profiles
    Harness h(c);
    uint32_t cut = 0;
    h.at(at_ms(200), [&] { cut = h.net.add_partition({4}, {3}, /*one_way=*/true); });
    h.at(at_ms(1400), [&] { h.net.heal(cut); });
    h.run_until_s(3);
    EXPECT_EQ(Harness::time_of(*h.first("check_start", 3)), at_ms(1000));
    const auto passed = h.first("check_passed", 3);
    ASSERT_TRUE(passed);
    EXPECT_EQ((*passed)["replied"], false);
    EXPECT_EQ(Harness::time_of(*passed), at_ms(2000));
    EXPECT_FALSE(h.first("suspect", 3));
    const auto resend = h.first("xmit_resend", 4);
    ASSERT_EQ(resend.has_value(), p == Profile::current);
    if (resend) {
      EXPECT_EQ(Harness::time_of(*resend), at_ms(2000));
      EXPECT_EQ((*resend)["to"], 3);
    }
  }
}

TEST(GeodeSourceRules, RefutationIsRetransmittedOverTheReliableChannel) {
  // 4 members (a suspicion goes to everyone). m3 -> m2 is cut from 0.2 s to 2.5005 s, and
  // m0 -> m2 until 3.5 s (so that m0's FinalCheckPassed cannot clear m2's suspicion first).
  // m2 checks m3 at 1.0 s and suspects it at 2.0 s; m3 refutes at 2.001 s into the cut.
  // current: m3's xmit task resends the refutation at 3.0 s (below), together with m3's
  // periodic heartbeat of 3.0 s: the suspicion clears at 3.001 s,
  // as in wiki, where the refutation is a lost datagram and the heartbeat clears it. (The old
  // rule resent at 2.501 s and cleared at 2.502 s.)
  for (Profile p : {Profile::current, Profile::wiki}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    GeodeConfig c = config(p, 4);
    c.check_threshold = Duration::ms(500);
    Harness h(c);
    uint32_t cut = 0;
    h.at(at_ms(200), [&] {
      cut = h.net.add_partition({3}, {2}, true);
      h.net.add_partition({0}, {2}, true);
    });
    h.at(SimTime::from_ns(2'500'500'000), [&] { h.net.heal(cut); });
    h.run_until(at_ms(3100));
    EXPECT_EQ(Harness::time_of(*h.first("suspect", 2)), at_ms(2000));
    const auto refute = h.first("refute", 3);
    ASSERT_TRUE(refute);
    EXPECT_EQ(Harness::time_of(*refute), at_ms(2001));
    const auto cleared = h.first("unsuspect", 2, [](const json& r) { return about(r, "member", 3); });
    ASSERT_TRUE(cleared);
    EXPECT_EQ(Harness::time_of(*cleared), at_ms(3001));
    // m3's reliable messages to m2 in the cut: the reply to m2's check (1.001 s, seqno 1),
    // resent at 2.0 s (lost); the refutation (seqno 2) moves the watermark, stored at 2.5 s,
    // and is resent at 3.0 s.
    std::vector<std::pair<SimTime, int>> resends;
    for (const json& r : h.records("xmit_resend", 3))
      if (r["to"] == 2) resends.emplace_back(Harness::time_of(r), r["seqno"].get<int>());
    if (p == Profile::current) {
      EXPECT_EQ(resends, (std::vector<std::pair<SimTime, int>>{{at_ms(2000), 1}, {at_ms(3000), 2}}));
    } else {
      EXPECT_TRUE(resends.empty());
    }
  }
}

// 5. What counts as contact.
TEST(GeodeSourceRules, OnlyHeartbeatsRepliesAndApplicationMessagesCountAsContact) {
  // m6 sends its heartbeats to m0, m5 and m4, never to m3. At 2.0 s m6 raises a suspicion
  // (7 members: it goes to everyone, m3 included): a membership message, not contact.
  {
    Harness h(config(Profile::current, 7));
    h.at(at_ms(2000), [&] { h.m(6).initiate_suspicion(mid(1)); });
    h.run_until(at_ms(2100));
    ASSERT_TRUE(h.first("suspicion_received", 3, [](const json& r) { return r["from"] == 6; }));
    EXPECT_FALSE(h.m(3).last_contact(mid(6)).has_value());
  }
  // Application messages (100 a second per member, so about 17 a second from m6 to m3) do
  // count, with the last tick's time.
  GeodeConfig c = config(Profile::current, 7);
  c.app_messages_per_s = 100;
  Harness h(c);
  h.run_until(at_ms(5100));
  const auto t = h.m(3).last_contact(mid(6));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t - SimTime::zero()).count_ns() % 500'000'000, 0);  // a tick instant
  EXPECT_GE(*t, at_ms(4500));
  EXPECT_TRUE(h.first("recv", 3, [](const json& r) { return r["msg"] == "geode.app_message"; }));
  // wiki: heartbeats only.
  GeodeConfig w = config(Profile::wiki, 7);
  w.app_messages_per_s = 100;
  Harness hw(w);
  hw.run_until(at_ms(5100));
  EXPECT_FALSE(hw.m(3).last_contact(mid(6)).has_value());
}

// 6. Sick members.
TEST(GeodeSourceRules, SickMemberNeverSuspectsAnyone) {
  // m3 is sick from 0.1 s and its neighbour m4 crashes at 0.3 s. m3 ignores heartbeats, so
  // m4 (and everyone) looks silent to it, but a sick member's checks pass at once: it never
  // sends a heartbeat request nor raises a suspicion. (wiki: m3 checks m4 and suspects it.)
  for (Profile p : {Profile::current, Profile::wiki}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    Harness h(config(p, 7));
    h.at(at_ms(100), [&] { h.hosts.set_sick(3, true); });
    h.at(at_ms(300), [&] { h.hosts.crash(4); });
    h.run_until_s(6);
    if (p == Profile::current) {
      EXPECT_FALSE(h.first("check_start", 3));
      EXPECT_FALSE(h.first("suspect", 3));
      const auto skipped = h.first("check_skipped_sick", 3);
      ASSERT_TRUE(skipped);
      EXPECT_EQ(Harness::time_of(*skipped), at_ms(1000));  // grace 0.5 s, due at 1.0 s
      EXPECT_FALSE(h.first("send", 3, [](const json& r) { return r["msg"] == "geode.heartbeat_request"; }));
      EXPECT_TRUE(h.m(0).view()->contains(mid(4)));  // nobody else watches m4
    } else {
      EXPECT_TRUE(h.first("suspect", 3, [](const json& r) { return about(r, "suspect", 4); }));
    }
  }
}

// 7. Views.
TEST(GeodeSourceRules, RemovedMembersAreToldBeforeThePrepare) {
  // The coordinator removes a live m4 (a false removal): the RemoveMember message goes out
  // at 1.3 s before the PrepareView, and m4 shuts down at 1.301 s (wiki: only when the
  // InstallView reaches it, 1.303 s).
  for (Profile p : {Profile::current, Profile::wiki}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    Harness h(config(p, 7));
    h.at(at_ms(1000), [&] { h.m(0).request_removal(mid(4)); });
    h.run_until_s(2);
    const auto down = h.first("forced_disconnect", 4);
    ASSERT_TRUE(down);
    EXPECT_EQ((*down)["reason"], "removed");
    EXPECT_EQ(Harness::time_of(*down), p == Profile::current ? at_ms(1301) : at_ms(1303));
    if (p == Profile::current) {
      std::vector<std::string> order;
      for (const json& r : h.records("send", 0))
        if (Harness::time_of(r) == at_ms(1300)) order.push_back(r["msg"]);
      ASSERT_FALSE(order.empty());
      EXPECT_EQ(order.front(), "geode.remove_member");
    }
  }
}

TEST(GeodeSourceRules, SuspicionFromANonMemberMakesTheReceiverRemoveTheSender) {
  // m0 removes m4 at 1.3 s, but nothing from m0 reaches m4 (cut from 0.9 s): m4 carries on
  // with view 1. At 2.0 s it suspects m5 and tells everyone of view 1; m3, whose view 2 no
  // longer has m4, requests m4's removal, which tells m4 directly: m4 shuts down at 2.002 s.
  Harness h(config(Profile::current, 7));
  h.at(at_ms(900), [&] { h.net.add_partition({0}, {4}, /*one_way=*/true); });
  h.at(at_ms(1000), [&] { h.m(0).request_removal(mid(4)); });
  h.at(at_ms(2000), [&] { h.m(4).initiate_suspicion(mid(5)); });
  h.run_until(at_ms(2100));
  ASSERT_EQ(h.m(3).view()->id, 2);
  const auto seen = h.first("suspicion_from_non_member", 3);
  ASSERT_TRUE(seen);
  EXPECT_EQ(Harness::time_of(*seen), at_ms(2001));
  const auto down = h.first("forced_disconnect", 4);
  ASSERT_TRUE(down);
  EXPECT_EQ(Harness::time_of(*down), at_ms(2002));
  EXPECT_FALSE(h.first("suspicion_received", 3, [](const json& r) { return r["from"] == 4; }));
}

TEST(GeodeSourceRules, RemovalRequestGoesToThePreferredCoordinators) {
  // Locators m0 and m1: m3's removal request about m5 goes to m0 and m1 (GMSJoinLeave.remove
  // sends to up to 10 preferred coordinators first, then to non-preferred members).
  GeodeConfig c = config(Profile::current, 12);
  c.locators = {0, 1};
  Harness h(c);
  h.at(at_ms(1000), [&] { h.m(3).request_removal(mid(5)); });
  h.run_until(at_ms(1004));
  std::vector<NodeId> to;
  for (const json& r : h.records("send", 3))
    if (r["msg"] == "geode.remove_member") to.push_back(r["to"].get<NodeId>());
  // preferred m0 m1, then me, then non-preferred in view order up to 10 in all.
  EXPECT_EQ(to, (std::vector<NodeId>{0, 1, 2, 4, 5, 6, 7, 8, 9}));
  // m5 is among them (the subject is not filtered out): alive, it shuts down at once.
  EXPECT_EQ(Harness::time_of(*h.first("forced_disconnect", 5)), at_ms(1001));
  // A member that has seen the request treats m5 as leaving: no suspicion of it.
  h.at(at_ms(1005), [&] { h.m(1).initiate_suspicion(mid(5)); });
  h.run_until(at_ms(1010));
  EXPECT_FALSE(h.first("suspect", 1));
}

// 8. Ticks missed during a pause.
TEST(GeodeSourceRules, TicksMissedDuringAPauseRunBackToBackAtTheResume) {
  // m3 is paused from 1.2 s to 3.2 s: its ticks of 1.5, 2.0, 2.5 and 3.0 s all run at
  // 3.2 s, in order; the next one keeps the phase (3.5 s). (wiki: one deferred tick.)
  for (Profile p : {Profile::current, Profile::wiki}) {
    SCOPED_TRACE(std::string(profile_name(p)));
    Harness h(config(p, 7));
    h.at(at_ms(1200), [&] { h.hosts.pause(3); });
    h.at(at_ms(3200), [&] { h.hosts.resume(3); });
    h.run_until(at_ms(3600));
    std::vector<double> due;
    for (const json& r : h.records("late_tick", 3)) {
      EXPECT_EQ(Harness::time_of(r), at_ms(3200));
      due.push_back(r["due_ms"].get<double>());
    }
    if (p == Profile::current)
      EXPECT_EQ(due, (std::vector<double>{1500, 2000, 2500, 3000}));
    else
      EXPECT_TRUE(due.empty());
    // The replayed 1.5 s tick found m4 silent since 1.001 s and checked it.
    const auto check = h.first("check_start", 3);
    ASSERT_TRUE(check);
    EXPECT_EQ(Harness::time_of(*check), at_ms(3200));
  }
}

}  // namespace fdsim::geode::test
