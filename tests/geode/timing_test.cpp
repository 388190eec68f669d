// End-to-end timing (docs/models/geode-membership.md, "Timing of a crash", and acceptance case 16; the wiki and take-over bounds are derived
// in models/geode/README.md): 10 members, M = 5000 ms, constant 1 ms delays, one member
// crashed at a random instant, members started at random phases (start_offset_max = T) so
// that every relative phase of heartbeats and ticks occurs. 200 replications per profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

struct Outcome {
  NodeId crashed;
  Duration to_suspicion, to_removal, to_all;
  uint64_t false_suspicions;
  uint64_t suspicions;
};

// One replication: crash a member (random non-coordinator one, or the coordinator) at a
// uniformly random instant in [20 s, 25 s); run 45 s (the slowest wiki removal is 17.8 s).
Outcome crash_run(Profile p, uint64_t rep, bool crash_coordinator) {
  GeodeConfig c = config(p, 10, 5000);
  c.start_offset_max = c.heartbeat_period;
  HarnessOptions o;
  o.seed = 20240601;
  o.replication = rep;
  o.horizon_s = 45;
  o.trace = false;
  Harness h(c, o);
  Rng pick = RngFactory(o.seed, rep).stream(kNoNode, "test.crash");
  const NodeId victim = crash_coordinator ? 0 : NodeId(pick.uniform_int(1, 9));
  const SimTime when = at_s(20) + Duration::from_ms(pick.uniform(0.0, 5000.0));
  h.at(when, [&h, victim] { h.hosts.crash(victim); });
  h.run_until_s(45);
  const auto& crashes = h.model->recorder().crashes();
  EXPECT_EQ(crashes.size(), 1u);
  Outcome out{victim, Duration::max(), Duration::max(), Duration::max(),
              h.model->recorder().false_suspicions(), h.model->recorder().suspicions()};
  if (crashes.size() == 1) {
    const auto& r = crashes[0];
    if (r.first_suspicion) out.to_suspicion = *r.first_suspicion - r.crashed;
    if (r.removal) out.to_removal = *r.removal - r.crashed;
    if (r.all_survivors) out.to_all = *r.all_survivors - r.crashed;
  }
  return out;
}

struct Spread {
  double min_s, p50_s, max_s;
};

Spread spread(std::vector<Duration> v) {
  std::sort(v.begin(), v.end());
  return {v.front().seconds(), 0.5 * (v[(v.size() - 1) / 2] + v[v.size() / 2]).seconds(),
          v.back().seconds()};
}

void check_bounds(Profile p, bool coordinator, Duration suspicion_lo, Duration suspicion_hi,
                  Duration removal_lo, Duration removal_hi, int reps) {
  std::vector<Duration> removals, suspicions;
  for (int rep = 0; rep < reps; ++rep) {
    const Outcome o = crash_run(p, uint64_t(rep), coordinator);
    SCOPED_TRACE("replication " + std::to_string(rep) + ", crashed m" + std::to_string(o.crashed));
    EXPECT_EQ(o.false_suspicions, 0u);
    ASSERT_NE(o.to_removal, Duration::max());
    ASSERT_NE(o.to_all, Duration::max());
    EXPECT_GT(o.to_suspicion, suspicion_lo);
    EXPECT_LE(o.to_suspicion, suspicion_hi);
    EXPECT_GE(o.to_removal, removal_lo);
    EXPECT_LE(o.to_removal, removal_hi);
    // Every survivor installs the view one delay after the coordinator.
    EXPECT_EQ(o.to_all, o.to_removal + Duration::ms(1));
    removals.push_back(o.to_removal);
    suspicions.push_back(o.to_suspicion);
  }
  const Spread r = spread(removals), s = spread(suspicions);
  std::printf("[ geode    ] %s%s, %d crashes: suspicion min %.3f p50 %.3f max %.3f s; "
              "removal min %.3f p50 %.3f max %.3f s (bounds %.3f .. %.3f s)\n",
              std::string(profile_name(p)).c_str(), coordinator ? " coordinator" : "", reps,
              s.min_s, s.p50_s, s.max_s, r.min_s, r.p50_s, r.max_s, removal_lo.seconds(),
              removal_hi.seconds());
  // The random phases cover the range. The removal time is (crash-to-last-heartbeat) +
  // (last-heartbeat-to-check) + constants, a sum of two independent uniforms of width T: a
  // triangular law, so the ends are rare: P(a sample within 0.4 T of an end) = 0.08, and
  // 100 or more samples miss that band with probability below 0.92^100 = 2.4e-4.
  const double T = 2.5;
  EXPECT_LT(r.min_s, removal_lo.seconds() + 0.4 * T);
  EXPECT_GT(r.max_s, removal_hi.seconds() - 0.4 * T - 0.05);
}

}  // namespace

TEST(GeodeAcceptance, Case16_EndToEndCurrent_RemovalWithinTwoToThreeMemberTimeouts) {
  const Duration M = Duration::ms(5000);
  // Acceptance case 16: [2M + 0.3 s, 3M + 0.3 s + 50 ms]; suspicion: between M and 2M.
  check_bounds(Profile::current, false, M, M * 2 + Duration::ms(1), M * 2 + Duration::ms(300),
               M * 3 + Duration::ms(350), 200);
}

TEST(GeodeTiming, EndToEndWiki_RemovalWithinTwoAndAHalfToThreeAndAHalfMemberTimeouts) {
  // README.md: suspicion in (1.5M + d, 2.5M + d]; removal in [2.5M + C + 3d, 3.5M + C + 6d]
  // (C = 300 ms collection, d = 1 ms, final check exactly M for M = 5000 and d = 1 ms).
  const Duration M = Duration::ms(5000);
  check_bounds(Profile::wiki, false, M + M / 2, M * 2 + M / 2 + Duration::ms(1),
               M * 2 + M / 2 + Duration::ms(303), M * 3 + M / 2 + Duration::ms(306), 200);
}

TEST(GeodeTiming, CoordinatorCrash_NextInLineTakesOverWithoutCollectionWait) {
  // README.md: the take-over view goes out at once (no 300 ms collection):
  // current removal in [2M + 3d, 3M + 6d].
  const Duration M = Duration::ms(5000);
  check_bounds(Profile::current, true, M, M * 2 + Duration::ms(1), M * 2 + Duration::ms(3),
               M * 3 + Duration::ms(6), 100);
}

}  // namespace fdsim::geode::test
