// NetworkConfig::compact_streams: the per-node "net.latency" and "net.loss" streams keep their
// keys but use CompactRng; the default keeps Rng (mt19937_64), so existing results reproduce.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::NetWorld;

NetworkConfig exp_net(bool compact) {
  NetworkConfig c;
  c.latency = exponential_latency(0.25, 0.5);
  c.loss = 0.01;
  c.compact_streams = compact;
  return c;
}

// Latency draws of src -> dst through the network, in order.
std::vector<int64_t> network_draws(bool compact, NodeId src, int n) {
  NetWorld w(4, exp_net(compact), 7);
  std::vector<int64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(w.net.draw_latency(src, (src + 1) % 4).count_ns());
  return v;
}

template <class R>
std::vector<int64_t> direct_draws(R rng, int n) {
  const auto model = exponential_latency(0.25, 0.5);
  std::vector<int64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(model->draw(rng).count_ns());
  return v;
}

TEST(CompactStreams, LatencyDrawsAreTheKeyedCompactStream) {
  const RngFactory f(7, 0);
  EXPECT_EQ(network_draws(true, 2, 50), direct_draws(f.compact_stream(2, "net.latency"), 50));
}

TEST(CompactStreams, DefaultKeepsTheMersenneTwisterStream) {
  const RngFactory f(7, 0);
  EXPECT_EQ(network_draws(false, 2, 50), direct_draws(f.stream(2, "net.latency"), 50));
  EXPECT_NE(network_draws(false, 2, 50), network_draws(true, 2, 50));
}

TEST(CompactStreams, RunsAreDeterministicAndLoseAboutOnePercent) {
  auto run = [](bool compact) {
    NetWorld w(100, exp_net(compact), 3);
    const MsgType t = w.net.type("ping");
    int delivered = 0;
    for (int k = 0; k < 100; ++k)
      w.at_ms(k, [&w, t, &delivered] {
        for (NodeId i = 0; i < 100; ++i) w.net.send_unreliable(i, (i + 1) % 100, t, 8, [&] { ++delivered; });
      });
    w.sim.run();
    EXPECT_EQ(w.net.streams_created(), 200u);
    return std::make_pair(w.sim.fingerprint(), delivered);
  };
  const auto a = run(true), b = run(true);
  EXPECT_EQ(a, b);
  EXPECT_NEAR(a.second, 9900, 5 * std::sqrt(10000 * 0.01 * 0.99));
  EXPECT_NE(a.first, run(false).first);  // the engine is part of the stream
}

}  // namespace
}  // namespace fdsim::net
