// The control arms of the fixed-versus-adaptive map (docs/models/load-sharing.md, "Diagnosis
// arms"): fixed_on_silence (the fixed twin of hou_shin_extra: a node broadcasts once `period_ms`
// has passed since its last broadcast, observers suspect after `timeout_ms` of silence),
// oracle_periodic (perfect diagnosis with the periodic broadcasts of fixed_periodic) and
// periodic_no_diagnosis (the same broadcasts, never suspects). Exact traces on idle systems and
// invariants under load; each test fails when its arm's mechanism is switched off.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/loadsharing/ls_harness.h"
#include "tests/loadsharing/test_time.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;

struct ArmRun {
  LoadSharingConfig cfg;
  testing::MemoryTrace trace;
  std::unique_ptr<testing::Harness> h;
  ArmRun(const json& workload, const json& arm, size_t nodes, size_t buddies, double horizon_s)
      : cfg(testing::parse_ok(workload, {{"buddy_size", buddies}, {"arms", json::array({arm})}},
                              nodes)) {
    h = std::make_unique<testing::Harness>(cfg, 0, 11, horizon_s, 0.0,
                                           testing::constant_network(1.0));
    h->sim.set_trace(&trace);
  }
  void crash(double from_s, double to_s, NodeId n) {
    h->sim.schedule_at(at_s(from_s), h->sim.kind("test.crash"), n, [this, n] { h->hosts.crash(n); });
    h->sim.schedule_at(at_s(to_s), h->sim.kind("test.recover"), n,
                       [this, n] { h->hosts.recover(n); });
  }
  // (time, node) of every broadcast of one kind.
  std::vector<std::pair<SimTime, NodeId>> broadcasts(const std::string& kind) const {
    std::vector<std::pair<SimTime, NodeId>> out;
    for (const auto& b : trace.of_kind("broadcast"))
      if (b.fields["broadcast_kind"] == kind) out.push_back({b.t, b.node});
    return out;
  }
};

const json kIdle = {{"arrival_rate_per_s", 0.0}};
const json kLoaded = {{"arrival_rate_per_s", 0.8},
                      {"deadline", {{"kind", "uniform"}, {"min_s", 3.0}, {"max_s", 10.0}}}};

// Idle nodes never change state, so every broadcast after the start is a silence broadcast:
// node 0 sends at 1, 2, 3, 4, 5 s, crashes at 5.5 s, broadcasts its recovery at 10.5 s and then
// every second from 11.5 to 19.5 s. Its observers last heard it at 5.001 s and suspect it
// 2.5 s later, 1 ns after the limit.
TEST(FixedOnSilenceArm, IdleNodesBroadcastEveryPeriodAndACrashIsDetectedAfterTheTimeout) {
  ArmRun r(kIdle,
        {{"name", "fs"}, {"diagnosis", "fixed_on_silence"}, {"period_ms", 1000},
         {"timeout_ms", 2500}},
        3, 2, 20.0);
  r.crash(5.5, 10.5, 0);
  const json m = r.h->run();
  std::vector<SimTime> of_0;
  for (const auto& [t, n] : r.broadcasts("extra"))
    if (n == 0) of_0.push_back(t);
  std::vector<SimTime> expected;
  for (double s : {1.0, 2.0, 3.0, 4.0, 5.0, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5})
    expected.push_back(at_s(s));
  EXPECT_EQ(of_0, expected);
  EXPECT_TRUE(r.broadcasts("periodic").empty());
  const auto suspects = r.trace.of_kind("suspect");
  ASSERT_EQ(suspects.size(), 2u);
  for (const auto& s : suspects) {
    EXPECT_EQ(s.t, at_s(7.501) + Duration::ns(1));
    EXPECT_EQ(s.fields["target"], 0);
  }
  EXPECT_EQ(m["false_suspicions_count"], 0);
  EXPECT_EQ(m["detections_count"], 2);
}

// Under load a node's state changes often; a silence broadcast goes out exactly one period
// after the node's previous broadcast of any kind, so no node is ever silent for longer than
// the period, and it sends fewer messages than the periodic heartbeat of the same period.
TEST(FixedOnSilenceArm, UnderLoadEverySilenceBroadcastFollowsThePreviousBroadcastByOnePeriod) {
  const double period_s = 2.0;
  const json fs = {{"name", "fs"}, {"diagnosis", "fixed_on_silence"}, {"period_ms", 2000},
                   {"timeout_ms", 2500}};
  const json fp = {{"name", "fp"}, {"diagnosis", "fixed_periodic"}, {"period_ms", 2000},
                   {"timeout_ms", 2500}};
  ArmRun r(kLoaded, fs, 8, 4, 600.0);
  ArmRun p(kLoaded, fp, 8, 4, 600.0);
  const json m = r.h->run(), mp = p.h->run();
  // Every node's initial state counts as broadcast at t = 0 (it is not traced).
  std::map<NodeId, SimTime> last;
  for (size_t n = 0; n < 8; ++n) last[NodeId(n)] = SimTime::zero();
  size_t extras = 0, changes = 0;
  for (const auto& b : r.trace.of_kind("broadcast")) {
    const std::string kind = b.fields["broadcast_kind"];
    if (kind == "extra") {
      ++extras;
      EXPECT_EQ(b.t, last[b.node] + Duration::from_seconds(period_s)) << "node " << b.node;
    } else {
      ++changes;
      EXPECT_LE(b.t - last[b.node], Duration::from_seconds(period_s));
    }
    last[b.node] = b.t;
  }
  EXPECT_GT(extras, 100u);
  EXPECT_GT(changes, 100u);
  EXPECT_EQ(m["broadcasts_extra_count"].get<uint64_t>(), extras);
  // No crashes, no loss, 1 ms links, silence <= 2 s < 2.5 s: never a suspicion.
  EXPECT_EQ(m["false_suspicions_count"], 0);
  EXPECT_LT(m["broadcasts_extra_count"].get<uint64_t>(),
            mp["broadcasts_periodic_count"].get<uint64_t>());
}

// The periodic controls send the heartbeats of fixed_periodic at the same instants (they
// depend on the fault history only); oracle_periodic diagnoses exactly like the oracle and
// periodic_no_diagnosis never suspects, so it decides like fixed_periodic with a timeout longer
// than the run.
TEST(PeriodicControlArms, SameHeartbeatsAsFixedPeriodic_OracleDiagnosis_OrNoDiagnosisAtAll) {
  auto arm = [](const std::string& name, const std::string& diagnosis, double timeout_ms) {
    json a = {{"name", name}, {"diagnosis", diagnosis}};
    if (diagnosis != "oracle" && diagnosis != "none") a["period_ms"] = 1000;
    if (timeout_ms > 0) a["timeout_ms"] = timeout_ms;
    return a;
  };
  std::map<std::string, json> m;
  std::map<std::string, std::vector<std::pair<SimTime, NodeId>>> beats;
  for (const json& a : {arm("fp", "fixed_periodic", 3000), arm("fp_inf", "fixed_periodic", 1e9),
                        arm("op", "oracle_periodic", 0), arm("pn", "periodic_no_diagnosis", 0),
                        arm("oracle", "oracle", 0), arm("none", "none", 0)}) {
    ArmRun r(kLoaded, a, 8, 4, 900.0);
    r.crash(100.0, 160.0, 2);
    r.crash(300.0, 420.0, 5);
    r.crash(310.0, 330.0, 6);
    m[a["name"]] = r.h->run();
    beats[a["name"]] = r.broadcasts("periodic");
  }
  EXPECT_GT(beats["fp"].size(), 8u * 800u);
  EXPECT_EQ(beats["op"], beats["fp"]);
  EXPECT_EQ(beats["pn"], beats["fp"]);
  EXPECT_TRUE(beats["oracle"].empty());

  // oracle_periodic: the oracle's diagnosis.
  for (const char* k : {"detections_count", "false_suspicions_count", "detection_time_max_s"})
    EXPECT_EQ(m["op"][k], m["oracle"][k]) << k;
  EXPECT_EQ(m["op"]["detection_time_max_s"], 0.0);
  EXPECT_GT(m["op"]["detections_count"].get<int>(), 0);

  // periodic_no_diagnosis: no suspicion ever, and every task decided as by a fixed_periodic
  // arm that never times out.
  EXPECT_EQ(m["pn"]["detections_count"], 0);
  EXPECT_EQ(m["pn"]["false_suspicions_count"], 0);
  for (const char* k : {"tasks_arrived_count", "tasks_completed_on_time_count", "tasks_missed_count",
                        "tasks_lost_count", "transfers_delivered_count"})
    EXPECT_EQ(m["pn"][k], m["fp_inf"][k]) << k;
  EXPECT_EQ(m["fp_inf"]["detections_count"], 0);
  EXPECT_GT(m["fp"]["detections_count"].get<int>(), 0);
}

// fixed_heartbeat (fixed_periodic's cheap twin, issue 38): the same instants as fixed_periodic's
// periodic broadcasts, liveness only. On idle nodes (no state changes) it detects exactly as
// fixed_periodic does; each heartbeat is heartbeat_bytes on the wire.
TEST(FixedHeartbeatArm, IdleNodesHeartbeatAtThePeriodicInstantsAndDetectLikeFixedPeriodic) {
  const json fh = {{"name", "fh"}, {"diagnosis", "fixed_heartbeat"}, {"period_ms", 1000},
                   {"timeout_ms", 2500}};
  const json fp = {{"name", "fp"}, {"diagnosis", "fixed_periodic"}, {"period_ms", 1000},
                   {"timeout_ms", 2500}};
  ArmRun h(kIdle, fh, 3, 2, 20.0), p(kIdle, fp, 3, 2, 20.0);
  h.crash(5.5, 10.5, 0);
  p.crash(5.5, 10.5, 0);
  const json mh = h.h->run(), mp = p.h->run();
  std::vector<std::pair<SimTime, NodeId>> beats;
  for (const auto& b : h.trace.of_kind("heartbeat")) beats.push_back({b.t, b.node});
  EXPECT_EQ(beats, p.broadcasts("periodic"));
  EXPECT_EQ(beats.size(), 2u * 20u + 14u);  // 1..20 s; node 0: 1..5 s, 11.5..19.5 s
  EXPECT_TRUE(h.broadcasts("periodic").empty());
  // Node 0 last heard at 5.001 s: suspected 2.5 s (+ 1 ns) later by both observers, as by
  // fixed_periodic.
  const auto sh = h.trace.of_kind("suspect"), sp = p.trace.of_kind("suspect");
  ASSERT_EQ(sh.size(), 2u);
  ASSERT_EQ(sp.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sh[i].t, at_s(7.501) + Duration::ns(1));
    EXPECT_EQ(sh[i].t, sp[i].t);
    EXPECT_EQ(sh[i].fields["target"], 0);
  }
  EXPECT_EQ(mh["detections_count"], 2);
  EXPECT_EQ(mh["false_suspicions_count"], 0);
  // Heartbeats are not state broadcasts.
  EXPECT_EQ(mh["broadcasts_periodic_count"], 0);
  EXPECT_GT(mp["broadcasts_periodic_count"].get<int>(), 0);
}

// A heartbeat carries no state, and leaves the state an observer holds as the last broadcast
// set it: with a timeout longer than the run (never a suspicion) and lossless links, a
// fixed_heartbeat arm decides every task exactly as a `fixed` arm with the same timeout. So does
// fixed_periodic: without loss no region change is missed, and the decisions read the sender's
// region, which every arm broadcasts on each change; the periodic state is worth something only
// where a region-change broadcast can be lost. (Constant 1 ms links, no loss: the beats draw no
// random numbers.)
TEST(FixedHeartbeatArm, HeartbeatsLeaveTheObserversStateAsTheBroadcastsSetIt) {
  const json fh = {{"name", "fh"}, {"diagnosis", "fixed_heartbeat"}, {"period_ms", 500},
                   {"timeout_ms", 1e9}};
  const json fx = {{"name", "fx"}, {"diagnosis", "fixed"}, {"timeout_ms", 1e9}};
  const json fp = {{"name", "fp"}, {"diagnosis", "fixed_periodic"}, {"period_ms", 500},
                   {"timeout_ms", 1e9}};
  ArmRun h(kLoaded, fh, 8, 4, 900.0), x(kLoaded, fx, 8, 4, 900.0), p(kLoaded, fp, 8, 4, 900.0);
  const json mh = h.h->run(), mx = x.h->run(), mp = p.h->run();
  EXPECT_GT(h.trace.of_kind("heartbeat").size(), 8u * 1700u);
  const char* keys[] = {"tasks_arrived_count", "tasks_completed_on_time_count",
                        "tasks_missed_count", "transfers_delivered_count"};
  for (const char* k : keys) {
    EXPECT_EQ(mh[k], mx[k]) << k;
    EXPECT_EQ(mp[k], mx[k]) << k;
  }
  EXPECT_GT(mx["transfers_delivered_count"].get<int>(), 100);
}

}  // namespace
}  // namespace fdsim::loadsharing
