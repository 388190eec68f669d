// Exact protocol traces of the diagnosis arms on an idle system (no task ever arrives, so no
// node changes region and the only broadcasts are recoveries and extras). Three nodes, buddy
// size 2: every node watches the two others; constant 1 ms latency, no loss.
#include <gtest/gtest.h>

#include "tests/loadsharing/test_time.h"
#include "models/loadsharing/hou_shin_timeout.h"
#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;


LoadSharingConfig idle_config(const json& arm) {
  return testing::parse_ok({{"arrival_rate_per_s", 0.0}},
                           {{"buddy_size", 2}, {"arms", json::array({arm})}}, 3);
}

struct IdleRun {
  LoadSharingConfig cfg;
  testing::MemoryTrace trace;
  std::function<bool(NodeId, NodeId)> view;
  std::unique_ptr<testing::Harness> h;
  IdleRun(const json& arm, double horizon_s) : cfg(idle_config(arm)) {
    std::function<bool(NodeId, NodeId)> membership;
    if (arm["diagnosis"] == "geode_ring")
      membership = [this](NodeId o, NodeId t) { return view(o, t); };
    h = std::make_unique<testing::Harness>(cfg, 0, 1, horizon_s, 0.0,
                                           testing::constant_network(1.0), membership);
    h->sim.set_trace(&trace);
  }
  void crash_at(double s, NodeId n) {
    h->sim.schedule_at(at_s(s), h->sim.kind("test.crash"), n, [this, n] { h->hosts.crash(n); });
  }
  void recover_at(double s, NodeId n) {
    h->sim.schedule_at(at_s(s), h->sim.kind("test.recover"), n, [this, n] { h->hosts.recover(n); });
  }
};

TEST(FixedTimeoutArm, IdleBuddiesAreSuspectedWhenSilenceExceedsTheTimeout) {
  IdleRun r({{"name", "f"}, {"diagnosis", "fixed"}, {"timeout_ms", 5000}}, 20.0);
  const json m = r.h->run();
  const auto suspects = r.trace.of_kind("suspect");
  ASSERT_EQ(suspects.size(), 6u);
  // Initial view "received" after the 1 ms link delay; suspicion 1 ns after 5 s of silence.
  for (const auto& s : suspects) EXPECT_EQ(s.t, at_s(5.001) + Duration::ns(1));
  EXPECT_EQ(m["false_suspicions_count"], 6);
  EXPECT_NEAR(m["live_suspected_time_s"].get<double>(), 6 * (20.0 - 5.001), 1e-6);
  EXPECT_NEAR(m["pair_up_time_s"].get<double>(), 6 * 20.0, 1e-9);
}

TEST(FixedTimeoutArm, RecoveryBroadcastClearsTheSuspicionAndRestartsTheTimer) {
  IdleRun r({{"name", "f"}, {"diagnosis", "fixed"}, {"timeout_ms", 5000}}, 20.0);
  r.crash_at(2.0, 0);
  r.recover_at(8.0, 0);
  const json m = r.h->run();
  // Observers of 0 are 1 and 2: both suspect it at 5.001 s (a true suspicion), trust it again
  // when its recovery broadcast arrives at 8.001 s, and suspect it anew 5 s later (false).
  std::vector<std::pair<SimTime, NodeId>> trusts;
  for (const auto& t : r.trace.of_kind("trust")) trusts.push_back({t.t, t.fields["target"]});
  EXPECT_EQ(trusts, (std::vector<std::pair<SimTime, NodeId>>{{at_s(8.001), 0}, {at_s(8.001), 0}}));
  int late = 0;
  for (const auto& s : r.trace.of_kind("suspect"))
    if (s.t == at_s(13.001) + Duration::ns(1)) ++late;
  EXPECT_EQ(late, 2);
  EXPECT_EQ(m["crashes_count"], 1);
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_NEAR(m["detection_time_mean_s"].get<double>(), 3.001, 1e-8);
  EXPECT_EQ(m["detections_never_count"], 0);
  // 1 <-> 2 at 5.001 s, and 0 by 1 and 2 at 13.001 s; the recovered node 0 knows nothing of
  // its buddies, so it times nobody.
  EXPECT_EQ(m["false_suspicions_count"], 4);
  EXPECT_EQ(m["suspicions_count"], 6);
  EXPECT_EQ(m["broadcasts_recovery_count"], 1);
  EXPECT_EQ(m["broadcast_messages_count"], 2);
}

TEST(FixedTimeoutArm, ACrashShorterThanTheTimeoutIsNeverDetected) {
  IdleRun r({{"name", "f"}, {"diagnosis", "fixed"}, {"timeout_ms", 5000}}, 20.0);
  r.crash_at(1.0, 0);
  r.recover_at(3.0, 0);
  const json m = r.h->run();
  EXPECT_EQ(m["detections_count"], 0);
  EXPECT_EQ(m["detections_never_count"], 2);
}

TEST(OracleArm, SuspectsExactlyWhileTheTargetIsCrashed) {
  IdleRun r({{"name", "o"}, {"diagnosis", "oracle"}}, 20.0);
  r.crash_at(2.0, 0);
  r.recover_at(8.0, 0);
  std::vector<std::pair<double, bool>> seen;
  for (double t : {1.999, 2.0, 7.999, 8.0}) {
    r.h->sim.schedule_at(at_s(t), r.h->sim.kind("test.check"), kNoNode, [&, t] {
      seen.push_back({t, r.h->model->suspects(1, 0)});
    });
  }
  const json m = r.h->run();
  EXPECT_EQ(seen, (std::vector<std::pair<double, bool>>{
                      {1.999, false}, {2.0, true}, {7.999, true}, {8.0, false}}));
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_EQ(m["detection_time_max_s"], 0.0);
  EXPECT_EQ(m["false_suspicions_count"], 0);
  EXPECT_EQ(m["live_suspected_time_s"], 0.0);
}

TEST(GeodeRingArm, SuspicionFollowsTheMembershipViewSampledEveryPoll) {
  IdleRun r({{"name", "g"}, {"diagnosis", "geode_ring"}}, 10.0);
  r.view = [&](NodeId, NodeId target) { return target == 0 && r.h->sim.now() >= at_s(3.0); };
  r.crash_at(2.95, 0);
  const json m = r.h->run();
  EXPECT_TRUE(r.h->model->suspects(1, 0));
  EXPECT_TRUE(r.h->model->suspects(2, 0));
  EXPECT_FALSE(r.h->model->suspects(1, 2));
  // Polls every 100 ms: the first one at or after 3 s is at exactly 3 s.
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_NEAR(m["detection_time_mean_s"].get<double>(), 0.05, 1e-9);
  EXPECT_EQ(m["false_suspicions_count"], 0);
}

// The initial view carries the prior estimates (Gamma(1, 1): lambda_U = mu = 1) and the state
// U with s0 = 0; the allowance is q99 - min = 0 on a constant-latency link.
Duration initial_t_out(double alpha) {
  timeout::TimeoutTable table;
  return table.t_out(timeout::region_chain(0, 1, 1.0, 1.0), 0, alpha, Duration::zero());
}

TEST(HouShinArm, WithoutExtraBroadcastsAnIdleBuddyIsSuspectedAtTout) {
  IdleRun r({{"name", "h"}, {"diagnosis", "hou_shin"}, {"alpha", 0.05}}, 60.0);
  const json m = r.h->run();
  const auto suspects = r.trace.of_kind("suspect");
  ASSERT_EQ(suspects.size(), 6u);
  for (const auto& s : suspects)
    EXPECT_EQ(s.t, at_s(0.001) + initial_t_out(0.05) + Duration::ns(1));
  EXPECT_EQ(m["false_suspicions_count"], 6);
  EXPECT_EQ(m["broadcasts_extra_count"], 0);
}

TEST(HouShinExtraArm, ExtraBroadcastsKeepIdleBuddiesTrusted) {
  IdleRun r({{"name", "hx"}, {"diagnosis", "hou_shin_extra"}, {"alpha", 0.05}}, 1000.0);
  const json m = r.h->run();
  EXPECT_EQ(m["suspicions_count"], 0);
  std::vector<SimTime> extras_of_0;
  for (const auto& b : r.trace.of_kind("broadcast"))
    if (b.node == 0 && b.fields["broadcast_kind"] == "extra") extras_of_0.push_back(b.t);
  // The first extra goes out T_out - send_margin (= T_out, the allowance being 0) after the
  // initial state. It carries lambda_U = 1 / (1 + T0) (prior Gamma(1, 1), no arrival in T0 s),
  // so the exit from {0, 1} (two arrivals before a completion) takes far longer: the second
  // extra comes T_out(lambda_U) later, and the third is beyond the horizon.
  ASSERT_EQ(extras_of_0.size(), 2u);
  const SimTime t0 = SimTime::zero() + initial_t_out(0.05);
  EXPECT_EQ(extras_of_0[0], t0);
  timeout::TimeoutTable table;
  const double lambda_u = 1.0 / (1.0 + t0.seconds());
  EXPECT_EQ(extras_of_0[1], t0 + table.t_out(timeout::region_chain(0, 1, lambda_u, 1.0), 0, 0.05,
                                             Duration::zero()));
  EXPECT_EQ(m["broadcasts_extra_count"], 6);
  EXPECT_EQ(m["broadcast_messages_count"], 12);
}

TEST(HouShinExtraArm, ExtraBroadcastsStopWithACrashAndDetectionFollows) {
  IdleRun r({{"name", "hx"}, {"diagnosis", "hou_shin_extra"}, {"alpha", 0.05}}, 120.0);
  r.crash_at(1.0, 0);
  const json m = r.h->run();
  for (const auto& b : r.trace.of_kind("broadcast")) EXPECT_NE(b.node, 0u) << to_string(b.t);
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_NEAR(m["detection_time_mean_s"].get<double>(),
              (at_s(0.001) + initial_t_out(0.05) + Duration::ns(1) - at_s(1.0)).seconds(), 1e-9);
  EXPECT_EQ(m["false_suspicions_count"], 0);
}

// The textbook heartbeat: every node broadcasts every second; an observer suspects after 2.5 s
// without any message. Idle nodes are then never suspected, and a crash at 5.5 s (last
// heartbeat at 5 s, received at 5.001 s) is detected at 7.501 s + 1 ns by both observers.
TEST(FixedPeriodicArm, HeartbeatsKeepIdleBuddiesTrusted_AndACrashIsDetectedAfterTheTimeout) {
  IdleRun r({{"name", "fp"}, {"diagnosis", "fixed_periodic"}, {"period_ms", 1000},
             {"timeout_ms", 2500}},
            20.0);
  r.crash_at(5.5, 0);
  r.recover_at(10.5, 0);
  const json m = r.h->run();
  const auto suspects = r.trace.of_kind("suspect");
  ASSERT_EQ(suspects.size(), 2u);
  for (const auto& s : suspects) {
    EXPECT_EQ(s.t, at_s(7.501) + Duration::ns(1));
    EXPECT_EQ(s.fields["target"], 0);
    EXPECT_DOUBLE_EQ(s.fields["limit_s"].get<double>(), 2.5);  // the limit that fired
  }
  EXPECT_EQ(m["false_suspicions_count"], 0);
  EXPECT_EQ(m["detections_count"], 2);
  EXPECT_NEAR(m["detection_time_mean_s"].get<double>(), 2.001000001, 1e-12);
  // Node 0 beats at 1..5 s, then from its recovery at 10.5 s: 11.5 .. 19.5 s; nodes 1 and 2 at
  // 1..19 s or 20 s (the horizon).
  uint64_t of_0 = 0;
  for (const auto& b : r.trace.of_kind("broadcast"))
    if (b.node == 0 && b.fields["broadcast_kind"] == "periodic") ++of_0;
  EXPECT_EQ(of_0, 5u + 9u);
  EXPECT_GE(m["broadcasts_periodic_count"].get<uint64_t>(), of_0 + 2 * 19);
  EXPECT_EQ(m["broadcasts_recovery_count"], 1);
}

// oracle_extra: the oracle's diagnosis with hou_shin_extra's broadcasts (the same extra
// broadcasts at the same instants, so the same load information).
TEST(OracleExtraArm, SuspectsTheTruthAndSendsTheExtraBroadcastsOfHouShinExtra) {
  IdleRun ox({{"name", "ox"}, {"diagnosis", "oracle_extra"}, {"alpha", 0.05}}, 1000.0);
  IdleRun hx({{"name", "hx"}, {"diagnosis", "hou_shin_extra"}, {"alpha", 0.05}}, 1000.0);
  ox.crash_at(500.0, 2);
  hx.crash_at(500.0, 2);
  const json mo = ox.h->run(), mh = hx.h->run();
  auto extras = [](const IdleRun& r) {
    std::vector<std::pair<SimTime, NodeId>> out;
    for (const auto& b : r.trace.of_kind("broadcast"))
      if (b.fields["broadcast_kind"] == "extra") out.push_back({b.t, b.node});
    return out;
  };
  EXPECT_FALSE(extras(ox).empty());
  EXPECT_EQ(extras(ox), extras(hx));
  EXPECT_EQ(mo["broadcasts_extra_count"], mh["broadcasts_extra_count"]);
  EXPECT_EQ(mo["detections_count"], 2);
  EXPECT_EQ(mo["detection_time_max_s"], 0.0);
  EXPECT_EQ(mo["false_suspicions_count"], 0);
  EXPECT_EQ(mh["false_suspicions_count"], 0);
}

// Broadcast trace records carry the region, queue length, the piggy-backed estimates and the
// T_out they imply; for the initial extra broadcast that is T_out of the prior estimates.
TEST(HouShinExtraArm, BroadcastTraceRecordsCarryTheStateEstimatesAndTout) {
  IdleRun r({{"name", "hx"}, {"diagnosis", "hou_shin_extra"}, {"alpha", 0.05}}, 200.0);
  r.h->run();
  const auto b = r.trace.of_kind("broadcast");
  ASSERT_FALSE(b.empty());
  const json& f = b.front().fields;
  EXPECT_EQ(f["broadcast_kind"], "extra");
  EXPECT_EQ(f["region"], "U");
  EXPECT_EQ(f["queue_length"], 0);
  EXPECT_DOUBLE_EQ(f["mu_per_s"].get<double>(), 1.0);
  ASSERT_EQ(f["region_input_per_s"].size(), 3u);
  const double lambda_u = f["region_input_per_s"][0].get<double>();
  timeout::TimeoutTable table;
  EXPECT_DOUBLE_EQ(f["t_out_s"].get<double>(),
                   table.t_out(timeout::region_chain(0, 1, lambda_u, 1.0), 0, 0.05,
                               Duration::zero())
                       .seconds());
}

}  // namespace
}  // namespace fdsim::loadsharing
