// Unit tests of the pure detectors: each fed a hand-made arrival sequence, checked against the
// oracles of docs/models/heartbeat-detectors.md or an independent computation.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <numeric>

#include "models/detectors/bertier_detector.h"
#include "models/detectors/exponential_accrual_detector.h"
#include "models/detectors/fixed_detector.h"
#include "models/detectors/nfd_e_detector.h"
#include "models/detectors/nfd_s_detector.h"
#include "models/detectors/phi_accrual_detector.h"
#include "models/detectors/quantile_detector.h"
#include "models/detectors/sample_window.h"
#include "sim/engine/rng.h"

namespace fdsim::detectors {
namespace {

SimTime at_ms(double ms) { return SimTime::from_ns(std::llround(ms * 1e6)); }
double ms_between(SimTime a, SimTime b) { return (b - a).millis(); }

TEST(SampleWindow, MeanAndPopulationVarianceStayExactAcrossEvictions) {
  SampleWindow w(3);
  std::deque<int64_t> ref;
  const int64_t values[] = {5, -7, 1000000000007, 42, 42, 9, -3, 1000000000000};
  for (int64_t v : values) {
    w.add(v);
    ref.push_back(v);
    if (ref.size() > 3) ref.pop_front();
    long double mean = 0;
    for (int64_t x : ref) mean += x;
    mean /= ref.size();
    long double var = 0;
    for (int64_t x : ref) var += (x - mean) * (x - mean);
    var /= ref.size();
    EXPECT_EQ(w.size(), ref.size());
    EXPECT_EQ(w.sum(), std::accumulate(ref.begin(), ref.end(), int64_t(0)));
    EXPECT_DOUBLE_EQ(w.mean(), double(mean));
    EXPECT_NEAR(w.variance(), double(var), 1e-9 * double(var) + 1e-9);
  }
  SampleWindow r(2);
  r.add(3);
  r.add(4);  // mean 3.5 rounds away from zero
  EXPECT_EQ(r.mean_rounded(), 4);
  r.add(-4);
  r.add(-3);  // mean -3.5
  EXPECT_EQ(r.mean_rounded(), -4);
}

TEST(FixedDetector, SuspectsExactlyTimeoutAfterTheLatestArrival) {
  FixedDetector d(Duration::ms(2500));
  EXPECT_EQ(d.suspect_at(), SimTime::max());
  EXPECT_FALSE(d.suspects(at_ms(1e9)));
  d.on_heartbeat(0, at_ms(0), at_ms(10));
  EXPECT_EQ(d.suspect_at(), at_ms(2510));
  // Any arrival counts, even a stale sequence number.
  d.on_heartbeat(5, at_ms(5000), at_ms(5003));
  d.on_heartbeat(3, at_ms(3000), at_ms(5004));
  EXPECT_EQ(d.suspect_at(), at_ms(7504));
  EXPECT_FALSE(d.suspects(at_ms(7504) - Duration::ns(1)));
  EXPECT_TRUE(d.suspects(at_ms(7504)));
}

TEST(NfdSDetector, FreshnessPointIsLastSendStampPlusPeriodPlusDelta) {
  NfdSDetector d(Duration::ms(1000), Duration::ms(100));
  EXPECT_EQ(d.suspect_at(), SimTime::max());
  d.on_heartbeat(7, at_ms(7000), at_ms(7020));
  EXPECT_EQ(d.suspect_at(), at_ms(8100));  // tau_8 = 8*eta + delta
  // m_9 overtakes m_8: trusted until tau_10; the late m_8 changes nothing.
  d.on_heartbeat(9, at_ms(9000), at_ms(9005));
  EXPECT_EQ(d.suspect_at(), at_ms(10100));
  d.on_heartbeat(8, at_ms(8000), at_ms(9050));
  EXPECT_EQ(d.suspect_at(), at_ms(10100));
}

// NFD-E under a constant clock offset equals NFD-S (synchronized stamps) with
// delta = E(D) + alpha, up to the window mean of the delays replacing E(D): checked exactly
// heartbeat by heartbeat on exponential delays with losses.
TEST(NfdEDetector, EqualsNfdSWithDeltaMeanDelayPlusAlphaUnderClockOffset) {
  const Duration eta = Duration::ms(1000), alpha = Duration::ms(50);
  const double mean_delay_ms = 20.0;
  const size_t window = 100;
  NfdEDetector e(eta, alpha, window);
  NfdSDetector s(eta, Duration::from_ms(mean_delay_ms) + alpha);
  NfdSDetector s_offset(eta, Duration::from_ms(mean_delay_ms) + alpha);
  const Duration offset = Duration::ms(-3700);  // the sender's clock is 3.7 s behind
  const SimTime phase = at_ms(123.456789);
  Rng rng(stream_seed(1, 0, 0, "test.nfde"));
  std::deque<int64_t> delays;  // of the heartbeats in NFD-E's window, in arrival order
  int checked = 0;
  double max_dev_ms = 0.0;
  for (uint64_t i = 0; i < 3000; ++i) {
    if (rng.bernoulli(0.05)) continue;  // lost
    const SimTime sent = phase + eta * int64_t(i);
    const Duration d = Duration::from_ms(rng.exponential(1.0 / mean_delay_ms));
    // Deliver in send order (reordering is covered by the NFD-S test).
    e.on_heartbeat(i, sent + offset, sent + d);
    s.on_heartbeat(i, sent, sent + d);
    s_offset.on_heartbeat(i, sent + offset, sent + d);
    delays.push_back(d.count_ns());
    if (delays.size() > window) delays.pop_front();
    int64_t sum = 0;
    for (int64_t x : delays) sum += x;
    const double mean_delay_ns = double(sum) / double(delays.size());
    const double predicted_ns = double(s.suspect_at().count_ns()) + mean_delay_ns -
                                Duration::from_ms(mean_delay_ms).count_ns();
    ASSERT_NEAR(double(e.suspect_at().count_ns()), predicted_ns, 1.0) << "heartbeat " << i;
    EXPECT_EQ(s_offset.suspect_at(), s.suspect_at() + offset);  // NFD-S is fooled by the offset
    if (delays.size() == window) {
      ++checked;
      max_dev_ms = std::max(max_dev_ms, std::fabs(mean_delay_ns * 1e-6 - mean_delay_ms));
    }
  }
  EXPECT_GT(checked, 2500);
  // The window mean of 100 exponential delays has sd E(D)/10 = 2 ms; over ~2800 overlapping
  // windows the largest deviation stays within about 5 sd.
  EXPECT_LT(max_dev_ms, 5 * mean_delay_ms / std::sqrt(double(window)));
}

// Akka's phi solved independently: phi >= thr <=> y (1.5976 + 0.070566 y^2) >= ln(10^thr - 1).
double phi_y_star(double threshold) {
  const double target = std::log(std::pow(10.0, threshold) - 1.0);
  double y = 3.0;
  for (int i = 0; i < 100; ++i) {
    const double f = y * (1.5976 + 0.070566 * y * y) - target;
    const double df = 1.5976 + 3 * 0.070566 * y * y;
    y -= f / df;
  }
  return y;
}

TEST(PhiAccrualDetector, SteadyOneSecondHeartbeatsSuspectAfter4522_6ms) {
  PhiAccrualDetector d(Duration::ms(1000), PhiAccrualParams{});
  SimTime last;
  for (int i = 0; i < 30; ++i) {
    last = at_ms(1000.0 * i);
    d.on_heartbeat(i, last, last);
  }
  // Mean stays 1000 ms (bootstrap 750 + 1250), sd < 100 ms -> min sd; m = 4000 ms.
  EXPECT_NEAR(ms_between(last, d.suspect_at()), 4522.6, 0.05);
  EXPECT_NEAR(ms_between(last, d.suspect_at()), 4000 + 100 * phi_y_star(8.0), 1e-6);
  // suspect_at() is the first nanosecond with phi >= 8.
  EXPECT_GE(d.phi(d.suspect_at() - last), 8.0);
  EXPECT_LT(d.phi(d.suspect_at() - last - Duration::ns(1)), 8.0);
}

TEST(PhiAccrualDetector, BootstrapHistoryIsPeriodPlusMinusAQuarter) {
  PhiAccrualDetector d(Duration::ms(1000), PhiAccrualParams{});
  EXPECT_EQ(d.suspect_at(), SimTime::max());
  d.on_heartbeat(0, at_ms(500), at_ms(500));
  EXPECT_EQ(d.history_size(), 2u);
  // {750, 1250}: mean 1000, population sd 250 -> 4000 + 250 y*.
  EXPECT_NEAR(ms_between(at_ms(500), d.suspect_at()), 4000 + 250 * phi_y_star(8.0), 1e-6);
  EXPECT_NEAR(ms_between(at_ms(500), d.suspect_at()), 5306.5, 0.05);
}

TEST(PhiAccrualDetector, IntervalNotAddedWhenHeartbeatComesWhileSuspected) {
  PhiAccrualDetector d(Duration::ms(1000), PhiAccrualParams{});
  for (int i = 0; i < 20; ++i) d.on_heartbeat(i, at_ms(1000.0 * i), at_ms(1000.0 * i));
  const size_t n = d.history_size();
  const Duration timeout = d.suspect_at() - at_ms(19000);
  // Arrives 10 s after the last one: already suspected, so the 10 s gap is not learnt.
  d.on_heartbeat(20, at_ms(29000), at_ms(29000));
  EXPECT_EQ(d.history_size(), n);
  EXPECT_EQ(d.suspect_at() - at_ms(29000), timeout);
  // Arrives 4 s later: phi < 8 then, so the 4 s interval is learnt and the timeout grows.
  d.on_heartbeat(21, at_ms(33000), at_ms(33000));
  EXPECT_EQ(d.history_size(), n + 1);
  EXPECT_GT(d.suspect_at() - at_ms(33000), timeout);
}

TEST(ExponentialAccrualDetector, SuspectsAfter18_42MeanIntervals) {
  ExponentialAccrualDetector d(ExponentialAccrualParams{});
  // The first heartbeat puts Cassandra's initial 2 s interval in the window.
  d.on_heartbeat(0, at_ms(0), at_ms(0));
  EXPECT_EQ(d.suspect_at() - at_ms(0), Duration::ns(int64_t(std::floor(8 * std::log(10.0) * 2e9)) + 1));
  SimTime last;
  for (int i = 1; i <= 1000; ++i) {
    last = at_ms(1000.0 * i);
    d.on_heartbeat(i, last, last);
  }
  // 1000 intervals of 1 s: the initial value has left the window.
  EXPECT_DOUBLE_EQ(d.mean_interval_ms(), 1000.0);
  EXPECT_NEAR(ms_between(last, d.suspect_at()), 18420.68, 0.005);
  EXPECT_EQ((d.suspect_at() - last).count_ns(), 18420680744);  // first ns with phi > 8
}

TEST(ExponentialAccrualDetector, IntervalsAboveTheCapAreIgnored) {
  ExponentialAccrualParams p;
  p.window = 10;
  ExponentialAccrualDetector d(p);
  d.on_heartbeat(0, at_ms(0), at_ms(0));
  d.on_heartbeat(1, at_ms(1000), at_ms(1000));
  EXPECT_EQ(d.history_size(), 2u);
  EXPECT_DOUBLE_EQ(d.mean_interval_ms(), 1500.0);
  d.on_heartbeat(2, at_ms(3000.000001), at_ms(3000.000001));  // 2000.000001 ms > cap
  EXPECT_EQ(d.history_size(), 2u);
  d.on_heartbeat(3, at_ms(5000.000001), at_ms(5000.000001));  // exactly 2000 ms: kept
  EXPECT_EQ(d.history_size(), 3u);
  EXPECT_NEAR(d.mean_interval_ms(), 5000.0 / 3, 1e-9);
}

// Bertier's margin against a hand-computed sequence (eta = 1 s, window 100, beta 1, phi 4,
// gamma 0.1). Offsets A_k - eta*s_k: 1010, 1030, 1000, 1050 ms.
//   k=1: EA = 2010, error = 20 -> delay 2, var 2, margin 10; EA_2 = 1020 + 2000
//   k=2: EA = 3020, error = -20 - 2 = -22 -> delay -0.2, var 4, margin 15.8; EA_3 = 3013.333..
//   k=3: EA = 4013.333.., error = 36.666.. + 0.2 = 36.866.. -> delay 3.48666.., var 7.28666..,
//        margin 32.6333..; EA_4 = 1022.5 + 4000
TEST(BertierDetector, MarginFollowsHandComputedJacobsonSequence) {
  BertierDetector d(Duration::ms(1000), BertierParams{});
  d.on_heartbeat(0, at_ms(0), at_ms(1010));
  EXPECT_EQ(d.suspect_at(), at_ms(2010));
  EXPECT_EQ(d.margin_ns(), 0.0);
  d.on_heartbeat(1, at_ms(1000), at_ms(2030));
  EXPECT_NEAR(d.delay_ns(), 2e6, 1e-6);
  EXPECT_NEAR(d.var_ns(), 2e6, 1e-6);
  EXPECT_EQ(d.suspect_at(), at_ms(3030));
  d.on_heartbeat(2, at_ms(2000), at_ms(3000));
  EXPECT_NEAR(d.delay_ns(), -0.2e6, 1e-6);
  EXPECT_NEAR(d.var_ns(), 4e6, 1e-6);
  EXPECT_NEAR(double(d.suspect_at().count_ns()), 4029133333.33, 1.0);
  d.on_heartbeat(3, at_ms(3000), at_ms(4050));
  EXPECT_NEAR(d.delay_ns(), 3486666.6667, 1e-3);
  EXPECT_NEAR(d.var_ns(), 7286666.6667, 1e-3);
  EXPECT_NEAR(d.margin_ns(), 32633333.333, 1e-2);
  EXPECT_NEAR(double(d.suspect_at().count_ns()), 5055133333.33, 1.0);
}

TEST(QuantileDetector, TimeoutIsExactQuantileOfPeriodPlusExponentialExcess) {
  QuantileParams p;
  p.alpha = 0.05;
  p.prior_shape = 2.0;
  p.prior_excess = Duration::ms(100);  // b0 = 0.2 s
  p.delay_allowance = Duration::ms(7);
  QuantileDetector d(Duration::ms(1000), p);
  d.on_heartbeat(0, at_ms(0), at_ms(0));
  // Prior only: r^ = 2 / 0.2 = 10 per s -> q = 1 s + ln 20 / 10.
  EXPECT_EQ(d.suspect_at(), at_ms(0) + Duration::ms(1000) +
                                Duration::from_seconds(std::log(20.0) / 10.0) + Duration::ms(7));
  d.on_heartbeat(1, at_ms(1000), at_ms(1030));  // excess 30 ms
  d.on_heartbeat(2, at_ms(2000), at_ms(2020));  // early relative to the previous: excess 0
  d.on_heartbeat(3, at_ms(3000), at_ms(3090));  // excess 70 ms
  EXPECT_DOUBLE_EQ(d.posterior_shape(), 5.0);
  EXPECT_NEAR(d.posterior_rate_s(), 0.3, 1e-12);
  EXPECT_EQ(d.suspect_at(), at_ms(3090) + Duration::ms(1000) +
                                Duration::from_seconds(std::log(20.0) * 0.3 / 5.0) +
                                Duration::ms(7));
}

TEST(QuantileDetector, ForgettingFactorDiscountsOldEvidencePerHeartbeat) {
  QuantileParams p;
  p.prior_shape = 1.0;
  p.prior_excess = Duration::ms(100);
  p.forgetting_per_heartbeat = 0.5;
  QuantileDetector d(Duration::ms(1000), p);
  d.on_heartbeat(0, at_ms(0), at_ms(0));
  d.on_heartbeat(1, at_ms(1000), at_ms(1040));  // a = 0.5 + 1, b = 0.05 + 0.04
  EXPECT_DOUBLE_EQ(d.posterior_shape(), 1.5);
  EXPECT_NEAR(d.posterior_rate_s(), 0.09, 1e-12);
  d.on_heartbeat(2, at_ms(2000), at_ms(2040));  // a = 0.75 + 1, b = 0.045 + 0
  EXPECT_DOUBLE_EQ(d.posterior_shape(), 1.75);
  EXPECT_NEAR(d.posterior_rate_s(), 0.045, 1e-12);
}

// Calibration: when the inter-arrivals really are eta + Exp(r), the timeout is exceeded by a
// fraction alpha of the intervals (binomial tolerance, 4 sd).
TEST(QuantileDetector, FalseSuspicionFrequencyIsAlphaWhenTheModelHolds) {
  QuantileParams p;
  p.alpha = 0.05;
  QuantileDetector d(Duration::ms(1000), p);
  Rng rng(stream_seed(7, 0, 0, "test.quantile"));
  const double mean_excess_s = 0.05;
  SimTime t = at_ms(0);
  d.on_heartbeat(0, t, t);
  const int warm = 2000, n = 20000;
  int exceeded = 0;
  for (int i = 1; i <= warm + n; ++i) {
    t = t + Duration::ms(1000) + Duration::from_seconds(rng.exponential(1.0 / mean_excess_s));
    if (i > warm && d.suspects(t)) ++exceeded;
    d.on_heartbeat(i, t, t);
  }
  const double freq = double(exceeded) / n;
  const double sd = std::sqrt(p.alpha * (1 - p.alpha) / n);
  EXPECT_NEAR(freq, p.alpha, 4 * sd);
}

}  // namespace
}  // namespace fdsim::detectors
