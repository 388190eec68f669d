// NFD-S against Chen, Toueg and Aguilera's QoS formulas (docs/models/heartbeat-detectors.md, "Oracles and tests"): the formulas are
// evaluated numerically here, checked against the table of three rows, and the heartbeat study (real
// network: exponential delays, losses) is checked against them with tolerances from the number
// of mistakes observed.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sim/net/latency.h"
#include "study_world.h"

namespace fdsim::detectors {
namespace {

using testing::StudyWorld;

struct NfdSQos {
  double recurrence_s;  // E(T_MR)
  double duration_s;    // E(T_M)
  double accuracy;      // P_A
};

// P(D > y) for the delay distribution, with P(D > y) = 1 for y < 0.
using Tail = std::function<double(double)>;

double u_of(double x, double eta, double delta, double p_loss, const Tail& tail) {
  const int jmax = int(std::ceil(delta / eta));
  double u = 1.0;
  for (int j = 0; j <= jmax; ++j) {
    const double y = delta + x - j * eta;
    u *= p_loss + (1 - p_loss) * (y < 0 ? 1.0 : tail(y));
  }
  return u;
}

// Chen et al.'s NFD-S formulas; the integral of u over [0, eta) by composite Simpson on each
// piece between the points where some delta + x - j*eta crosses 0 (u jumps there).
NfdSQos nfd_s_formulas(double eta, double delta, double p_loss, const Tail& tail) {
  std::vector<double> cuts = {0.0};
  for (int j = 1; j <= int(std::ceil(delta / eta)); ++j) {
    const double c = j * eta - delta;
    if (c > 0 && c < eta) cuts.push_back(c);
  }
  cuts.push_back(eta);
  double integral = 0.0;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double a = cuts[k], b = cuts[k + 1];
    const int n = 20000;  // even
    const double h = (b - a) / n;
    // Evaluate just inside the piece so the jump at either end is not sampled.
    auto f = [&](double x) {
      const double eps = 1e-12 * eta;
      return u_of(std::clamp(x, a + eps, b - eps), eta, delta, p_loss, tail);
    };
    double s = f(a) + f(b);
    for (int i = 1; i < n; ++i) s += f(a + i * h) * (i % 2 ? 4 : 2);
    integral += s * h / 3;
  }
  const double q0 = (1 - p_loss) * (1 - tail(delta + eta));
  const double p_s = q0 * u_of(0.0, eta, delta, p_loss, tail);
  return {eta / p_s, integral / p_s, 1 - integral / eta};
}

Tail exponential_tail(double mean_s) {
  return [mean_s](double y) { return std::exp(-y / mean_s); };
}
Tail no_delay_tail() {
  return [](double y) { return y < 0 ? 1.0 : 0.0; };
}

struct Row {
  double eta_s, delta_s, p_loss, mean_delay_s;
  double recurrence_s, duration_s, accuracy;  // the published values
};
const Row kRows[] = {
    {1.0, 0.10, 0.01, 0.010, 100.558, 0.91603, 0.990891},
    {1.0, 0.01, 0.01, 0.010, 2.69936, 0.036726, 0.986394},
    {1.0, 0.10, 0.10, 0.010, 11.1066, 1.02070, 0.908100},
};

TEST(NfdSFormulas, ReproduceTheSpecTable) {
  for (const Row& r : kRows) {
    const NfdSQos q = nfd_s_formulas(r.eta_s, r.delta_s, r.p_loss, exponential_tail(r.mean_delay_s));
    // The table is printed to 6 significant digits.
    EXPECT_NEAR(q.recurrence_s / r.recurrence_s, 1.0, 1e-5) << "delta " << r.delta_s;
    EXPECT_NEAR(q.duration_s / r.duration_s, 1.0, 1e-5) << "delta " << r.delta_s;
    EXPECT_NEAR(q.accuracy, r.accuracy, 1e-6) << "delta " << r.delta_s;
  }
}

TEST(NfdSFormulas, NoDelayClosedForm) {
  const double eta = 1.0, delta = 0.1, pl = 0.01;
  const NfdSQos q = nfd_s_formulas(eta, delta, pl, no_delay_tail());
  EXPECT_NEAR(q.recurrence_s, eta / ((1 - pl) * pl), 1e-9);
  EXPECT_NEAR(q.duration_s, (eta - delta + delta * pl) / (1 - pl), 1e-9);
  EXPECT_NEAR(q.accuracy, 1 - (pl * (eta - delta) + pl * pl * delta) / eta, 1e-12);
  EXPECT_NEAR(q.recurrence_s, 101.0101, 1e-4);
  EXPECT_NEAR(q.duration_s, 0.910101, 1e-6);
  EXPECT_NEAR(q.accuracy, 0.990990, 1e-6);
}

// Runs NFD-S in the heartbeat study on a ring of `nodes` pairs and returns the arm's metrics.
nlohmann::json simulate_nfd_s(double delta_s, double p_loss,
                              std::shared_ptr<const net::LatencyModel> latency, size_t nodes,
                              double horizon_s, uint64_t seed) {
  StudyWorld w(nodes, testing::network(std::move(latency), p_loss), seed, SimTime::from_seconds(5),
               SimTime::from_seconds(horizon_s));
  HeartbeatStudyConfig c;
  c.pairs = testing::ring_pairs(nodes);
  StudyArm a = testing::arm("nfd_s", DetectorKind::nfd_s);
  a.detector.delta = Duration::from_seconds(delta_s);
  c.arms = {a};
  w.make(c);
  return w.run()["nfd_s"];
}

// Compares simulated QoS with the formulas. Mistake counts are nearly Poisson, so E(T_MR) has a
// relative standard error of about 1/sqrt(m); E(T_M) one of sd(T_M)/(mean sqrt(m)); and
// 1 - P_A (a product of the two rates) about sqrt(1 + cv^2)/sqrt(m). Allow 4 standard errors.
void expect_matches(const nlohmann::json& m, const NfdSQos& oracle) {
  const double mistakes = m["mistakes_count"].get<double>();
  const double completed = m["mistakes_completed_count"].get<double>();
  ASSERT_GT(completed, 1000) << m.dump();
  const double rse = 1.0 / std::sqrt(mistakes);
  const double cv = m["mistake_duration_sd_s"].get<double>() /
                    m["mistake_duration_sample_mean_s"].get<double>();
  EXPECT_NEAR(m["mistake_recurrence_time_mean_s"].get<double>() / oracle.recurrence_s, 1.0,
              4 * rse);
  EXPECT_NEAR(m["mistake_duration_mean_s"].get<double>() / oracle.duration_s, 1.0,
              4 * cv / std::sqrt(completed));
  EXPECT_NEAR((1 - m["query_accuracy_ratio"].get<double>()) / (1 - oracle.accuracy), 1.0,
              4 * std::sqrt(1 + cv * cv) * rse);
  // Chen's E(T_M)/E(T_MR) = 1 - P_A, exactly up to the mistakes still open at the end.
  EXPECT_NEAR(m["mistake_duration_mean_s"].get<double>() /
                  m["mistake_recurrence_time_mean_s"].get<double>(),
              (1 - m["query_accuracy_ratio"].get<double>()) * mistakes / completed, 1e-12);
  EXPECT_LE(mistakes - completed, m["pairs_count"].get<double>());
}

// Sizes: ~6000 mistakes for row 1 (one per ~100 s per pair: 1.3% standard error); row 2's
// durations vary much more (cv ~4.4: mostly a few ms, sometimes a lost heartbeat's ~1 s), so it
// runs to ~70000 mistakes.
TEST(NfdSStudy, Row1_Delta100ms_Loss1pct_MatchesChenFormulas) {
  const Row& r = kRows[0];
  const auto m = simulate_nfd_s(r.delta_s, r.p_loss, net::exponential_latency(0, 1e3 * r.mean_delay_s),
                                150, 4005, 11);
  expect_matches(m, nfd_s_formulas(r.eta_s, r.delta_s, r.p_loss, exponential_tail(r.mean_delay_s)));
}

TEST(NfdSStudy, Row2_Delta10ms_Loss1pct_MatchesChenFormulas) {
  const Row& r = kRows[1];
  const auto m = simulate_nfd_s(r.delta_s, r.p_loss, net::exponential_latency(0, 1e3 * r.mean_delay_s),
                                100, 2005, 12);
  expect_matches(m, nfd_s_formulas(r.eta_s, r.delta_s, r.p_loss, exponential_tail(r.mean_delay_s)));
}

TEST(NfdSStudy, Row3_Delta100ms_Loss10pct_MatchesChenFormulas) {
  const Row& r = kRows[2];
  const auto m = simulate_nfd_s(r.delta_s, r.p_loss, net::exponential_latency(0, 1e3 * r.mean_delay_s),
                                100, 1005, 13);
  expect_matches(m, nfd_s_formulas(r.eta_s, r.delta_s, r.p_loss, exponential_tail(r.mean_delay_s)));
}

TEST(NfdSStudy, NoDelay_MatchesClosedForm) {
  const auto m = simulate_nfd_s(0.1, 0.01, net::constant_latency(0), 150, 4005, 14);
  expect_matches(m, NfdSQos{101.0101, 0.910101, 0.990990});
  // Without delay every mistake lasts eta - delta plus whole periods of further losses.
  EXPECT_NEAR(std::fmod(m["mistake_duration_max_s"].get<double>() - 0.9 + 1e-9, 1.0), 0.0, 1e-6);
}

}  // namespace
}  // namespace fdsim::detectors
