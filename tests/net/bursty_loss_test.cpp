// Gilbert–Elliott bursty loss (sim/net/bursty_loss.h) through the network: the loss sequence
// of one link against the chain's stationary loss rate, mean run length of consecutive losses
// and lag-1 correlation (formulas in bursty_loss.h), within a few standard errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::NetWorld;

struct LossStats {
  double rate = 0, mean_run = 0, lag1 = 0;
  size_t n = 0;
};

LossStats stats(const std::vector<bool>& lost) {
  LossStats s;
  s.n = lost.size();
  size_t losses = 0, runs = 0, pairs = 0;
  for (size_t i = 0; i < lost.size(); ++i) {
    if (!lost[i]) continue;
    ++losses;
    if (i == 0 || !lost[i - 1]) ++runs;
    if (i + 1 < lost.size() && lost[i + 1]) ++pairs;
  }
  s.rate = double(losses) / double(s.n);
  s.mean_run = double(losses) / double(runs);
  const double p11 = double(pairs) / double(s.n - 1);
  s.lag1 = (p11 - s.rate * s.rate) / (s.rate * (1 - s.rate));
  return s;
}

// Sends `count` datagrams on each link of `links` in turn (one round every ms) and returns the
// loss sequence of each link, in send order.
std::vector<std::vector<bool>> run(const NetworkConfig& cfg, size_t nodes,
                                   const std::vector<std::pair<NodeId, NodeId>>& links,
                                   size_t count, uint64_t seed = 11) {
  NetWorld w(nodes, cfg, seed);
  const MsgType t = w.net.type("hb");
  std::vector<std::vector<bool>> got(links.size(), std::vector<bool>(count, false));
  for (size_t k = 0; k < count; ++k)
    w.at_ms(double(k), [&, k] {
      for (size_t l = 0; l < links.size(); ++l)
        w.net.send_unreliable(links[l].first, links[l].second, t, 8, [&got, l, k] { got[l][k] = true; });
    });
  w.sim.run();
  for (auto& v : got) v.flip();  // delivered -> lost
  return got;
}

GilbertElliott chain() {
  GilbertElliott g;
  g.p_good_to_bad = 0.02;
  g.p_bad_to_good = 0.25;
  g.loss_good = 0.01;
  g.loss_bad = 0.8;
  return g;
}

// Standard error of a mean of a stationary 0/1 sequence whose correlation decays as
// lambda^k (the chain's second eigenvalue), the variance inflated by (1 + lambda)/(1 - lambda).
double se(double p, double lambda, size_t n) {
  return std::sqrt(p * (1 - p) / double(n) * (1 + lambda) / (1 - lambda));
}

TEST(GilbertElliott, FormulasOfTheGilbertModel) {
  GilbertElliott g;  // h_G = 0, h_B = 1: the runs of losses are the bad sojourns
  g.p_good_to_bad = 0.1;
  g.p_bad_to_good = 0.4;
  EXPECT_DOUBLE_EQ(g.stationary_loss(), 0.2);
  EXPECT_NEAR(g.mean_loss_run_packets(), 1 / 0.4, 1e-12);
  EXPECT_NEAR(g.lag1_correlation(), 1 - 0.1 - 0.4, 1e-12);
}

TEST(GilbertElliott, OneLinkMatchesStationaryRateRunLengthAndLag1) {
  NetworkConfig cfg = testing_support::constant_net(1);
  cfg.loss_model = chain();
  const size_t n = 400000;
  const LossStats s = stats(run(cfg, 2, {{0, 1}}, n)[0]);
  const GilbertElliott g = chain();
  const double lambda = 1 - g.p_good_to_bad - g.p_bad_to_good;
  const double p = g.stationary_loss();
  EXPECT_NEAR(s.rate, p, 4 * se(p, lambda, n)) << "stationary loss " << p;
  // Run length: runs are about n p / L, each with a spread of about L; 4 standard errors.
  const double L = g.mean_loss_run_packets();
  EXPECT_NEAR(s.mean_run, L, 4 * L / std::sqrt(n * p / L)) << "mean run " << L;
  EXPECT_NEAR(s.lag1, g.lag1_correlation(), 4 / std::sqrt(double(n)) * 3)
      << "lag-1 " << g.lag1_correlation();
  // A Bernoulli loss of the same rate would give runs of 1/(1-p) = 1.07 and no correlation:
  // the figures above are far from those.
  EXPECT_GT(s.mean_run, 1.5 / (1 - p));
  EXPECT_GT(s.lag1, 0.2);
}

TEST(GilbertElliott, LinksHaveIndependentChainsUnlessTheGroupSharesOne) {
  NetworkConfig cfg = testing_support::constant_net(1);
  cfg.loss_model = chain();
  const size_t n = 100000;
  auto seqs = run(cfg, 3, {{0, 1}, {2, 1}}, n);
  // Cross-correlation of two independent chains is about 0.
  auto cross = [&](const std::vector<bool>& a, const std::vector<bool>& b) {
    double pa = 0, pb = 0, pab = 0;
    for (size_t i = 0; i < n; ++i) {
      pa += a[i];
      pb += b[i];
      pab += a[i] && b[i];
    }
    pa /= double(n), pb /= double(n), pab /= double(n);
    return (pab - pa * pb) / std::sqrt(pa * (1 - pa) * pb * (1 - pb));
  };
  EXPECT_NEAR(cross(seqs[0], seqs[1]), 0, 0.03);
  // One shared chain (scope "group") steps at every packet of either link: interleaved, the
  // two links' losses form one Gilbert–Elliott sequence, so the same-round losses correlate.
  cfg.loss_model->shared = true;
  seqs = run(cfg, 3, {{0, 1}, {2, 1}}, n);
  std::vector<bool> merged;
  for (size_t i = 0; i < n; ++i) {
    merged.push_back(seqs[0][i]);
    merged.push_back(seqs[1][i]);
  }
  const LossStats s = stats(merged);
  const GilbertElliott g = chain();
  EXPECT_NEAR(s.rate, g.stationary_loss(), 4 * se(g.stationary_loss(), 0.73, 2 * n));
  EXPECT_NEAR(s.lag1, g.lag1_correlation(), 0.03);
  EXPECT_GT(cross(seqs[0], seqs[1]), 0.2);
}

TEST(GilbertElliott, OverrideAppliesToItsLinksOnlyAndLinkLossIsStationary) {
  NetworkConfig cfg = testing_support::constant_net(1);
  LinkOverride o;
  o.from = {0};
  o.loss_model = chain();
  cfg.overrides.push_back(o);
  NetWorld w(3, cfg);
  EXPECT_NEAR(w.net.link_loss(0, 1), chain().stationary_loss(), 1e-15);
  EXPECT_EQ(w.net.link_loss(1, 0), 0.0);
  const auto seqs = run(cfg, 3, {{0, 1}, {1, 2}}, 20000);
  size_t lost01 = 0, lost12 = 0;
  for (bool b : seqs[0]) lost01 += b;
  for (bool b : seqs[1]) lost12 += b;
  EXPECT_GT(lost01, 800u);
  EXPECT_EQ(lost12, 0u);
}

TEST(GilbertElliott, DeterministicForASeed) {
  NetworkConfig cfg = testing_support::constant_net(1);
  cfg.loss_model = chain();
  EXPECT_EQ(run(cfg, 2, {{0, 1}}, 5000, 3), run(cfg, 2, {{0, 1}}, 5000, 3));
  EXPECT_NE(run(cfg, 2, {{0, 1}}, 5000, 3), run(cfg, 2, {{0, 1}}, 5000, 4));
}

}  // namespace
}  // namespace fdsim::net
