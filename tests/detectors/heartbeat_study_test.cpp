// The heartbeat study on the real simulator, hosts and network: exact protocol outcomes under
// faults, detection-time bounds, NFD-E vs NFD-S, clocks, jitter, common random numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/rng.h"
#include "sim/net/latency.h"
#include "study_world.h"

namespace fdsim::detectors {
namespace {

using testing::CollectingTrace;
using testing::StudyWorld;

SimTime sec(double s) { return SimTime::from_seconds(s); }

HeartbeatStudyConfig two_node_config(StudyArm a) {
  HeartbeatStudyConfig c;
  c.pairs = {{0, 1}};
  c.random_phase = false;
  c.arms = {std::move(a)};
  return c;
}

StudyArm nfd_s_arm(double delta_ms) {
  StudyArm a = testing::arm("nfd_s", DetectorKind::nfd_s);
  a.detector.delta = Duration::from_ms(delta_ms);
  return a;
}

void at(StudyWorld& w, SimTime t, std::function<void()> fn) {
  w.sim.schedule_at(t, w.sim.kind("test.fault"), kNoNode, std::move(fn));
}

TEST(HeartbeatStudy, SenderCrash_FixedTimeoutSuspectsExactlyTimeoutAfterLastArrival) {
  StudyWorld w(2, testing::network(net::constant_latency(10), 0.0), 1, sec(0), sec(20));
  CollectingTrace trace;
  w.sim.set_trace(&trace);
  StudyArm a = testing::arm("fixed", DetectorKind::fixed);
  a.detector.timeout = Duration::ms(2500);
  HeartbeatStudy& s = w.make(two_node_config(a));
  at(w, sec(5.3), [&] { w.hosts.crash(0); });
  w.run();
  // Last heartbeat sent at 5.0 s, received at 5.01 s: suspicion at 7.51 s, T_D = 2.21 s.
  const auto suspects = trace.of_kind("suspect");
  ASSERT_EQ(suspects.size(), 1u);
  EXPECT_EQ(suspects[0].t, sec(7.51));
  EXPECT_EQ(suspects[0].node, 1u);
  EXPECT_EQ(suspects[0].fields, (nlohmann::json{{"detector", "fixed"}, {"target", 0}}));
  EXPECT_TRUE(trace.of_kind("trust").empty());
  const auto& rec = s.recorder(0, 0);
  ASSERT_EQ(rec.detection_times().size(), 1u);
  EXPECT_EQ(rec.detection_times()[0], Duration::ms(2210));
  EXPECT_EQ(rec.mistakes(), 0u);
  EXPECT_EQ(rec.observed_time(), Duration::ms(5300));
  // Heartbeats 0..5 were sent; the network traced each send and receipt.
  EXPECT_EQ(s.heartbeats_sent(), 6u);
  size_t hb_recv = 0;
  for (const auto& r : trace.of_kind("recv"))
    if (r.fields["msg"] == "heartbeat") ++hb_recv;
  EXPECT_EQ(hb_recv, 6u);
}

TEST(HeartbeatStudy, SenderPause_LateHeartbeatRefutesSuspicion_OneExactMistake) {
  StudyWorld w(2, testing::network(net::constant_latency(10), 0.0), 1, sec(0), sec(10));
  HeartbeatStudy& s = w.make(two_node_config(nfd_s_arm(100)));
  at(w, sec(3.5), [&] { w.hosts.pause(0); });
  at(w, sec(5.5), [&] { w.hosts.resume(0); });
  const auto m = w.run()["nfd_s"];
  // m_3 (sent 3.0) keeps trust until 4.1; slot 4 is sent at the resume (5.5, stamped 5.5),
  // arrives 5.51 and ends the mistake; slot 5 was skipped, slot 6 goes out at 6.0.
  const auto& rec = s.recorder(0, 0);
  EXPECT_EQ(rec.mistakes(), 1u);
  ASSERT_EQ(rec.mistake_durations().size(), 1u);
  EXPECT_EQ(rec.mistake_durations()[0], Duration::ms(1410));
  EXPECT_EQ(rec.suspect_time(), Duration::ms(1410));
  EXPECT_EQ(m["heartbeat_messages_count"], 9);  // slots 0-3, the late 4, 6-9
  EXPECT_EQ(s.detector(0, 0).suspect_at(), sec(9 + 1.1));
}

TEST(HeartbeatStudy, PausedMonitor_SuspectsOnTime_HandlesQueuedArrivalsAtResume) {
  StudyWorld w(2, testing::network(net::constant_latency(10), 0.0), 1, sec(0), sec(10));
  HeartbeatStudy& s = w.make(two_node_config(nfd_s_arm(100)));
  at(w, sec(3.5), [&] { w.hosts.pause(1); });
  at(w, sec(5.5), [&] { w.hosts.resume(1); });
  w.run();
  // m_4 and m_5 arrive during the pause and are handled at 5.5: m_5 restores trust then.
  const auto& rec = s.recorder(0, 0);
  EXPECT_EQ(rec.mistakes(), 1u);
  ASSERT_EQ(rec.mistake_durations().size(), 1u);
  EXPECT_EQ(rec.mistake_durations()[0], Duration::ms(1400));
}

TEST(HeartbeatStudy, MonitorCrash_DowntimeNotObserved_FreshDetectorAfterRecovery) {
  StudyWorld w(2, testing::network(net::constant_latency(10), 0.0), 1, sec(0), sec(10));
  StudyArm phi = testing::arm("phi", DetectorKind::phi_accrual);
  HeartbeatStudyConfig c = two_node_config(phi);
  HeartbeatStudy& s = w.make(c);
  at(w, sec(3.5), [&] { w.hosts.crash(1); });
  at(w, sec(6.5), [&] {
    w.hosts.recover(1);
    // Fresh detector: no history, never suspects before a heartbeat.
    EXPECT_EQ(s.detector(0, 0).suspect_at(), SimTime::max());
    EXPECT_FALSE(s.suspecting(0, 0));
  });
  w.run();
  const auto& rec = s.recorder(0, 0);
  EXPECT_EQ(rec.observed_time(), Duration::s(7));
  EXPECT_EQ(rec.mistakes(), 0u);
  EXPECT_EQ(rec.crashes_unobserved(), 0u);
  // Heartbeats 7, 8, 9 reached the new incarnation: bootstrap (2) + 2 intervals.
  const auto& d = dynamic_cast<const PhiAccrualDetector&>(s.detector(0, 0));
  EXPECT_EQ(d.history_size(), 4u);
}

TEST(HeartbeatStudy, ClockOffsetAndDrift_SendStampIsTheSenderClock) {
  StudyWorld w(2, testing::network(net::constant_latency(10), 0.0), 1, sec(0), sec(100.5));
  HeartbeatStudyConfig c = two_node_config(nfd_s_arm(0));
  c.clock_drift_ppm = 1000;  // the sender's clock runs 0.1% fast
  c.clock_offset = Duration::s(2);
  HeartbeatStudy& s = w.make(c);
  w.run();
  // Slot k is due at real time k * 1 s / 1.001: slots 0..100 fit before 100.5 s. Slot 100 is
  // sent at 99.9000999 s when the sender's clock reads 2 + 100 s.
  EXPECT_EQ(s.heartbeats_sent(), 101u);
  EXPECT_EQ(s.sender_clock(SimTime::from_ns(99900099900)), sec(102));
  EXPECT_EQ(s.detector(0, 0).suspect_at(), sec(103));  // NFD-S: stamp + eta + delta(0)
}

TEST(HeartbeatStudy, SendJitter_EachSendWithinJitterOfItsSlot) {
  StudyWorld w(2, testing::network(net::constant_latency(1), 0.0), 3, sec(0), sec(199.5));
  CollectingTrace trace;
  w.sim.set_trace(&trace);
  HeartbeatStudyConfig c = two_node_config(nfd_s_arm(410));
  c.send_jitter = Duration::ms(200);
  w.make(c);
  const auto m = w.run()["nfd_s"];
  std::vector<double> offsets;
  int64_t prev_slot = -1;
  for (const auto& r : trace.of_kind("send")) {
    if (r.fields["msg"] != "heartbeat") continue;
    const int64_t slot = std::llround(r.t.seconds());
    EXPECT_GT(slot, prev_slot);
    prev_slot = slot;
    offsets.push_back(r.t.seconds() - double(slot));
  }
  ASSERT_EQ(offsets.size(), 200u);
  double mean = 0, max_abs = 0;
  for (double o : offsets) {
    mean += o / offsets.size();
    max_abs = std::max(max_abs, std::fabs(o));
  }
  EXPECT_LE(max_abs, 0.2);
  EXPECT_GT(max_abs, 0.15);  // the jitter is really applied
  // Uniform(-0.2, 0.2) has sd 0.2/sqrt(3); 4 standard errors of the mean of 200.
  EXPECT_NEAR(mean, 0.0, 4 * 0.2 / std::sqrt(3.0) / std::sqrt(200.0));
  // NFD-S's freshness point follows the send stamp, so consecutive sends may be 400 ms further
  // apart than eta: delta = 410 ms covers that plus the 1 ms delay: no mistake.
  EXPECT_EQ(m["mistakes_count"], 0);
}

TEST(HeartbeatStudy, HeartbeatOverheadIsOnePerPairAndPeriodInTheWindow) {
  StudyWorld w(4, testing::network(net::constant_latency(1), 0.0), 1, sec(5), sec(105));
  HeartbeatStudyConfig c;
  c.pairs = testing::ring_pairs(4);
  c.heartbeat_period = Duration::ms(500);
  c.heartbeat_bytes = 100;
  c.arms = {nfd_s_arm(100)};
  w.make(c);
  const auto m = w.run()["nfd_s"];
  EXPECT_EQ(m["heartbeat_messages_count"], 4 * 200);
  EXPECT_DOUBLE_EQ(m["heartbeat_messages_per_pair_per_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(m["heartbeat_bytes_per_pair_per_s"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(m["observed_time_s"].get<double>(), 4 * 100.0);
}

// Crashes at random phases, exponential delays and losses: NFD-S detects every crash within
// delta + eta (Chen et al.'s T_D bound), and the bound is nearly reached.
TEST(NfdSStudy, DetectionTimeNeverExceedsDeltaPlusEta) {
  const size_t n = 40;
  StudyWorld w(n, testing::network(net::exponential_latency(0, 10), 0.01), 21, sec(1), sec(400));
  HeartbeatStudyConfig c;
  for (size_t i = 0; i < n; i += 2) c.pairs.push_back({NodeId(i), NodeId(i + 1)});
  c.arms = {nfd_s_arm(100)};
  w.make(c);
  Rng rng(stream_seed(99, 0, 0, "test.crashes"));
  for (size_t i = 0; i < n; i += 2)
    for (double base = 10; base < 390; base += 20) {
      const SimTime t = SimTime::from_ns(rng.uniform_int(0, 9'999'999'999)) + Duration::from_seconds(base);
      at(w, t, [&w, i] { w.hosts.crash(NodeId(i)); });
      at(w, t + Duration::s(5), [&w, i] { w.hosts.recover(NodeId(i)); });
    }
  const auto m = w.run()["nfd_s"];
  EXPECT_EQ(m["crashes_count"], 20 * 19);
  EXPECT_EQ(m["detection_undetected_count"], 0);
  EXPECT_EQ(m["detections_count"], 20 * 19);
  EXPECT_LE(m["detection_time_max_s"].get<double>(), 1.1);
  EXPECT_GT(m["detection_time_max_s"].get<double>(), 1.05);
  // Crash phases are uniform over the period: T_D = delta + eta - phase is uniform on
  // [delta, delta + eta] (when the last heartbeat got through in time).
  EXPECT_NEAR(m["detection_time_p50_s"].get<double>(), 0.6, 0.1);
}

// Without loss and with a constant delay below delta, T_D is exactly the next freshness point
// minus the crash instant: tau_(J+1) = (J+1) eta + delta with J the last slot before the crash.
TEST(NfdSStudy, DetectionTimeIsNextFreshnessPointMinusCrashInstant) {
  const size_t n = 10;
  StudyWorld w(n, testing::network(net::constant_latency(20), 0.0), 5, sec(0), sec(200));
  HeartbeatStudyConfig c;
  c.pairs = testing::ring_pairs(n);
  c.random_phase = false;
  c.arms = {nfd_s_arm(100)};
  HeartbeatStudy& s = w.make(c);
  Rng rng(stream_seed(98, 0, 0, "test.crashes"));
  std::vector<std::vector<SimTime>> crashes(n);
  for (size_t i = 0; i < n; i += 2)  // even senders crash; their odd monitors stay up
    for (double base = 10; base < 190; base += 20) {
      const SimTime t = SimTime::from_ns(rng.uniform_int(1, 9'999'999'999)) + Duration::from_seconds(base);
      crashes[i].push_back(t);
      at(w, t, [&w, i] { w.hosts.crash(NodeId(i)); });
      at(w, t + Duration::s(5), [&w, i] { w.hosts.recover(NodeId(i)); });
    }
  w.run();
  const int64_t eta = 1'000'000'000, delta = 100'000'000;
  for (size_t p = 0; p < s.pair_count(); ++p) {
    const NodeId sender = s.pair(p).sender;
    const auto& rec = s.recorder(p, 0);
    if (sender % 2 == 1) {  // watched by a crashing monitor
      EXPECT_EQ(rec.crashes(), 0u);
      EXPECT_EQ(rec.crashes_unobserved(), 0u);
      continue;
    }
    ASSERT_EQ(rec.detection_times().size(), crashes[sender].size()) << "sender " << sender;
    for (size_t k = 0; k < crashes[sender].size(); ++k) {
      const int64_t tc = crashes[sender][k].count_ns();
      const int64_t expected = (tc / eta + 1) * eta + delta - tc;
      EXPECT_EQ(rec.detection_times()[k].count_ns(), expected) << "sender " << sender << " crash " << k;
    }
    EXPECT_EQ(rec.mistakes(), 0u);
  }
}

// NFD-E with the sender's clock 3.7 s off equals NFD-S (synchronized) with delta = E(D) + alpha:
// with a constant delay the window mean is exactly E(D), so the suspicion intervals coincide.
TEST(NfdEStudy, EqualsNfdSWithDeltaMeanDelayPlusAlphaUnderClockOffset) {
  auto run = [](bool nfd_e) {
    StudyWorld w(20, testing::network(net::constant_latency(15), 0.05), 8, sec(10), sec(600));
    HeartbeatStudyConfig c;
    c.pairs = testing::ring_pairs(20);
    if (nfd_e) {
      c.clock_offset = Duration::ms(-3700);
      StudyArm a = testing::arm("x", DetectorKind::nfd_e);
      a.detector.nfd_e_alpha = Duration::ms(50);
      a.detector.nfd_e_window = 100;
      c.arms = {a};
    } else {
      StudyArm a = nfd_s_arm(15 + 50);
      a.name = "x";
      c.arms = {a};
    }
    w.make(c);
    return w.run()["x"];
  };
  const auto e = run(true), s = run(false);
  EXPECT_GT(e["mistakes_count"].get<int>(), 200);  // ~5% of the heartbeats are lost
  EXPECT_EQ(e, s);
}

// Detectors draw no randomness and arms do not interact: adding an arm changes nothing for the
// others, and a rerun gives the same fingerprint.
TEST(HeartbeatStudy, AddingAnArmDoesNotChangeAnotherArmsMetrics) {
  auto run = [](bool two_arms, uint64_t* fingerprint) {
    StudyWorld w(6, testing::network(net::exponential_latency(1, 30), 0.02), 4, sec(10), sec(300));
    HeartbeatStudyConfig c;
    c.pairs = testing::ring_pairs(6);
    c.send_jitter = Duration::ms(20);
    c.arms = {testing::arm("phi", DetectorKind::phi_accrual)};
    c.arms[0].detector.phi.acceptable_pause = Duration::ms(0);
    c.arms[0].detector.phi.threshold = 3;
    if (two_arms) c.arms.insert(c.arms.begin(), testing::arm("bertier", DetectorKind::bertier));
    w.make(c);
    at(w, sec(100), [&w] { w.hosts.crash(2); });
    at(w, sec(150), [&w] { w.hosts.recover(2); });
    auto m = w.run();
    *fingerprint = w.sim.fingerprint();
    return m;
  };
  uint64_t f1 = 0, f2 = 0, f3 = 0;
  const auto one = run(false, &f1);
  const auto two = run(true, &f2);
  const auto again = run(true, &f3);
  EXPECT_GT(one["phi"]["mistakes_count"].get<int>(), 0);
  EXPECT_EQ(one["phi"]["detections_count"], 1);
  EXPECT_EQ(one["phi"], two["phi"]);
  EXPECT_EQ(two, again);
  EXPECT_EQ(f2, f3);
}

// Chen's identity E(T_M) / E(T_MR) = 1 - P_A on a run's output, for every kind of detector
// (exact up to the factor mistakes / completed mistakes of the mistakes still open at the end).
TEST(HeartbeatStudy, ChenIdentityHoldsOnEveryArmOfARun) {
  StudyWorld w(8, testing::network(net::exponential_latency(0, 40), 0.05), 6, sec(20), sec(1000));
  HeartbeatStudyConfig c;
  c.pairs = testing::ring_pairs(8);
  c.send_jitter = Duration::ms(30);
  StudyArm fixed = testing::arm("fixed", DetectorKind::fixed);
  fixed.detector.timeout = Duration::ms(1100);
  StudyArm phi = testing::arm("phi", DetectorKind::phi_accrual);
  phi.detector.phi.acceptable_pause = Duration::zero();
  phi.detector.phi.threshold = 2;
  StudyArm quantile = testing::arm("quantile", DetectorKind::quantile);
  quantile.detector.quantile.alpha = 0.05;
  c.arms = {fixed, phi, quantile, testing::arm("bertier", DetectorKind::bertier),
            nfd_s_arm(50), testing::arm("nfd_e", DetectorKind::nfd_e)};
  c.arms[5].detector.nfd_e_alpha = Duration::ms(10);
  w.make(c);
  at(w, sec(500), [&w] { w.hosts.crash(3); });
  at(w, sec(600), [&w] { w.hosts.recover(3); });
  const auto all = w.run();
  ASSERT_EQ(all.size(), 6u);
  for (const auto& [name, m] : all.items()) {
    const double mistakes = m["mistakes_count"].get<double>();
    const double completed = m["mistakes_completed_count"].get<double>();
    ASSERT_GT(completed, 10) << name;
    const double lhs = m["mistake_duration_mean_s"].get<double>() /
                       m["mistake_recurrence_time_mean_s"].get<double>();
    const double rhs = 1 - m["query_accuracy_ratio"].get<double>();
    EXPECT_NEAR(lhs, rhs * mistakes / completed, 1e-12 * rhs) << name;
    EXPECT_NEAR(lhs, rhs, rhs * 8 / completed) << name;  // at most 8 open mistakes (pairs)
    EXPECT_EQ(m["crashes_count"], 1) << name;
    EXPECT_EQ(m["detections_count"], 1) << name;
  }
}

}  // namespace
}  // namespace fdsim::detectors
