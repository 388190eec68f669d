// Geode's own unit tests (GMSHealthMonitorJUnitTest, GMSJoinLeaveJUnitTest), mirrored through
// the simulator: each test is named after the Geode test and asserts what it asserts, on the
// `current` profile (the source rules). As in Geode's tests: members m0..m6, m0 and m1 the
// locators (preferred coordinators, m0 the coordinator), "me" = m3, member timeout M =
// 1000 ms; 1 ms constant delays here.
#include <gtest/gtest.h>

#include "models/geode/view_reply.h"
#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

GeodeConfig geode_test_config(size_t n = 7) {
  GeodeConfig c = config(Profile::current, n);
  c.locators = {0, 1};
  return c;
}

}  // namespace

// --- GMSHealthMonitorJUnitTest ---

TEST(GeodeMirror, TcpCheckMemberTriesUntilTimeout) {
  // Geode: a server that accepts and closes each connection (EOF, not OK); doTCPCheckMember
  // with retries takes at least the member timeout. Here: m4 restarts, so the process on its
  // host answers a check of the old identity with an error; m3's final check keeps trying.
  Harness h(geode_test_config());
  const MemberId old4 = mid(4);
  h.at(at_ms(1000), [&] { h.hosts.crash(4); });
  h.at(at_ms(1050), [&] { h.hosts.recover(4); });
  h.at(at_ms(1100), [&] { h.m(3).start_final_check(old4, mid(3)); });
  h.run_until_s(3);
  const auto tcp = h.first("tcp_check_result", 3, [](const json& r) { return about(r, "suspect", 4); });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "error");
  EXPECT_GE(Harness::time_of(*tcp), at_ms(1100) + h.cfg.member_timeout);
  // Attempts end at +2, +104, ..., the 11th at +1022 ms (the first end at or after M).
  EXPECT_EQ((*tcp)["attempt"], 11);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(1100 + 1022));
  size_t served = 0;
  for (const json& r : h.records("tcp_check_served", 4)) served += r["answer"] == "error";
  EXPECT_EQ(served, 11u);
}

// MemberIsExaminedAgainAfterPassingAvailabilityCheck: mirror26_test.cpp (Geode's mechanism).

TEST(GeodeMirror, FinalCheckFailureLeavesMemberAsSuspect) {
  Harness h(geode_test_config());
  h.at(at_ms(300), [&] { h.hosts.crash(4); });
  h.at(at_ms(450), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  h.run_until(at_ms(1480));
  const auto failed = h.first("final_check_failed", 3);
  ASSERT_TRUE(failed);
  EXPECT_EQ(Harness::time_of(*failed), at_ms(450 + 1022));
  EXPECT_TRUE(h.first("removal_requested", 3, [](const json& r) { return about(r, "target", 4); }));
  EXPECT_TRUE(h.m(3).suspects(mid(4)));
}

TEST(GeodeMirror, NeighborRemainsSameAfterSuccessfulFinalCheck) {
  // While m3 checks its neighbour m4 it watches the member after it (setNextNeighbor(view,
  // m4)); once the check passed it watches m4 again.
  Harness h(geode_test_config());
  ASSERT_EQ(h.m(3).neighbour(), mid(4));
  std::optional<MemberId> during;
  h.at(at_ms(1000), [&] {
    h.m(3).start_final_check(mid(4), mid(3));
    during = h.m(3).neighbour();
  });
  h.run_until(at_ms(1010));
  EXPECT_EQ(during, mid(5));
  ASSERT_TRUE(h.first("final_check_passed", 3));
  EXPECT_EQ(h.m(3).neighbour(), mid(4));
  EXPECT_FALSE(h.m(3).suspects(mid(4)));
}

TEST(GeodeMirror, NeighborChangesAfterFailedFinalCheck) {
  Harness h(geode_test_config());
  h.at(at_ms(300), [&] { h.hosts.crash(4); });
  h.at(at_ms(450), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  h.run_until(at_ms(1480));
  ASSERT_TRUE(h.first("final_check_failed", 3));
  EXPECT_EQ(h.m(3).neighbour(), mid(5));  // the member after the failed one
}

TEST(GeodeMirror, FinalCheckInProgressPreemptsLivenessGossip) {
  // m3 final-checks m4 (cut off from m3 both ways, so the check is still running at 1.6 s); a
  // FinalCheckPassed about m4 must not touch m3's contact time of m4. A member that is not
  // checking m4 (m5) records the contact, with the time of its last tick (1.5 s).
  Harness h(geode_test_config());
  h.at(at_ms(900), [&] { h.net.add_partition({3}, {4}, /*one_way=*/false); });
  h.at(at_ms(1000), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  std::optional<SimTime> before, after, m5_before;
  h.at(at_ms(1600), [&] {
    ASSERT_TRUE(h.m(3).final_checking(mid(4)));
    before = h.m(3).last_contact(mid(4));
    h.m(3).on_final_check_passed(mid(0), mid(4));
    after = h.m(3).last_contact(mid(4));
    m5_before = h.m(5).last_contact(mid(4));
    h.m(5).on_final_check_passed(mid(0), mid(4));
  });
  h.run_until(at_ms(1601));
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(after, before);
  EXPECT_EQ(*before, at_ms(501));  // m4's heartbeat of 0.5 s; the 1.0 s one arrived at the cut
  EXPECT_FALSE(m5_before.has_value());  // m4 sends its heartbeats to m0, m3 and m2
  EXPECT_EQ(h.m(5).last_contact(mid(4)), at_ms(1500));
}

TEST(GeodeMirror, FailedSelfCheckRemovesMemberAsSuspect) {
  // checkIfAvailable(m4, not final) on a member whose own failure-detection socket does not
  // answer (here: m3 plays dead, so its TCP check of m4 hangs and so does its self-check):
  // the check fails, the self-check fails, and m4 is taken as available: no removal, not
  // suspected. Both m4 and m3 itself were checked.
  Harness h(geode_test_config());
  h.at(at_ms(900), [&] { h.hosts.set_play_dead(3, true); });
  std::optional<bool> available;
  SimTime when;
  h.at(at_ms(1000), [&] {
    h.m(3).check_if_available(mid(4), [&](bool a) {
      available = a;
      when = h.sim.now();
    });
  });
  h.run_until_s(4);
  ASSERT_TRUE(available.has_value());
  EXPECT_TRUE(*available);
  EXPECT_EQ(when, at_ms(3000));  // TCP check timed out at 2.0 s, self-check at 3.0 s
  const auto tcp = h.first("tcp_check_result", 3, [](const json& r) { return about(r, "suspect", 4); });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "timed_out");
  const auto self = h.first("self_check", 3);
  ASSERT_TRUE(self);
  EXPECT_EQ((*self)["passed"], false);
  EXPECT_FALSE(h.first("removal_requested", 3));
  EXPECT_FALSE(h.m(3).suspects(mid(4)));
}

TEST(GeodeMirror, FailedCheckIfAvailableDoesNotRemoveMember) {
  // A failed availability check (not final) initiates suspect processing but requests no
  // removal itself; the member stays suspected.
  Harness h(geode_test_config());
  h.at(at_ms(300), [&] { h.hosts.crash(4); });
  std::optional<bool> available;
  h.at(at_ms(450), [&] { h.m(3).check_if_available(mid(4), [&](bool a) { available = a; }); });
  h.run_until(at_ms(460));
  ASSERT_TRUE(available.has_value());
  EXPECT_FALSE(*available);
  const auto tcp = h.first("tcp_check_result", 3);
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["attempt"], 1);  // not final: no retry
  EXPECT_EQ((*h.first("self_check", 3))["passed"], true);
  EXPECT_TRUE(h.first("suspect", 3, [](const json& r) { return about(r, "suspect", 4); }));
  EXPECT_FALSE(h.first("removal_requested"));
  EXPECT_TRUE(h.m(3).suspects(mid(4)));
}

TEST(GeodeMirror, BeSickAndPlayDead) {
  // A sick member answers no heartbeat request, records no heartbeat, and ignores suspicions.
  Harness h(geode_test_config());
  h.at(at_ms(100), [&] { h.hosts.set_sick(3, true); });
  h.at(at_ms(1000), [&] { h.m(2).start_neighbour_check(mid(3)); });
  h.at(at_ms(1500), [&] { h.m(2).initiate_suspicion(mid(6)); });
  h.run_until(at_ms(2001));
  EXPECT_TRUE(h.first("ignored_sick", 3, [](const json& r) { return r["msg"] == "heartbeat_request"; }));
  // No reply: m2's check passes only by m3's periodic heartbeats (m3 sends to m0, m2, m1).
  const auto passed = h.first("check_passed", 2, [](const json& r) { return about(r, "target", 3); });
  ASSERT_TRUE(passed);
  EXPECT_EQ((*passed)["replied"], false);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(2000));
  // m5 heartbeats to m0, m4 and m3: m3 records none of them.
  EXPECT_TRUE(h.first("ignored_sick", 3, [](const json& r) { return r["msg"] == "heartbeat" && r["from"] == 5; }));
  EXPECT_FALSE(h.m(3).last_contact(mid(5)).has_value());
  EXPECT_TRUE(h.first("ignored_sick", 3, [](const json& r) { return r["msg"] == "suspect_members"; }));
  EXPECT_FALSE(h.first("suspicion_received", 3));
}

TEST(GeodeMirror, RemoveMemberNotCalledBeforeTimeout) {
  // The coordinator processes a suspicion of m1 (crashed): the removal is requested only
  // after the final check, at least the member timeout later.
  Harness h(geode_test_config());
  h.at(at_ms(900), [&] { h.hosts.crash(1); });
  h.at(at_ms(1000), [&] { h.m(0).on_suspect_members(mid(0), {mid(1)}); });
  h.run_until_s(3);
  const auto removal = h.first("removal_requested", 0, [](const json& r) { return about(r, "target", 1); });
  ASSERT_TRUE(removal);
  EXPECT_GE(Harness::time_of(*removal) - at_ms(1000), h.cfg.member_timeout);
  EXPECT_EQ(Harness::time_of(*removal), at_ms(1000 + 1022));
}

// --- GMSJoinLeaveJUnitTest ---

TEST(GeodeMirror, ViewReplyProcessor) {
  // GMSJoinLeaveJUnitTest.testViewReplyProcessor: one recipient suspected, one leaving, one
  // with a removal request and one reply end the wait.
  ViewReplyProcessor p;
  p.initialize(1, {mid(0), mid(1), mid(2), mid(3)});
  EXPECT_TRUE(p.waiting());
  p.member_suspected(mid(0));
  p.process_leave_request(mid(1));
  p.process_remove_request(mid(2));
  p.process_view_response(1, mid(3));
  EXPECT_FALSE(p.waiting());
  EXPECT_EQ(p.finish_wait(), (std::set<MemberId>{mid(0), mid(2)}));
}

TEST(GeodeMirror, ViewReplyProcessor2) {
  // GMSJoinLeaveJUnitTest.testViewReplyProcessor2: processPendingRequests with m0 leaving and
  // m1 a pending removal, then replies from m2 and m3: not waiting.
  ViewReplyProcessor p;
  p.initialize(1, {mid(0), mid(1), mid(2), mid(3)});
  EXPECT_TRUE(p.waiting());
  p.process_pending_requests({mid(0)}, {mid(1)});
  p.process_view_response(1, mid(2));
  p.process_view_response(1, mid(3));
  EXPECT_FALSE(p.waiting());
}

TEST(GeodeMirror, ProcessPendingRequestsDoesNotEndTheWait) {
  // GMSJoinLeave.java:1974-1989: processPendingRequests never calls checkIfDone, so a wait
  // whose only non-replier is a queued removal goes on until a reply, suspicion or removal
  // request checks it, or the ack timeout ends it (then: non-repliers plus removals).
  ViewReplyProcessor q;
  q.initialize(2, {mid(4)});
  q.process_pending_requests({}, {mid(4), mid(5)});
  EXPECT_TRUE(q.waiting());
  EXPECT_EQ(q.pending_removals(), (std::set<MemberId>{mid(4)}));  // m5 is not a recipient
  q.member_suspected(mid(4));  // already a pending removal: no checkIfDone (~1996)
  EXPECT_TRUE(q.waiting());
  EXPECT_EQ(q.finish_wait(), (std::set<MemberId>{mid(4)}));
  // A view response of another view is ignored; the ack timeout returns the silent members.
  ViewReplyProcessor r;
  r.initialize(3, {mid(4), mid(5)});
  r.process_view_response(7, mid(4));
  r.process_view_response(3, mid(5));
  EXPECT_TRUE(r.waiting());
  EXPECT_EQ(r.finish_wait(), (std::set<MemberId>{mid(4)}));
  EXPECT_FALSE(r.waiting());
}

TEST(GeodeMirror, PrepareWithOnlyQueuedRemovalsWaitsForTheAckTimeout) {
  // The coordinator's view-prepare wait (GMSJoinLeave.sendView ~985-989 + waitForResponses
  // ~2056): m0..m3, partition detection off, view_ack_timeout 600 ms. View 2 removes m3; m2
  // plays dead and does not ack, so its availability check fails and view 3 = {m0, m1} is
  // prepared; meanwhile a removal of m1 was queued and m1 plays dead. View 3's only recipient
  // is a queued removal: Geode waits the whole ack timeout before view 4 drops m1.
  GeodeConfig c = config(Profile::current, 4);
  c.partition_detection = false;
  c.view_ack_timeout = Duration::ms(600);
  Harness h(c);
  h.at(at_ms(1000), [&] { h.m(0).request_removal(mid(3)); });
  h.at(at_ms(1250), [&] { h.hosts.set_play_dead(2, true); });
  h.at(at_ms(2000), [&] { h.m(0).on_remove_member(mid(2), mid(1)); });
  h.at(at_ms(2400), [&] { h.hosts.set_play_dead(1, true); });
  h.run_until_s(6);
  const auto v3 = h.first("view_prepare", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ((*v3)["members"], json::array({0, 1}));
  const auto v4 = h.first("view_prepare", 0, [](const json& r) { return r["view_id"] == 4; });
  ASSERT_TRUE(v4);
  EXPECT_EQ((*v4)["members"], json::array({0}));
  EXPECT_EQ(Harness::time_of(*v4), Harness::time_of(*v3) + c.view_ack_timeout);
}

TEST(GeodeMirror, NoViewAckCausesRemovalMessage) {
  // m5 plays dead just before view 2 is prepared, so it does not ack. view_ack_timeout is
  // shortened to 600 ms (before m5's watcher would suspect it): at 1.9 s the coordinator
  // checks m5's availability; m5 keeps failing it, the phase gives up 600 ms later, m5 is
  // sent a RemoveMember message and view 3 goes out without it.
  GeodeConfig c = geode_test_config();
  c.view_ack_timeout = Duration::ms(600);
  Harness h(c);
  h.at(at_ms(1000), [&] { h.m(0).request_removal(mid(6)); });
  h.at(at_ms(1250), [&] { h.hosts.set_play_dead(5, true); });
  h.run_until_s(4);
  const auto prepared = h.first("view_prepare", 0, [](const json& r) { return r["view_id"] == 2; });
  ASSERT_TRUE(prepared);
  EXPECT_EQ(Harness::time_of(*prepared), at_ms(1300));
  const auto check = h.first("availability_check_start", 0, [](const json& r) { return about(r, "suspect", 5); });
  ASSERT_TRUE(check);
  EXPECT_EQ(Harness::time_of(*check), at_ms(1900));
  const auto removal = h.first("send", 0, [](const json& r) {
    return r["msg"] == "geode.remove_member" && r["to"] == 5;
  });
  ASSERT_TRUE(removal);
  EXPECT_EQ(Harness::time_of(*removal), at_ms(2500));
  const auto v3 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ((*v3)["members"], json::array({0, 1, 2, 3, 4}));
  EXPECT_FALSE(h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 2; }));
}

TEST(GeodeMirror, DuplicateRemoveRequestDoesNotCauseNewView) {
  // Two members ask the coordinator to remove m6, and a third request comes while view 2 is
  // being prepared: one view (id 2) removes m6, and no other view follows.
  Harness h(geode_test_config());
  h.at(at_ms(1000), [&] { h.m(0).on_remove_member(mid(1), mid(6)); });
  h.at(at_ms(1050), [&] { h.m(0).on_remove_member(mid(2), mid(6)); });
  h.at(at_ms(1301), [&] { h.m(0).on_remove_member(mid(4), mid(6)); });
  h.run_until_s(5);
  std::vector<int64_t> ids;
  for (const json& r : h.records("view_prepare", 0)) ids.push_back(r["view_id"].get<int64_t>());
  EXPECT_EQ(ids, (std::vector<int64_t>{2}));
  EXPECT_EQ((*h.first("view_prepare", 0))["removed"], json::array({6}));
  EXPECT_EQ(h.m(0).view()->id, 2);
  EXPECT_FALSE(h.m(0).view()->contains(mid(6)));
  EXPECT_TRUE(h.first("view_unchanged", 0));  // the late request made no view
}

TEST(GeodeMirror, TwoLocatorPartitionDoesntSplitBrain) {
  // A view of two locators (equal weight 3 + 3): the coordinator that loses the other one
  // declares a network partition and shuts down instead of carrying on alone.
  GeodeConfig c = config(Profile::current, 2);
  c.locators = {0, 1};
  Harness h(c);
  h.at(at_ms(1000), [&] { h.hosts.crash(1); });
  h.run_until_s(8);
  const auto declared = h.first("partition_declared", 0);
  ASSERT_TRUE(declared);
  EXPECT_EQ((*declared)["lost"], json::array({1}));
  const auto down = h.first("forced_disconnect", 0);
  ASSERT_TRUE(down);
  EXPECT_EQ((*down)["reason"], "partition");
  EXPECT_FALSE(h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 2; }));
  EXPECT_TRUE(h.m(0).disconnected());
  EXPECT_EQ(h.model->recorder().partition_declarations(), 1u);
}

TEST(GeodeMirror, NetworkPartitionDetected) {
  // [m0, m1 (member weight 20), m2, m3 = me], no locators: weights 15 (lead m0), 30, 10, 10
  // = 65. A view that drops m2 alone (10) is installed; one that drops m1 and m2 (40 >= 32.5)
  // makes me shut down (a non-coordinator member checks quorum when it installs a view).
  GeodeConfig c = config(Profile::current, 4);
  c.member_weights = {0, 20, 0, 0};
  {
    Harness h(c);
    auto v = std::make_shared<const View>(make_view(2, {mid(0), mid(1), mid(3)}, Roles{}));
    h.at(at_ms(100), [&] { h.m(3).on_install_view(mid(0), v, {mid(2)}); });
    h.run_until(at_ms(101));
    ASSERT_TRUE(h.m(3).view());
    EXPECT_EQ(h.m(3).view()->id, 2);
    EXPECT_FALSE(h.m(3).disconnected());
  }
  Harness h(c);
  auto v = std::make_shared<const View>(make_view(2, {mid(0), mid(3)}, Roles{}));
  h.at(at_ms(100), [&] { h.m(3).on_install_view(mid(0), v, {mid(1), mid(2)}); });
  h.run_until(at_ms(101));
  const auto lost = h.first("quorum_lost_at_install", 3);
  ASSERT_TRUE(lost);
  EXPECT_EQ((*lost)["lost"], json::array({1, 2}));
  const auto down = h.first("forced_disconnect", 3);
  ASSERT_TRUE(down);
  EXPECT_EQ((*down)["reason"], "partition");
  EXPECT_TRUE(h.m(3).disconnected());
  EXPECT_EQ(h.model->recorder().disconnects(DisconnectReason::partition), 1u);
}

TEST(GeodeMirror, QuorumAtInstallIsCheckedAgainstEachMembersOwnPreviousView) {
  // The install-time quorum check is memoised on the installed view per previous view
  // (View::quorum_lost_from). Weights as above: m0 15 (lead), m1 30, m2 10, m3 10. View 3 =
  // [m0, m2, m3] drops m1. m3 still holds the initial view (65): 30 < 32.5, it installs. m2
  // installed view 2 = [m0, m1, m2] first (55): 30 >= 27.5, it shuts down. Either order of
  // delivery must give each member its own answer (a memo keyed by the new view alone gives
  // the second member the first member's).
  GeodeConfig c = config(Profile::current, 4);
  c.member_weights = {0, 20, 0, 0};
  for (const bool m3_first : {true, false}) {
    SCOPED_TRACE(m3_first ? "m3 installs first" : "m2 installs first");
    Harness h(c);
    auto v2 = std::make_shared<const View>(make_view(2, {mid(0), mid(1), mid(2)}, Roles{}));
    auto v3 = std::make_shared<const View>(make_view(3, {mid(0), mid(2), mid(3)}, Roles{}));
    h.at(at_ms(50), [&] { h.m(2).on_install_view(mid(0), v2, {mid(3)}); });
    h.at(at_ms(100), [&] { h.m(m3_first ? 3 : 2).on_install_view(mid(0), v3, {mid(1)}); });
    h.at(at_ms(101), [&] { h.m(m3_first ? 2 : 3).on_install_view(mid(0), v3, {mid(1)}); });
    h.run_until(at_ms(102));
    ASSERT_TRUE(h.m(3).view());
    EXPECT_EQ(h.m(3).view()->id, 3);
    EXPECT_FALSE(h.m(3).disconnected());
    EXPECT_TRUE(h.m(2).disconnected());
    const auto lost = h.first("quorum_lost_at_install", 2);
    ASSERT_TRUE(lost);
    EXPECT_EQ((*lost)["lost"], json::array({1}));
    EXPECT_FALSE(h.first("quorum_lost_at_install", 3));
  }
}

}  // namespace fdsim::geode::test
