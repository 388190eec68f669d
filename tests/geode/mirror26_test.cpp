// More of Geode's own unit tests mirrored through the simulator (issue 26 item 5), named after
// the Geode test (GMSHealthMonitorJUnitTest / GMSJoinLeaveJUnitTest at apache/geode af12f177)
// and asserting what it asserts. Setup as in mirror_test.cpp: m0..m6, locators m0 and m1, me =
// m3, M = 1000 ms, 1 ms constant delays. Where Geode's test uses mocks that never answer, the
// corresponding members here are crashed.
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

GeodeConfig mirror26_config(size_t n = 7) {
  GeodeConfig c = config(Profile::current, n);
  c.locators = {0, 1};
  return c;
}

// Polls `pred` every millisecond from `from` to `to`; the first instant it holds.
std::optional<SimTime> first_time(Harness& h, SimTime from, SimTime to, std::function<bool()> pred) {
  auto found = std::make_shared<std::optional<SimTime>>();
  for (SimTime t = from; t <= to; t = t + Duration::ms(1))
    h.at(t, [&h, found, pred] {
      if (!*found && pred()) *found = h.sim.now();
    });
  h.run_until(to + Duration::ms(1));
  return *found;
}

}  // namespace

// --- GMSHealthMonitorJUnitTest ---

TEST(GeodeMirror, HMNextNeighborBeforeTimeout) {
  // Geode's test (GMSHealthMonitorJUnitTest.testHMNextNeighborBeforeTimeout): the neighbour
  // is me + 1 and changes no earlier than memberTimeout / LOGICAL_INTERVAL (500 ms) after the
  // view is installed, when a check of the silent neighbour starts. Geode's assertion is a
  // lower bound only; the model's instant is known exactly, so this pins it: every member
  // starts its monitor at 0 (no start offset), so m3's ticks come at T, 2T, ... (T = M/2 =
  // 500 ms); m4 crashes at 0 and never sends a heartbeat, so its silence counts from m3's
  // first tick (Geode's monitor stamps a neighbour it has no time stamp for: the grace
  // stamp, acceptance case 3), so at 500 ms m3 stamps m4, and the next tick, at 1000 ms, finds
  // 500 ms of silence >= the check threshold M - T = 500 ms and starts the check. The
  // neighbour moves to m5 at that tick (the poll at 1000 ms runs before the tick, so the first
  // poll that sees m5 is the one at 1001 ms), and it was m4 at every earlier poll.
  Harness h(mirror26_config());
  ASSERT_EQ(h.m(3).neighbour(), mid(4));
  h.at(at_ms(0), [&] { h.hosts.crash(4); });
  const auto changed = first_time(h, at_ms(0), at_ms(3000), [&] { return h.m(3).neighbour() != mid(4); });
  ASSERT_TRUE(changed);
  EXPECT_EQ(*changed, at_ms(1001));
  const auto grace = h.first("grace_stamp", 3);
  ASSERT_TRUE(grace);
  EXPECT_EQ((*grace)["neighbour"], 4);
  EXPECT_EQ(Harness::time_of(*grace), at_ms(500));
  EXPECT_GE(*changed - SimTime::zero(), h.cfg.member_timeout / 2);  // Geode's assertion
  EXPECT_EQ(h.m(3).neighbour(), mid(5));
  const auto check = h.first("check_start", 3);
  ASSERT_TRUE(check);
  EXPECT_EQ((*check)["target"], 4);
  EXPECT_EQ(Harness::time_of(*check), at_ms(1000));
}

TEST(GeodeMirror, SuspectMembersNotCalledThroughPingThreadBeforeTimeout) {
  // The silent neighbour becomes a suspect no earlier than member timeout + 100 ms.
  Harness h(mirror26_config());
  h.at(at_ms(0), [&] { h.hosts.crash(4); });
  const auto suspected = first_time(h, at_ms(0), at_ms(4000), [&] { return h.m(3).suspects(mid(4)); });
  ASSERT_TRUE(suspected);
  EXPECT_GE(*suspected - SimTime::zero(), h.cfg.member_timeout + Duration::ms(100));
}

TEST(GeodeMirror, RemoveMemberCalledAfterDoingFinalCheckOnCoordinator) {
  // me = m1, the next preferred coordinator; m4 tells it that the coordinator m0 is not
  // responding: m1 final-checks m0 (which does not answer) and calls remove(m0).
  Harness h(mirror26_config());
  h.at(at_ms(900), [&] { h.hosts.crash(0); });
  h.at(at_ms(1000), [&] { h.m(1).on_suspect_members(mid(4), {mid(0)}); });
  h.run_until_s(3);
  EXPECT_TRUE(h.first("suspicion_received", 1, [](const json& r) { return r["from"] == 4; }));
  const auto removal = h.first("removal_requested", 1, [](const json& r) { return about(r, "target", 0); });
  ASSERT_TRUE(removal);
  EXPECT_GE(Harness::time_of(*removal) - at_ms(1000), h.cfg.member_timeout);
}

TEST(GeodeMirror, MemberIsAvailableWhenInFinalCheck) {
  // checkIfAvailable(m, reason, false) (assumeMembersInFinalCheckAreAvailable = true) of a
  // member in membersInFinalCheck is true at once, although m does not answer.
  Harness h(mirror26_config());
  h.at(at_ms(900), [&] { h.hosts.crash(4); });
  h.at(at_ms(1000), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  std::optional<bool> available;
  std::optional<SimTime> when;
  h.at(at_ms(1100), [&] {
    ASSERT_TRUE(h.m(3).final_checking(mid(4)));
    h.m(3).check_if_available(
        mid(4), [&](bool a) { available = a; when = h.sim.now(); },
        /*assume_final_checking_available=*/true);
  });
  h.run_until(at_ms(1200));
  ASSERT_TRUE(available.has_value());
  EXPECT_TRUE(*available);
  EXPECT_EQ(when, at_ms(1100));
}

TEST(GeodeMirror, MemberIsNotAvailableWhenNotAssumingMembersInFinalCheckAreAvailable) {
  // The same member, leaving (a removal request seen for it), checked with
  // assumeMembersInFinalCheckAreAvailable = false: not available.
  Harness h(mirror26_config());
  h.at(at_ms(900), [&] { h.hosts.crash(4); });
  h.at(at_ms(1000), [&] { h.m(3).start_final_check(mid(4), mid(3)); });
  std::optional<bool> available;
  h.at(at_ms(1100), [&] {
    h.m(3).on_remove_member(mid(2), mid(4));
    ASSERT_TRUE(h.m(3).member_leaving(mid(4)));
    ASSERT_TRUE(h.m(3).final_checking(mid(4)));
    h.m(3).check_if_available(mid(4), [&](bool a) { available = a; },
                              /*assume_final_checking_available=*/false);
  });
  h.run_until(at_ms(1101));
  ASSERT_TRUE(available.has_value());
  EXPECT_FALSE(*available);
}

TEST(GeodeMirror, MemberIsExaminedAgainAfterPassingAvailabilityCheck) {
  // m3's availability check of m1 (initiateRemoval = true) passes; then m1 and every other
  // member stop (Geode's mocks never heartbeat): m3 itself suspects m1 again ("Member isn't
  // responding to heartbeat requests") and, the survivors' coordinator-in-line, requests its
  // removal.
  Harness h(mirror26_config());
  h.at(at_ms(1000), [&] { h.m(3).start_final_check(mid(1), mid(3)); });
  h.at(at_ms(1500), [&] {
    for (NodeId n : {0, 1, 2, 4, 5, 6}) h.hosts.crash(n);
  });
  h.run_until_s(30);
  const auto passed = h.first("final_check_passed", 3, [](const json& r) { return about(r, "suspect", 1); });
  ASSERT_TRUE(passed);
  EXPECT_EQ(Harness::time_of(*passed), at_ms(1002));
  const auto suspected = h.first("suspect", 3, [](const json& r) { return about(r, "suspect", 1); });
  ASSERT_TRUE(suspected);
  EXPECT_GT(Harness::time_of(*suspected), at_ms(1500));
  const auto removal = h.first("removal_requested", 3, [](const json& r) { return about(r, "target", 1); });
  ASSERT_TRUE(removal);
  EXPECT_GT(Harness::time_of(*removal), Harness::time_of(*suspected));
}

// --- GMSJoinLeaveJUnitTest ---

TEST(GeodeMirror, RemoveMessageForRogueCausesImmediateRemovalMessageToRogue) {
  // The coordinator gets a RemoveMember (from m0's... here from m1, a member) about a member
  // that is not in its view: it sends that rogue a RemoveMember at once.
  Harness h(mirror26_config());
  const MemberId rogue = mid(5, 9);  // node 5, an incarnation this view never had
  h.at(at_ms(1000), [&] { h.m(0).on_remove_member(mid(1), rogue); });
  h.run_until(at_ms(1001));
  const auto sent = h.first("send", 0, [](const json& r) {
    return r["msg"] == "geode.remove_member" && r["to"] == 5;
  });
  ASSERT_TRUE(sent);
  EXPECT_EQ(Harness::time_of(*sent), at_ms(1000));
}

TEST(GeodeMirror, BecomeCoordinatorThroughRemove) {
  // View [m0, me]: a RemoveMember for the view's creator, sent by the creator, makes me the
  // coordinator.
  GeodeConfig c = config(Profile::current, 2);
  c.locators = {0, 1};
  Harness h(c);
  h.at(at_ms(1000), [&] {
    h.m(1).on_remove_member(mid(0), mid(0));
    EXPECT_TRUE(h.m(1).is_coordinator());
  });
  h.run_until(at_ms(1001));
  EXPECT_TRUE(h.first("become_coordinator", 1));
}

TEST(GeodeMirror, IsMemberLeaving) {
  // GMSJoinLeaveJUnitTest.testIsMemberLeaving (GMSJoinLeaveJUnitTest.java:396-410): view
  // [m0, m1, me] created by m0; nobody is leaving; remove(m0) sends a RemoveMemberMessage
  // and m0 is leaving; a LeaveRequestMessage from m1 about m1, processed by me, makes m1
  // leaving too (processLeaveRequestMessage adds it to leftMembers).
  GeodeConfig c = config(Profile::current, 3);
  c.locators = {0, 1};
  Harness h(c);
  h.at(at_ms(1000), [&] {
    EXPECT_FALSE(h.m(2).member_leaving(mid(0)));
    EXPECT_FALSE(h.m(2).member_leaving(mid(1)));
    h.m(2).request_removal(mid(0));
    EXPECT_TRUE(h.m(2).member_leaving(mid(0)));
  });
  h.run_until(at_ms(1001));
  EXPECT_TRUE(h.first("send", 2, [](const json& r) { return r["msg"] == "geode.remove_member"; }));
  h.at(at_ms(1100), [&] {
    EXPECT_FALSE(h.m(2).member_leaving(mid(1)));
    h.m(2).on_leave_request(mid(1), mid(1));
    EXPECT_TRUE(h.m(2).member_leaving(mid(1)));
  });
  h.run_until(at_ms(1101));
  // Beyond Geode's assertions, what its code then does: the check view [m0, m1, me] without
  // the removed m0 and the left m1 is [me], so I become the coordinator (~660-678).
  EXPECT_TRUE(h.first("become_coordinator", 2));
}

TEST(GeodeMirror, LeaveRequestIsIgnoredFromAnOldMemberAndObeyedAboutMe) {
  // processLeaveRequestMessage (GMSJoinLeave.java:649-658): a leave request for a member
  // that is not in the view and joined before it is ignored; one about me disconnects me.
  GeodeConfig c = config(Profile::current, 3);
  c.locators = {0, 1};
  Harness h(c);
  h.at(at_ms(1000), [&] {
    h.m(2).on_leave_request(mid(1), MemberId{5, 0, 0});  // not a member, joined in view 0
    EXPECT_FALSE(h.m(2).member_leaving(mid(1)));
    EXPECT_FALSE(h.m(2).disconnected());
    h.m(2).on_leave_request(mid(0), mid(2));
    EXPECT_TRUE(h.m(2).disconnected());
  });
  h.run_until(at_ms(1001));
}

TEST(GeodeMirror, NetworkPartitionMessageFromNonMemberIgnored) {
  // The coordinator gets NetworkPartition from a sender outside its view: no forced
  // disconnect.
  Harness h(mirror26_config());
  h.at(at_ms(1000), [&] { h.m(0).on_network_partition(mid(5, 9)); });
  h.run_until(at_ms(1001));
  EXPECT_FALSE(h.m(0).disconnected());
  EXPECT_FALSE(h.first("forced_disconnect", 0));
  // A member's announcement is obeyed (the rule is about the sender, not the message).
  h.at(at_ms(1100), [&] { h.m(3).on_network_partition(mid(0)); });
  h.run_until(at_ms(1101));
  EXPECT_TRUE(h.m(3).disconnected());
}

TEST(GeodeMirror, RemoveRequestWhileWaitingForFinalResponse) {
  // Geode's test (GMSJoinLeaveJUnitTest.testRemoveRequestWhileWaitingForFinalResponse): a
  // view is prepared, a member does not ack, and removeHealthyMembers starts its availability
  // check; the RemoveMemberRequest for that member arrives *during* the check (the test's
  // checkIfAvailable calls processRemoveMessage and then blocks). filterMembers matches it
  // (testFlagForRemovalRequest) and the coordinator stops waiting at once, without the
  // check's answer.
  // Here: view 2 (dropping m6) is prepared at 1.3 s (1 s request + 300 ms collection); from
  // 1.25 s a partition separates m5 from the coordinator m0 only (Geode's mock member, which
  // neither acks nor answers; the ring is untouched: m4 still hears m5, so no suspicion of m5
  // ends the wait early). The ack wait ends at 1.3 + view_ack_timeout (2.487 s) = 3.787 s and
  // m5's availability check starts, a TCP attempt that gets no answer for M = 1 s (until
  // 4.787 s). The removal request for m5 arrives at 4.2 s, inside the check: view 3 without
  // m5 is prepared at 4.2 s and installed 2 ms later.
  Harness h(mirror26_config());
  ASSERT_EQ(h.cfg.view_ack_timeout, Duration::ms(2487));
  h.at(at_ms(1000), [&] { h.m(0).request_removal(mid(6)); });
  h.at(at_ms(1250), [&] { h.net.add_partition({0}, {5}, /*one_way=*/false); });
  h.at(at_ms(4200), [&] { h.m(0).on_remove_member(mid(2), mid(5)); });
  h.run_until_s(7);
  const auto checks = h.first("view_availability_checks", 0, [](const json& r) { return r["view_id"] == 2; });
  ASSERT_TRUE(checks);
  EXPECT_EQ(Harness::time_of(*checks), at_ms(3787));
  EXPECT_EQ((*checks)["checking"], json::array({5}));  // no request yet: m5 is checked
  EXPECT_EQ((*checks)["pending_removal"], json::array());
  const auto check = h.first("availability_check_start", 0, [](const json& r) { return about(r, "suspect", 5); });
  ASSERT_TRUE(check);
  EXPECT_EQ(Harness::time_of(*check), at_ms(3787));
  // The check was still running when the request came: its TCP attempt ends at 4.787 s.
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return about(r, "suspect", 5); });
  ASSERT_TRUE(tcp);
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(4787));
  const auto p3 = h.first("view_prepare", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(p3);
  EXPECT_EQ(Harness::time_of(*p3), at_ms(4200));
  EXPECT_EQ((*p3)["members"], json::array({0, 1, 2, 3, 4}));
  const auto v3 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ(Harness::time_of(*v3), at_ms(4202));
  EXPECT_EQ((*v3)["members"], json::array({0, 1, 2, 3, 4}));
}

// --- Issue 26 item 4: view logic ---

TEST(GeodeViewLogic, RemovedMembersKeptWhileStillInTheView) {
  // m1 (a non-coordinator) records a removal request for m4; view 2 (dropping m6) keeps m4.
  // GMSJoinLeave.java:1590-1597 keeps m4 in removedMembers, so m4 is still "leaving" at m1
  // and m1's take-over after the coordinator's removal drops m4 too.
  Harness h(mirror26_config());
  h.at(at_ms(1000), [&] { h.m(1).on_remove_member(mid(2), mid(4)); });
  h.at(at_ms(1010), [&] { h.m(0).request_removal(mid(6)); });
  h.run_until_s(3);
  ASSERT_EQ(h.m(1).view()->id, 2);
  EXPECT_TRUE(h.m(1).view()->contains(mid(4)));
  EXPECT_TRUE(h.m(1).member_leaving(mid(4)));
  h.at(at_s(3), [&] { h.m(1).on_remove_member(mid(2), mid(0)); });
  h.run_until(at_ms(3001));
  const auto took = h.first("become_coordinator", 1);
  ASSERT_TRUE(took);
  EXPECT_EQ((*took)["removed"], json::array({0, 4}));
}

TEST(GeodeViewLogic, SuspicionFromNewerNonMemberIsProcessed) {
  // GMSHealthMonitor.java:1108-1115: a sender outside my view that joined in a newer view
  // is not ignored: the coordinator final-checks its suspect.
  Harness h(mirror26_config());
  h.at(at_ms(900), [&] { h.hosts.crash(4); });
  h.at(at_ms(1000), [&] { h.m(0).on_suspect_members(MemberId{5, 3, 7}, {mid(4)}); });
  h.run_until(at_ms(1010));
  EXPECT_TRUE(h.first("final_check_start", 0, [](const json& r) { return about(r, "suspect", 4); }));
  EXPECT_FALSE(h.first("suspicion_from_non_member", 0));
}

}  // namespace fdsim::geode::test
