// Acceptance cases 1, 2, 4 and 15 (ring geometry and suspicion fan-out), checked both on the
// pure functions and on the running model (from its trace).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "models/geode/quorum.h"
#include "models/geode/recipients.h"
#include "models/geode/ring.h"
#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

Roles all_preferred(size_t n) {
  Roles r;
  r.locator.assign(n, false);
  return r;
}

View view_of(size_t n, const Roles& roles) {
  std::vector<MemberId> ms;
  for (NodeId i = 0; i < n; ++i) ms.push_back(mid(i));
  return make_view(1, ms, roles);
}

std::vector<NodeId> nodes(const std::vector<MemberId>& v) {
  std::vector<NodeId> out;
  for (const MemberId& m : v) out.push_back(m.node);
  return out;
}

std::vector<NodeId> json_nodes(const json& a) {
  std::vector<NodeId> out;
  for (const json& x : a) out.push_back(x.get<NodeId>());
  return out;
}

}  // namespace

TEST(GeodeAcceptance, Case01_NeighbourIsNextInViewOrderAndLastWatchesFirst) {
  const Roles roles = all_preferred(7);
  const View v = view_of(7, roles);
  EXPECT_EQ(next_neighbour(v, mid(3), mid(3), {}), mid(4));
  EXPECT_EQ(next_neighbour(v, mid(6), mid(6), {}), mid(0));
  // The same on the running model, right after the initial view is installed.
  Harness h(config(Profile::wiki, 7));
  EXPECT_EQ(h.m(3).neighbour(), mid(4));
  EXPECT_EQ(h.m(6).neighbour(), mid(0));
}

TEST(GeodeAcceptance, Case02_SuspectedMembersAreSkipped_AllSuspectedMeansNoNeighbour) {
  const Roles roles = all_preferred(7);
  const View v = view_of(7, roles);
  EXPECT_EQ(next_neighbour(v, mid(3), mid(3), {mid(4), mid(5)}), mid(6));
  std::set<MemberId> everyone_else;
  for (NodeId i = 0; i < 7; ++i)
    if (i != 3) everyone_else.insert(mid(i));
  EXPECT_EQ(next_neighbour(v, mid(3), mid(3), everyone_else), std::nullopt);
  // "The member after the one being checked": from m4, skipping a suspected m5.
  EXPECT_EQ(next_neighbour(v, mid(3), mid(4), {mid(5)}), mid(6));
  // A walk that comes back to me watches nobody (2-member view, checking the other one).
  const View two = view_of(2, roles);
  EXPECT_EQ(next_neighbour(two, mid(1), mid(0), {}), std::nullopt);
}

TEST(GeodeAcceptance, Case02_OnTheModel_TwoSilentSuccessorsLeaveTheWatchOnTheThird) {
  // current, M = 1000: m4 and m5 crash before their first heartbeat. m3 grace-stamps m4 at
  // 0.5 s, checks it at 1.0 s (watch -> m5), grace-stamps m5 at 1.5 s; at 2.0 s the check of
  // m4 fails (suspects {m4}, watch stays on m5) and the tick checks m5 (watch -> m6); at
  // 3.0 s the check of m5 fails: suspects {m4, m5}, watch m6. m4 is removed only at ~3.3 s.
  Harness h(config(Profile::current, 7));
  h.at(at_ms(100), [&] {
    h.hosts.crash(4);
    h.hosts.crash(5);
  });
  h.run_until(at_ms(2001));
  EXPECT_EQ(h.m(3).suspects(), (std::set<MemberId>{mid(4)}));
  EXPECT_EQ(h.m(3).neighbour(), mid(6));  // checking m5 since 2.0 s
  EXPECT_TRUE(h.m(3).neighbour_checking(mid(5)));
  h.run_until(at_ms(3001));
  EXPECT_EQ(h.m(3).suspects(), (std::set<MemberId>{mid(4), mid(5)}));
  EXPECT_TRUE(h.m(3).view()->contains(mid(4)));
  // m6 heartbeats only to its own predecessors (m5, m4) and the coordinator, so m3 had to
  // grace-stamp it (2.5 s) and, at the 3.0 s tick, check it: the watch is on m0 until m6's
  // reply at 3.002 s brings it back to m6, the first member after the two suspects.
  EXPECT_TRUE(h.m(3).neighbour_checking(mid(6)));
  h.run_until(at_ms(3100));
  const auto back = h.first("check_passed", 3, [](const json& r) { return r["target"] == 6; });
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)["replied"], true);
  EXPECT_EQ(h.m(3).suspects(), (std::set<MemberId>{mid(4), mid(5)}));
  EXPECT_EQ(h.m(3).neighbour(), mid(6));
}

TEST(GeodeAcceptance, Case04_HeartbeatTargets) {
  const Roles roles = all_preferred(7);
  const View v = view_of(7, roles);
  EXPECT_EQ(nodes(heartbeat_targets(v, mid(3), 2)), (std::vector<NodeId>{0, 2, 1}));
  EXPECT_EQ(nodes(heartbeat_targets(v, mid(1), 2)), (std::vector<NodeId>{0, 6, 5}));
  EXPECT_EQ(nodes(heartbeat_targets(v, mid(0), 2)), (std::vector<NodeId>{6, 5}));
  const View two = view_of(2, roles);
  EXPECT_EQ(nodes(heartbeat_targets(two, mid(1), 2)), (std::vector<NodeId>{0}));
  EXPECT_EQ(nodes(heartbeat_targets(two, mid(0), 2)), (std::vector<NodeId>{1}));
  EXPECT_TRUE(heartbeat_targets(view_of(1, roles), mid(0), 2).empty());
}

TEST(GeodeAcceptance, Case04_OnTheModel_FirstHeartbeatRoundGoesToCoordinatorAndTwoPredecessors) {
  Harness h(config(Profile::wiki, 7));
  h.run_until(at_ms(600));  // one round, sent at 500 ms
  std::map<NodeId, std::set<NodeId>> sent;
  for (const json& r : h.records("send"))
    if (r["msg"] == "geode.heartbeat") sent[r["from"].get<NodeId>()].insert(r["to"].get<NodeId>());
  EXPECT_EQ(sent[3], (std::set<NodeId>{0, 2, 1}));
  EXPECT_EQ(sent[1], (std::set<NodeId>{0, 6, 5}));
  EXPECT_EQ(sent[0], (std::set<NodeId>{6, 5}));
  size_t total = 0;
  for (const json& r : h.records("send")) total += r["msg"] == "geode.heartbeat";
  EXPECT_EQ(total, 2u + 6u * 3u);  // coordinator: 2; every other member: 3
}

TEST(GeodeAcceptance, Case15_FanoutCurrentSevenMembers_EveryoneIncludingSuspectAndSender) {
  const Roles roles = all_preferred(7);
  const View v = view_of(7, roles);
  FanoutRules current{9, 10, 10, false};
  Rng rng(1);
  EXPECT_EQ(nodes(suspect_recipients(v, mid(3), {mid(4)}, {mid(4)}, roles, current, &rng)),
            (std::vector<NodeId>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(GeodeAcceptance, Case15_FanoutWikiFourMembers_Everyone) {
  const Roles roles = all_preferred(4);
  const View v = view_of(4, roles);
  FanoutRules wiki{4, 7, 5, true};
  Rng rng(1);
  EXPECT_EQ(nodes(suspect_recipients(v, mid(2), {mid(3)}, {mid(3)}, roles, wiki, &rng)),
            (std::vector<NodeId>{0, 1, 2, 3}));
}

TEST(GeodeAcceptance, Case15_FanoutWikiEightMembers_FivePreferredSenderAndOneOther) {
  const Roles roles = all_preferred(8);
  const View v = view_of(8, roles);
  FanoutRules wiki{4, 7, 5, true};
  Rng rng(1);
  // m3 suspects m4: preferred in view order minus sender and suspect: m0 m1 m2 m5 m6; then the
  // sender; then the only member left, m7.
  EXPECT_EQ(nodes(suspect_recipients(v, mid(3), {mid(4)}, {mid(4)}, roles, wiki, &rng)),
            (std::vector<NodeId>{0, 1, 2, 5, 6, 3, 7}));
}

TEST(GeodeAcceptance, Case15_FanoutWikiRandomMemberIsUniformOverTheRest) {
  // 10 members, m3 suspects m4: m0 m1 m2 m5 m6, m3, then one of {m7, m8, m9}. Over 3000
  // independent streams each is drawn with p = 1/3: sd of a count = sqrt(3000 * 2/9) = 25.8,
  // so +-5 sd = +-129.
  const Roles roles = all_preferred(10);
  const View v = view_of(10, roles);
  FanoutRules wiki{4, 7, 5, true};
  std::map<NodeId, int> drawn;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    Rng rng = RngFactory(seed, 0).stream(3, "geode.fanout");
    auto r = suspect_recipients(v, mid(3), {mid(4)}, {mid(4)}, roles, wiki, &rng);
    ASSERT_EQ(r.size(), 7u);
    EXPECT_EQ(nodes(std::vector<MemberId>(r.begin(), r.begin() + 6)),
              (std::vector<NodeId>{0, 1, 2, 5, 6, 3}));
    ++drawn[r.back().node];
  }
  ASSERT_EQ(drawn.size(), 3u);
  for (NodeId n : {7u, 8u, 9u}) EXPECT_NEAR(drawn[n], 1000, 129) << "m" << n;
}

TEST(GeodeAcceptance, Case15_FanoutCurrentLargeView_PreferredThenSenderThenFillInViewOrder) {
  // 12 members, locators m1 m5 m9 (the preferred coordinators), partition detection on:
  // preferred first (m1 m5 m9, the sender excluded), the sender m2, then the others in view
  // order until 10: m0 m3 m6 m7 m8 m10 (m4 is the suspect, m11 is cut off by the cap).
  Roles roles;
  roles.locator.assign(12, false);
  for (NodeId l : {1u, 5u, 9u}) roles.locator[l] = true;
  const View v = view_of(12, roles);
  EXPECT_EQ(v.coordinator, mid(1));
  FanoutRules current{9, 10, 10, false};
  Rng rng(1);
  EXPECT_EQ(nodes(suspect_recipients(v, mid(2), {mid(4)}, {mid(4)}, roles, current, &rng)),
            (std::vector<NodeId>{1, 5, 9, 2, 0, 3, 6, 7, 8, 10}));
  // Members the sender already suspects are left out too.
  EXPECT_EQ(nodes(suspect_recipients(v, mid(2), {mid(4)}, {mid(4), mid(6)}, roles, current, &rng)),
            (std::vector<NodeId>{1, 5, 9, 2, 0, 3, 7, 8, 10, 11}));
}

TEST(GeodeAcceptance, Case15_OnTheModel_SuspicionGoesToTheComputedRecipients) {
  for (Profile p : {Profile::current, Profile::wiki}) {
    Harness h(config(p, 8));
    h.at(at_ms(100), [&] { h.hosts.crash(4); });
    h.run_until_s(10);
    const auto s = h.first("suspect", 3);
    ASSERT_TRUE(s.has_value()) << profile_name(p);
    const std::vector<NodeId> want = p == Profile::current
                                         ? std::vector<NodeId>{0, 1, 2, 3, 4, 5, 6, 7}
                                         : std::vector<NodeId>{0, 1, 2, 5, 6, 3, 7};
    EXPECT_EQ(json_nodes((*s)["recipients"]), want) << profile_name(p);
    // Every recipient but the sender got a SuspectMembers message sent to it.
    std::set<NodeId> sent_to;
    for (const json& r : h.records("send", 3))
      if (r["msg"] == "geode.suspect_members") sent_to.insert(r["to"].get<NodeId>());
    std::set<NodeId> want_set(want.begin(), want.end());
    want_set.erase(3);
    EXPECT_EQ(sent_to, want_set) << profile_name(p);
  }
}

TEST(GeodeQuorum, WeightsOfLocatorsLeadAndMembers) {
  // Case 14's view [L1, L2, S1, S2]: 3 + 3 + 15 + 10 = 31.
  Roles roles;
  roles.locator = {true, true, false, false};
  const View v = view_of(4, roles);
  EXPECT_EQ(v.coordinator, mid(0));
  EXPECT_EQ(lead_member(v, roles), mid(2));
  EXPECT_EQ(view_weight(v, roles), 31);
  EXPECT_EQ(removed_weight(v, {mid(0), mid(2)}, roles), 13);
  EXPECT_FALSE(quorum_lost(v, {mid(0), mid(2)}, roles));
  const View after = make_view(2, {mid(0), mid(2)}, roles);
  EXPECT_EQ(view_weight(after, roles), 18);
  EXPECT_EQ(removed_weight(after, {mid(0)}, roles), 15);
  EXPECT_TRUE(quorum_lost(after, {mid(0)}, roles));
  // No locators: the lead is m0; 15 + 10 + 10 + 10 = 45. Removing two non-lead members (20)
  // keeps quorum; removing the lead and one more (25 >= 22.5) loses it.
  Roles plain;
  plain.locator.assign(4, false);
  const View p = view_of(4, plain);
  EXPECT_FALSE(quorum_lost(p, {mid(0), mid(1)}, plain));
  EXPECT_TRUE(quorum_lost(p, {mid(2), mid(3)}, plain));
}

TEST(GeodeQuorum, DroppingMembersIsQuorumLostOfTheViewWithoutThem) {
  // quorum_lost_dropping(v, d) == quorum_lost(v, without(v.members, d)) for every subset d of
  // a 6-member view (locators 0 and 3, so the lead is m1), with an identity that is not in
  // the view and a repeated one added: 64 cases, both answers seen.
  Roles roles;
  roles.locator = {true, false, false, true, false, false};
  const View v = view_of(6, roles);
  int lost = 0;
  for (unsigned mask = 0; mask < 64; ++mask) {
    std::vector<MemberId> dropped;
    for (unsigned i = 0; i < 6; ++i)
      if (mask & (1u << i)) dropped.push_back(mid(NodeId(i)));
    dropped.push_back(mid(9));                                   // not in the view
    if (!dropped.empty()) dropped.push_back(dropped.front());  // a repeat
    const bool want = quorum_lost(v, without(v.members, dropped), roles);
    EXPECT_EQ(quorum_lost_dropping(v, dropped, roles), want) << "mask " << mask;
    lost += want;
  }
  EXPECT_GT(lost, 0);
  EXPECT_LT(lost, 64);
}

TEST(GeodeQuorum, ViewWeightIsWeighedOnceWhenTheViewIsMade) {
  // Every member that installs a view checks quorum against the view it drops; the weight
  // must come from the shared view (made once), not from a scan per member (O(n^2) per
  // removal across a large ring). A view made under `roles` carries its weight and lead; a
  // tampered cached weight therefore changes the answer (proof that the scan is not redone),
  // and a hand-built copy without the cache is weighed from scratch to the same value.
  Roles roles;
  roles.locator = {true, false, false, false};
  const View v = view_of(4, roles);  // 3 + 15 + 10 + 10 = 38
  ASSERT_EQ(v.weighed_with, &roles);
  EXPECT_EQ(v.weight, 38);
  EXPECT_EQ(v.lead, mid(1));
  View by_hand = v;
  by_hand.weighed_with = nullptr;
  by_hand.by_identity.clear();
  EXPECT_EQ(view_weight(by_hand, roles), 38);
  EXPECT_FALSE(quorum_lost_dropping(v, {mid(2)}, roles));  // 10 of 38
  View tampered = v;
  tampered.weight = 20;  // 10 of 20 is half: quorum lost, if the cache is read
  EXPECT_TRUE(quorum_lost_dropping(tampered, {mid(2)}, roles));
  // Other roles than the view was weighed under: weighed from scratch (all members, 45).
  Roles plain;
  plain.locator.assign(4, false);
  EXPECT_EQ(view_weight(tampered, plain), 45);
}

}  // namespace fdsim::geode::test

namespace fdsim::geode::test {

// The memoised walk (ring.h, NeighbourWalk) answers as a fresh walk after any sequence of
// suspicions added, walks from anywhere (members, me, a non-member) and suspicions removed
// (the caller resets the memo then, as Member does), including walks that wrap around the
// ring and blocks that reach me.
TEST(GeodeRing, MemoisedNeighbourWalkAnswersAsAFreshWalk) {
  const Roles roles = all_preferred(40);
  for (NodeId me_node : {NodeId(0), NodeId(17), NodeId(39)}) {
    const View v = view_of(40, roles);
    const MemberId me = mid(me_node);
    Rng rng(7 + me_node);
    std::set<MemberId> suspects;
    NeighbourWalk walk;
    int jumps_checked = 0;
    for (int step = 0; step < 4000; ++step) {
      const int64_t op = rng.uniform_int(0, 19);
      if (op < 8) {
        const MemberId s = mid(NodeId(rng.uniform_int(0, 39)));
        if (!(s == me)) suspects.insert(s);
      } else if (op == 8 && !suspects.empty()) {
        auto it = suspects.begin();
        std::advance(it, rng.uniform_int(0, int64_t(suspects.size()) - 1));
        suspects.erase(it);
        walk = {};
      } else if (op == 9) {
        suspects.clear();
        walk = {};
      }
      const int64_t a = rng.uniform_int(-1, 40);  // -1: me; 40: not in the view
      const MemberId after = a < 0 ? me : mid(NodeId(a));
      const NeighbourWalk before = walk;
      const auto memoised = next_neighbour(v, me, after, suspects, walk);
      ASSERT_EQ(memoised, next_neighbour(v, me, after, suspects))
          << "step " << step << " me " << me_node << " after " << a;
      // Whether this walk started inside the memo's stretch (so it jumped).
      const size_t start = a >= 0 && a < 40 ? size_t(a) : size_t(me_node);
      const size_t span = before.to == before.from ? 40 : (before.to + 40 - before.from) % 40;
      if (before.view == &v && (start + 40 - before.from) % 40 < span) ++jumps_checked;
    }
    EXPECT_GT(jumps_checked, 50) << "the memo was used in too few walks to test it";
  }
}

// Checks of a suspected block, one member after another (what a partition makes the next in
// line do): the memo carries the walk to the end of the block.
TEST(GeodeRing, MemoisedNeighbourWalkSkipsASuspectedBlock) {
  const Roles roles = all_preferred(10);
  const View v = view_of(10, roles);
  std::set<MemberId> suspects;
  NeighbourWalk walk;
  for (NodeId i = 3; i <= 7; ++i) suspects.insert(mid(i));
  for (NodeId i = 3; i <= 7; ++i)
    EXPECT_EQ(next_neighbour(v, mid(1), mid(i), suspects, walk), mid(8)) << i;
  EXPECT_EQ(walk.from, 3u);
  EXPECT_EQ(walk.to, 8u);
  // The block reaches me (member 1, wrapping past the end): no neighbour.
  for (NodeId i : {8, 9, 0}) suspects.insert(mid(i));
  EXPECT_EQ(next_neighbour(v, mid(1), mid(5), suspects, walk), std::nullopt);
  EXPECT_EQ(next_neighbour(v, mid(1), mid(5), suspects), std::nullopt);
}

}  // namespace fdsim::geode::test
