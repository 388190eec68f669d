// SWIM / Lifeguard protocol behaviour with exact oracles: crash detection against the
// suspicion timeouts, refutation after a pause, awareness under a slow member, quiet traffic.
#include <algorithm>

#include <gtest/gtest.h>

#include "tests/swim/harness.h"

namespace fdsim::swim {
namespace {

using test::at_s;
using test::Harness;
using test::HarnessOptions;

// Plain SWIM (no Lifeguard): every member's suspicion timeout is min = 4 s (n = 8 <= 10), so the
// first removal is exactly 4 s after the first failed probe, whoever made it; the first failed
// probe ends one probe interval (1 s, the probe deadline) after a probe that started after the
// crash, and some member probes the crashed one within two probe rounds (2 (n - 1) intervals).
TEST(SwimProtocol, PlainSwimRemovesACrashedMemberExactlyMinAfterTheFirstSuspicion) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    HarnessOptions o;
    o.seed = seed;
    Harness h(test::config(8, false), o);
    h.at(at_s(20.0), [&] { h.hosts.crash(3); });
    h.run_until_s(80.0);
    const auto& crashes = h.model->recorder().crashes();
    ASSERT_EQ(crashes.size(), 1u);
    const auto& c = crashes[0];
    ASSERT_TRUE(c.first_suspicion && c.first_removal && c.removal_all) << "seed " << seed;
    const Duration to_suspicion = *c.first_suspicion - c.crashed;
    // A whole probe deadline (less the 1 ms latency of a ping sent just before the crash).
    EXPECT_GT(to_suspicion, Duration::ms(998)) << "seed " << seed;
    EXPECT_LE(to_suspicion, Duration::s(2 * 7 + 1)) << "seed " << seed;
    EXPECT_EQ(*c.first_removal - *c.first_suspicion, Duration::ms(4000)) << "seed " << seed;
    EXPECT_GE(*c.removal_all, *c.first_removal);
    EXPECT_EQ(h.model->recorder().false_removals(), 0u);
    EXPECT_EQ(h.model->recorder().false_suspicions(), 0u);
    // Every survivor ends with member 3 dead at the incarnation it was suspected with.
    for (NodeId n = 0; n < 8; ++n) {
      if (n == 3) continue;
      EXPECT_EQ(h.m(n).state_of(3), PeerState::dead) << "seed " << seed << " member " << n;
    }
  }
}

// Lifeguard: k = SuspicionMult - 2 = 2 confirmations expected, max = 6 min = 24 s. Every
// member's timer runs from its own suspicion start for between min (4 s) and max (24 s); so the
// first removal is in [first suspicion + 4 s, first suspicion + 24 s]. With 7 probers, the other
// members' failed probes confirm the suspicion and the removal comes well before max.
TEST(SwimProtocol, LifeguardRemovalBetweenMinAndMaxAfterTheFirstSuspicion) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    HarnessOptions o;
    o.seed = seed;
    Harness h(test::config(8, true), o);
    h.at(at_s(20.0), [&] { h.hosts.crash(3); });
    h.run_until_s(80.0);
    const auto& c = h.model->recorder().crashes().at(0);
    ASSERT_TRUE(c.first_suspicion && c.first_removal && c.removal_all) << "seed " << seed;
    const Duration d = *c.first_removal - *c.first_suspicion;
    EXPECT_GE(d, Duration::ms(4000)) << "seed " << seed;
    EXPECT_LE(d, Duration::ms(24000)) << "seed " << seed;
    // The removal at a member whose timer ran its whole course with two confirmations is at
    // start + min exactly: check one suspicion timeout record against its member's state record.
    EXPECT_EQ(h.model->recorder().false_removals(), 0u);
  }
}

// The suspicion timer of one member follows remainingSuspicionTime: a member that suspected the
// crashed member at t0 and then got confirmations removes it at t0 + max (no confirmation),
// t0 + 11.381 s (one) or t0 + 4 s (two, if they came before 4 s).
TEST(SwimProtocol, EachRemovalIsAtAMemberlistSuspicionDeadline) {
  HarnessOptions o;
  o.seed = 3;
  Harness h(test::config(8, true), o);
  h.at(at_s(20.0), [&] { h.hosts.crash(3); });
  h.run_until_s(80.0);
  const auto is_about_3 = [](const nlohmann::json& r) { return r["target"] == 3; };
  const auto timeouts = h.records("swim_suspicion_timeout", std::nullopt, is_about_3);
  ASSERT_FALSE(timeouts.empty());
  for (const auto& t : timeouts) {
    const NodeId member = t["node"].get<NodeId>();
    const auto starts = h.records("swim_state", member, [](const nlohmann::json& r) {
      return r["target"] == 3 && r["to"] == "suspect";
    });
    ASSERT_EQ(starts.size(), 1u);
    const Duration waited = Harness::time_of(t) - Harness::time_of(starts[0]);
    const int64_t confirmations = t["confirmations"].get<int64_t>();
    const Duration expected = confirmations == 0   ? Duration::ms(24000)
                              : confirmations == 1 ? Duration::ms(11381)
                                                   : Duration::ms(4000);
    // A confirmation that came after its deadline's remaining time fires at once (never
    // later than the deadline).
    EXPECT_LE(waited, expected) << "member " << member;
    if (confirmations == 0) {
      EXPECT_EQ(waited, expected) << "member " << member;
    }
    EXPECT_GE(waited, Duration::ms(4000)) << "member " << member;
  }
}

// Lifeguard's K apart from alpha (suspicion_confirmations): with K = 4 in an 8-member cluster
// (alpha = suspicion_mult = 4, min 4 s, max 24 s) each member's timer follows
// remainingSuspicionTime with k = 4: 24 s with no confirmation, then floor-ms of
// 24 - ln(c + 1) / ln 5 x 20 s: 15.386 s, 10.347 s, 6.772 s, and min 4 s at four. memberlist's
// own rule (k = 2) could never count a third or fourth confirmation; here some member must
// (7 probers of the crashed member, every one suspects it within two probe rounds).
TEST(SwimProtocol, SuspicionConfirmationsSetKApartFromAlpha) {
  SwimConfig cfg = test::config(8, true);
  cfg.suspicion_confirmations = 4;
  HarnessOptions o;
  o.seed = 3;
  Harness h(cfg, o);
  h.at(at_s(20.0), [&] { h.hosts.crash(3); });
  h.run_until_s(80.0);
  const auto is_about_3 = [](const nlohmann::json& r) { return r["target"] == 3; };
  const auto timeouts = h.records("swim_suspicion_timeout", std::nullopt, is_about_3);
  ASSERT_FALSE(timeouts.empty());
  const int64_t deadline_ms[] = {24000, 15386, 10347, 6772, 4000};
  int64_t most = 0;
  for (const auto& t : timeouts) {
    const NodeId member = t["node"].get<NodeId>();
    const auto starts = h.records("swim_state", member, [](const nlohmann::json& r) {
      return r["target"] == 3 && r["to"] == "suspect";
    });
    ASSERT_EQ(starts.size(), 1u);
    const Duration waited = Harness::time_of(t) - Harness::time_of(starts[0]);
    const int64_t c = t["confirmations"].get<int64_t>();
    ASSERT_LE(c, 4) << "member " << member;
    most = std::max(most, c);
    // At its deadline for c confirmations, or at once when the c-th came after that (then
    // before the deadline for c - 1, which would have fired first).
    if (c > 0 && waited > Duration::ms(deadline_ms[c])) {
      EXPECT_LT(waited, Duration::ms(deadline_ms[c - 1])) << "member " << member;
    } else {
      EXPECT_LE(waited, Duration::ms(deadline_ms[c])) << "member " << member;
    }
    if (c == 0) {
      EXPECT_EQ(waited, Duration::ms(24000)) << "member " << member;
    }
    EXPECT_GE(waited, Duration::ms(4000)) << "member " << member;
  }
  EXPECT_GE(most, 3) << "no member counted more than memberlist's default k = 2";
  EXPECT_EQ(h.model->recorder().false_removals(), 0u);
}

// K larger than the other members can supply (n - 2 < K) falls back to k = 0 as memberlist
// does: with Lifeguard on, every member removes the crashed member exactly min = 4 s after its
// own suspicion started, and counts no confirmation.
TEST(SwimProtocol, SuspicionConfirmationsBeyondTheClusterMeanNoDynamicSuspicion) {
  SwimConfig cfg = test::config(8, true);
  cfg.suspicion_confirmations = 7;
  HarnessOptions o;
  o.seed = 3;
  Harness h(cfg, o);
  h.at(at_s(20.0), [&] { h.hosts.crash(3); });
  h.run_until_s(80.0);
  const auto is_about_3 = [](const nlohmann::json& r) { return r["target"] == 3; };
  const auto timeouts = h.records("swim_suspicion_timeout", std::nullopt, is_about_3);
  ASSERT_FALSE(timeouts.empty());
  for (const auto& t : timeouts) {
    const NodeId member = t["node"].get<NodeId>();
    const auto starts = h.records("swim_state", member, [](const nlohmann::json& r) {
      return r["target"] == 3 && r["to"] == "suspect";
    });
    ASSERT_EQ(starts.size(), 1u);
    EXPECT_EQ(t["confirmations"].get<int64_t>(), 0) << "member " << member;
    EXPECT_EQ(Harness::time_of(t) - Harness::time_of(starts[0]), Duration::ms(4000))
        << "member " << member;
  }
}

// A pause that catches the paused member inside a probe's direct-ack wait (30% loss, so acks go
// missing and probes stay open for their whole 500 ms wait): the probe timeout is replayed at
// the resume, after the probe deadline, which then fires at once and fails the probe at the
// resume instant. Before the fix the deadline was scheduled in the past and the run aborted
// ("event 'swim.probe_deadline' ... scheduled at ..., before now"), as main's fdsim did on the
// same set-up as a scenario for seeds 2 and 3.
TEST(SwimProtocol, PauseDuringAProbeReplaysItsDeadlineAtTheResume) {
  int failed_at_resume = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    for (int i = 0; i < 10; ++i) {
      HarnessOptions o;
      o.seed = seed;
      o.loss = 0.3;
      Harness h(test::config(8, true), o);
      const double at = 20.0 + 0.1 * i;
      h.at(at_s(at), [&] { h.hosts.pause(2); });
      h.at(at_s(at + 12.0), [&] { h.hosts.resume(2); });
      h.run_until_s(60.0);
      EXPECT_GT(h.m(2).incarnation(), 1u) << "seed " << seed << " at " << at;
      failed_at_resume += int(h.records("swim_probe_failed", 2, [&](const nlohmann::json& r) {
                                 return Harness::time_of(r) == at_s(at + 12.0);
                               }).size());
    }
  }
  EXPECT_GT(failed_at_resume, 0) << "no run replayed an open probe at the resume";
}

// A 3 s pause of member 2 (shorter than min = 4 s): members suspect it, and when it resumes it
// receives the suspicion (buddy ping or gossip) and refutes with incarnation 2; nobody removes
// it and every member ends with it alive at incarnation 2.
TEST(SwimProtocol, PausedMemberRefutesTheSuspicionAndIsNotRemoved) {
  for (bool lifeguard : {false, true}) {
    HarnessOptions o;
    o.seed = 7;
    Harness h(test::config(8, lifeguard), o);
    h.at(at_s(30.0), [&] { h.hosts.pause(2); });
    h.at(at_s(33.0), [&] { h.hosts.resume(2); });
    h.run_until_s(60.0);
    const auto& r = h.model->recorder();
    EXPECT_GE(r.false_suspicions(), 1u) << lifeguard;
    EXPECT_GE(r.refutations(), 1u) << lifeguard;
    EXPECT_EQ(r.false_removals(), 0u) << lifeguard;
    EXPECT_EQ(r.removals(), 0u) << lifeguard;
    EXPECT_EQ(h.m(2).incarnation(), 2u) << lifeguard;
    for (NodeId n = 0; n < 8; ++n) {
      EXPECT_EQ(h.m(n).state_of(2), PeerState::alive) << lifeguard << " member " << n;
      EXPECT_EQ(h.m(n).incarnation_of(2), 2u) << lifeguard << " member " << n;
    }
  }
}

// A 10 s pause exceeds plain SWIM's 4 s timeout: the member is removed while alive (a false
// removal), then refutes at resume and is taken back by everyone.
TEST(SwimProtocol, LongPauseIsAFalseRemovalUndoneByTheRefutation) {
  HarnessOptions o;
  o.seed = 7;
  Harness h(test::config(8, false), o);
  h.at(at_s(30.0), [&] { h.hosts.pause(2); });
  h.at(at_s(40.0), [&] { h.hosts.resume(2); });
  h.run_until_s(70.0);
  const auto& r = h.model->recorder();
  EXPECT_EQ(r.false_removals(), 1u);
  EXPECT_GE(r.refutations(), 1u);
  for (NodeId n = 0; n < 8; ++n) {
    if (n == 2) continue;
    EXPECT_EQ(h.m(n).state_of(2), PeerState::alive) << "member " << n;
    EXPECT_GE(h.m(n).incarnation_of(2), 2u) << "member " << n;
  }
}

// No faults: each member probes once per interval and every probe is answered directly; with
// nothing to disseminate there is no gossip packet, no suspicion, no TCP ping.
TEST(SwimProtocol, QuietClusterSendsOnePingAndOneAckPerProbe) {
  HarnessOptions o;
  o.horizon_s = 100.0;
  o.warmup_s = 0.0;
  Harness h(test::config(16, true), o);
  h.run_until_s(100.0);
  const auto& r = h.model->recorder();
  EXPECT_EQ(r.suspicions(), 0u);
  EXPECT_EQ(r.messages(Msg::gossip), 0u);
  EXPECT_EQ(r.messages(Msg::tcp_ping), 0u);
  EXPECT_EQ(r.messages(Msg::indirect_ping), 0u);
  // Pings still in flight at the horizon have no ack yet (at most one per member).
  EXPECT_GE(r.messages(Msg::ping), r.messages(Msg::ack));
  EXPECT_LE(r.messages(Msg::ping), r.messages(Msg::ack) + 16u);
  // 16 members x 100 ticks in [0, 100 s), less the pings still unanswered at the horizon.
  EXPECT_GE(r.messages(Msg::ping), 16u * 99u);
  EXPECT_LE(r.messages(Msg::ping), 16u * 100u);
  for (NodeId n = 0; n < 16; ++n) EXPECT_EQ(h.m(n).health_score(), 0);
}

// A member whose packets are all delayed by 600 ms each way: RTT 1.2 s exceeds its probe deadline
// (1 s), its TCP fallback (connect alone takes 600 ms of the 500 ms left) and any relayed ack or
// nack. Its probes fail with every nack missing, so Lifeguard raises its health score (by 3 per
// failure) and stretches its deadline, after which the direct ack arrives in time; without
// awareness every one of its probes fails and it raises many more suspicions.
TEST(SwimProtocol, SlowMemberRaisesItsOwnHealthScoreOnlyWithAwareness) {
  int64_t failures[2] = {0, 0};
  for (bool lifeguard : {false, true}) {
    HarnessOptions o;
    o.seed = 11;
    Harness h(test::config(8, lifeguard), o);
    h.net.add_delay_spike({5}, {}, Duration::ms(600));
    h.net.add_delay_spike({}, {5}, Duration::ms(600));
    int64_t max_score = 0;
    for (int t = 50; t <= 600; ++t) {
      h.at(at_s(t / 10.0), [&] { max_score = std::max(max_score, h.m(5).health_score()); });
    }
    h.run_until_s(60.0);
    failures[lifeguard] = int64_t(h.records("swim_probe_failed", NodeId(5)).size());
    if (lifeguard) {
      EXPECT_GE(max_score, 3);
    } else {
      EXPECT_EQ(max_score, 0);
    }
  }
  EXPECT_GT(failures[0], 2 * failures[1]);
  EXPECT_GT(failures[1], 0);
}

}  // namespace
}  // namespace fdsim::swim
