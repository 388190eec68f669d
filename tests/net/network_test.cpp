// Network transports, partitions, overrides, loss bursts, delay spikes, counters, streams.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "tests/support/internal_error.h"
#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::constant_net;
using testing_support::NetWorld;
using testing_support::RecordingSink;

TEST(Network, Unreliable_ArrivesAfterExactlyTheConstantLatencyAndDrawsNothing) {
  NetWorld w(2, constant_net(2.5));
  const MsgType hb = w.net.type("heartbeat");
  double arrived_ms = -1;
  w.at_ms(1, [&] { w.net.send_unreliable(0, 1, hb, 64, [&] { arrived_ms = w.now_ms(); }); });
  w.sim.run();
  EXPECT_DOUBLE_EQ(arrived_ms, 3.5);
  const TypeCount& c = w.net.type_counts()[hb];
  EXPECT_EQ(c.name, "heartbeat");
  EXPECT_EQ(c.sent, 1u);
  EXPECT_EQ(c.bytes, 64u);
  EXPECT_EQ(c.delivered, 1u);
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(w.net.streams_created(), 0u);
}

TEST(Network, TypesAreRegisteredOnceByName) {
  NetWorld w(2, constant_net(1));
  const MsgType a = w.net.type("a"), b = w.net.type("b");
  EXPECT_NE(a, b);
  EXPECT_EQ(w.net.type("a"), a);
  EXPECT_EQ(w.net.type_counts().size(), 2u);
}

TEST(Network, Unreliable_LossRateIsTheLinkProbabilityWithinBinomialError) {
  const double p = 0.2;
  const int n = 20000;
  NetWorld w(2, constant_net(1, p));
  const MsgType t = w.net.type("d");
  int delivered = 0;
  w.at_ms(0, [&] {
    for (int i = 0; i < n; ++i) w.net.send_unreliable(0, 1, t, 10, [&] { ++delivered; });
  });
  w.sim.run();
  const TypeCount& c = w.net.type_counts()[t];
  EXPECT_EQ(c.sent, uint64_t(n));
  EXPECT_EQ(c.delivered + c.dropped, uint64_t(n));
  EXPECT_EQ(c.delivered, uint64_t(delivered));
  EXPECT_NEAR(double(c.dropped) / n, p, 4.5 * std::sqrt(p * (1 - p) / n));
  EXPECT_EQ(w.net.streams_created(), 1u);  // only node 0's loss stream
}

TEST(Network, Reliable_UnderThirtyPercentLoss_EveryMessageExactlyOnceAfterGeometricAttempts) {
  const double p = 0.3;
  const int n = 5000;
  NetworkConfig cfg = constant_net(1, p);
  cfg.retransmit_interval = Duration::ms(100);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("suspect");
  std::vector<int> deliveries(n, 0);
  std::vector<double> delay_ms(n, -1);
  w.at_ms(0, [&] {
    for (int i = 0; i < n; ++i)
      w.net.send_reliable(0, 1, t, 100, [&, i] {
        ++deliveries[i];
        delay_ms[i] = w.now_ms();
      });
  });
  w.sim.run();
  std::map<int, int> attempts_hist;  // attempts-1 -> count, from the exact delivery delay
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(deliveries[i], 1) << "message " << i;
    // Delivered on attempt k + 1 at k * 100 ms + 1 ms latency, exactly.
    const double k = (delay_ms[i] - 1) / 100;
    ASSERT_DOUBLE_EQ(k, std::round(k)) << delay_ms[i];
    ++attempts_hist[int(k)];
  }
  const TypeCount& c = w.net.type_counts()[t];
  EXPECT_EQ(c.delivered, uint64_t(n));
  EXPECT_EQ(c.gave_up, 0u);
  EXPECT_EQ(c.sent, c.delivered + c.dropped);
  EXPECT_EQ(c.bytes, 100 * c.sent);
  // Attempts per message are geometric: mean 1/(1-p), variance p/(1-p)^2.
  const double mean_attempts = double(c.sent) / n;
  EXPECT_NEAR(mean_attempts, 1 / (1 - p), 4.5 * std::sqrt(p) / (1 - p) / std::sqrt(double(n)));
  EXPECT_NEAR(attempts_hist[0] / double(n), 1 - p, 4.5 * std::sqrt(p * (1 - p) / n));
}

TEST(Network, Reliable_GivesUpWhenTheDestinationIncarnationIsGone) {
  NetWorld w(2, constant_net(1));
  const MsgType t = w.net.type("r");
  uint32_t burst = 0;
  int delivered = 0;
  w.at_ms(0, [&] {
    burst = w.net.add_loss_burst({0}, {1}, 1.0);
    w.net.send_reliable(0, 1, t, 1, [&] { ++delivered; });
  });
  w.at_ms(250, [&] { w.hosts.crash(1); });
  w.at_ms(260, [&] {
    w.hosts.recover(1);  // a new incarnation: the old message is not for it
    w.net.end_loss_burst(burst);
  });
  w.sim.run();
  const TypeCount& c = w.net.type_counts()[t];
  EXPECT_EQ(delivered, 0);
  EXPECT_EQ(c.sent, 4u);  // t = 0, 100, 200 lost; t = 300 finds the incarnation gone
  EXPECT_EQ(c.dropped, 4u);
  EXPECT_EQ(c.gave_up, 1u);
}

TEST(Network, Reliable_GivesUpAtAPartitionButNotAtAPlayDeadPeer) {
  NetWorld w(3, constant_net(1));
  const MsgType t = w.net.type("r");
  std::vector<double> got;
  w.at_ms(0, [&] {
    w.net.add_partition({0}, {1}, false);
    w.hosts.set_play_dead(2, true);
    w.net.send_reliable(0, 1, t, 1, [&] { got.push_back(-1); });
    w.net.send_reliable(0, 2, t, 1, [&] { got.push_back(w.now_ms()); });
  });
  w.at_ms(250, [&] { w.hosts.set_play_dead(2, false); });
  w.sim.run();
  // To 1: one attempt, cut, abandoned. To 2: attempts at 0, 100, 200 dropped, 300 delivered.
  EXPECT_EQ(got, (std::vector<double>{301}));
  const TypeCount& c = w.net.type_counts()[t];
  EXPECT_EQ(c.sent, 5u);
  EXPECT_EQ(c.gave_up, 1u);
  EXPECT_EQ(c.delivered, 1u);
}

TEST(Network, Reliable_StopsRetryingAtTheGiveUpTime) {
  NetworkConfig cfg = constant_net(1, 1.0);
  cfg.retransmit_interval = Duration::ms(100);
  cfg.reliable_give_up = Duration::s(1);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("r");
  w.at_ms(0, [&] { w.net.send_reliable(0, 1, t, 1, [] { FAIL(); }); });
  w.sim.run();
  EXPECT_EQ(w.net.type_counts()[t].sent, 10u);  // attempts at 0, 100, ..., 900 ms
  EXPECT_EQ(w.net.type_counts()[t].gave_up, 1u);
  EXPECT_DOUBLE_EQ(w.now_ms(), 1000);
}

TEST(Network, Reliable_SenderCrashEndsItsRetransmissions) {
  NetWorld w(2, constant_net(1, 1.0));
  const MsgType t = w.net.type("r");
  w.at_ms(0, [&] { w.net.send_reliable(0, 1, t, 1, [] { FAIL(); }); });
  w.at_ms(150, [&] { w.hosts.crash(0); });
  w.sim.run();
  EXPECT_EQ(w.net.type_counts()[t].sent, 2u);  // 0 and 100 ms
  EXPECT_EQ(w.net.type_counts()[t].gave_up, 1u);
}

TEST(Network, Unreliable_DroppedToCrashedOrPlayDeadNodesAndToAStaleIncarnation) {
  NetWorld w(3, constant_net(10));
  const MsgType t = w.net.type("u");
  int delivered = 0;
  w.at_ms(0, [&] {
    w.hosts.crash(1);
    w.hosts.set_play_dead(2, true);
    w.net.send_unreliable(0, 1, t, 1, [&] { ++delivered; });  // dst crashed
    w.net.send_unreliable(0, 2, t, 1, [&] { ++delivered; });  // dst plays dead
    w.net.send_unreliable(2, 0, t, 1, [&] { ++delivered; });  // src plays dead
  });
  w.at_ms(20, [&] {
    w.hosts.recover(1);
    w.hosts.set_play_dead(2, false);
    w.net.send_unreliable(0, 1, t, 1, [&] { ++delivered; });  // to incarnation 1, in flight
    w.net.send_unreliable(0, 2, t, 1, [&] { ++delivered; });  // arrives at 30 ms: fine
  });
  w.at_ms(25, [&] {
    w.hosts.crash(1);
    w.hosts.recover(1);  // incarnation 2 by the time the message lands
  });
  w.sim.run();
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(w.net.type_counts()[t].dropped, 4u);
}

TEST(Network, PausedDestination_DeliveriesRunAtResumeInArrivalOrder) {
  NetWorld w(2, constant_net(1));
  const MsgType t = w.net.type("u");
  std::vector<std::pair<int, double>> got;
  w.at_ms(0, [&] { w.hosts.pause(1); });
  for (int i = 0; i < 3; ++i)
    w.at_ms(10 + i, [&, i] { w.net.send_unreliable(0, 1, t, 1, [&, i] { got.push_back({i, w.now_ms()}); }); });
  w.at_ms(50, [&] {
    EXPECT_EQ(w.net.type_counts()[t].delivered, 0u);
    w.hosts.resume(1);
  });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<std::pair<int, double>>{{0, 50}, {1, 50}, {2, 50}}));
  EXPECT_EQ(w.net.type_counts()[t].delivered, 3u);
}

TEST(Network, SymmetricPartitionCutsBothWaysUntilHealed) {
  NetWorld w(4, constant_net(1));
  const uint32_t h = w.net.add_partition({0, 1}, {2, 3}, false);
  EXPECT_TRUE(w.net.cut(0, 2));
  EXPECT_TRUE(w.net.cut(3, 1));
  EXPECT_FALSE(w.net.cut(0, 1));
  EXPECT_FALSE(w.net.cut(2, 3));
  EXPECT_FALSE(w.net.cut(2, 2));
  w.net.heal(h);
  EXPECT_FALSE(w.net.cut(0, 2));
  EXPECT_FALSE(w.net.cut(3, 1));
}

TEST(Network, OneWayPartitionCutsOnlyTheGivenDirection) {
  NetWorld w(3, constant_net(1));
  const MsgType t = w.net.type("u");
  w.net.add_partition({0}, {1}, true);
  EXPECT_TRUE(w.net.cut(0, 1));
  EXPECT_FALSE(w.net.cut(1, 0));
  std::vector<std::string> got;
  w.at_ms(0, [&] {
    w.net.send_unreliable(0, 1, t, 1, [&] { got.push_back("0->1"); });
    w.net.send_unreliable(1, 0, t, 1, [&] { got.push_back("1->0"); });
    w.net.send_unreliable(0, 2, t, 1, [&] { got.push_back("0->2"); });
  });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<std::string>{"1->0", "0->2"}));
}

TEST(Network, PartitionWithoutGroupBCutsGroupAFromEveryoneElse) {
  NetWorld w(4, constant_net(1));
  w.net.add_partition({1, 2}, {}, false);
  EXPECT_TRUE(w.net.cut(1, 0));
  EXPECT_TRUE(w.net.cut(3, 2));
  EXPECT_FALSE(w.net.cut(1, 2));
  EXPECT_FALSE(w.net.cut(0, 3));
}

TEST(Network, LinkOverrides_FirstMatchWinsAndUnsetFieldsKeepTheDefault) {
  NetworkConfig cfg = constant_net(1, 0.0);
  cfg.overrides.push_back({{0}, {}, constant_latency(5), std::nullopt, std::nullopt});
  cfg.overrides.push_back({{}, {1}, constant_latency(9), 1.0, std::nullopt});
  NetWorld w(3, cfg);
  const MsgType t = w.net.type("u");
  std::vector<std::pair<std::string, double>> got;
  w.at_ms(0, [&] {
    w.net.send_unreliable(0, 1, t, 1, [&] { got.push_back({"0->1", w.now_ms()}); });
    w.net.send_unreliable(2, 1, t, 1, [&] { got.push_back({"2->1", w.now_ms()}); });
    w.net.send_unreliable(2, 0, t, 1, [&] { got.push_back({"2->0", w.now_ms()}); });
  });
  w.sim.run();
  // 0->1 matches the first override (5 ms, default loss 0); 2->1 the second (loss 1).
  EXPECT_EQ(got, (std::vector<std::pair<std::string, double>>{{"2->0", 1}, {"0->1", 5}}));
  EXPECT_DOUBLE_EQ(w.net.link_loss(2, 1), 1.0);
  EXPECT_DOUBLE_EQ(w.net.latency_model(0, 1).mean_ms(), 5);
  EXPECT_DOUBLE_EQ(w.net.latency_model(1, 0).mean_ms(), 1);
}

TEST(Network, LossBurstCombinesWithTheLinkLossOnMatchingLinksOnly) {
  const int n = 20000;
  NetWorld w(3, constant_net(1, 0.5));
  const MsgType t = w.net.type("u");
  int to1 = 0, to2 = 0;
  uint32_t h = 0;
  w.at_ms(0, [&] {
    h = w.net.add_loss_burst({0}, {1}, 0.5);
    for (int i = 0; i < n; ++i) {
      w.net.send_unreliable(0, 1, t, 1, [&] { ++to1; });
      w.net.send_unreliable(0, 2, t, 1, [&] { ++to2; });
    }
  });
  w.sim.run();
  // 1 - (1 - 0.5)(1 - 0.5) = 0.75 lost on 0->1; 0.5 on 0->2.
  EXPECT_NEAR(to1 / double(n), 0.25, 4.5 * std::sqrt(0.25 * 0.75 / n));
  EXPECT_NEAR(to2 / double(n), 0.5, 4.5 * std::sqrt(0.25 / n));
  w.net.end_loss_burst(h);
}

TEST(Network, DelaySpikesAddToEveryDrawOnMatchingLinksWhileActive) {
  NetWorld w(3, constant_net(2));
  const MsgType t = w.net.type("u");
  std::vector<std::pair<std::string, double>> got;
  w.at_ms(0, [&] {
    const uint32_t a = w.net.add_delay_spike({0}, {}, Duration::ms(30));
    w.net.add_delay_spike({}, {1}, Duration::ms(100));
    w.net.send_unreliable(0, 1, t, 1, [&] { got.push_back({"0->1", w.now_ms()}); });
    w.net.send_unreliable(0, 2, t, 1, [&] { got.push_back({"0->2", w.now_ms()}); });
    w.net.send_unreliable(2, 0, t, 1, [&] { got.push_back({"2->0", w.now_ms()}); });
    w.net.end_delay_spike(a);
    w.net.send_unreliable(0, 2, t, 1, [&] { got.push_back({"0->2 after", w.now_ms()}); });
  });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<std::pair<std::string, double>>{
                     {"2->0", 2}, {"0->2 after", 2}, {"0->2", 32}, {"0->1", 132}}));
}

// Node 0's latency draws to node 1 must not depend on who else exists or sends.
std::vector<double> node0_delays(size_t nodes, bool others_send) {
  NetworkConfig cfg;
  cfg.latency = exponential_latency(0.5, 3);
  NetWorld w(nodes, cfg, 77);
  const MsgType t = w.net.type("u");
  std::vector<double> out;
  for (int i = 0; i < 200; ++i) {
    w.at_ms(10.0 * i, [&, i] {
      if (others_send)
        for (NodeId s = 2; s < nodes; ++s) w.net.send_unreliable(s, 1, t, 1, [] {});
      const double sent = w.now_ms();
      w.net.send_unreliable(0, 1, t, 1, [&, sent] { out.push_back(w.now_ms() - sent); });
      (void)i;
    });
  }
  w.sim.run();
  return out;
}

TEST(Network, StreamIndependence_OtherSendersAndNodesDoNotChangeNode0Draws) {
  const auto alone = node0_delays(2, false);
  ASSERT_EQ(alone.size(), 200u);
  EXPECT_EQ(alone, node0_delays(10, true));
  EXPECT_EQ(alone, node0_delays(50, false));
}

uint64_t ring_fingerprint(uint64_t seed) {
  NetworkConfig cfg;
  cfg.latency = lognormal_latency(0.2, 1, 0.5);
  cfg.loss = 0.05;
  NetWorld w(20, cfg, seed);
  const MsgType t = w.net.type("hb");
  const EventKind tick = w.sim.kind("tick");
  std::function<void(NodeId)> beat = [&](NodeId n) {
    w.net.send_unreliable(n, (n + 1) % 20, t, 8, [] {});
    w.hosts.schedule_after(n, Duration::ms(100), tick, [&, n] { beat(n); });
  };
  for (NodeId n = 0; n < 20; ++n) w.hosts.schedule_after(n, Duration::ms(n), tick, [&, n] { beat(n); });
  w.sim.run_until(SimTime::from_seconds(5));
  return w.sim.fingerprint();
}

TEST(Network, SameSeedSameFingerprint_DifferentSeedDifferentFingerprint) {
  EXPECT_EQ(ring_fingerprint(3), ring_fingerprint(3));
  EXPECT_NE(ring_fingerprint(3), ring_fingerprint(4));
}

TEST(Network, TraceRecordsSendRecvAndDropWithTheMessageType) {
  NetWorld w(3, constant_net(1));
  RecordingSink sink;
  w.sim.set_trace(&sink);
  const MsgType t = w.net.type("heartbeat");
  w.at_ms(0, [&] {
    w.net.add_partition({2}, {}, false);
    w.net.send_unreliable(0, 1, t, 1, [] {});
    w.net.send_unreliable(0, 2, t, 1, [] {});
  });
  w.sim.run();
  EXPECT_EQ(sink.lines,
            (std::vector<std::string>{
                R"({"from":0,"kind":"send","msg":"heartbeat","msg_id":1,"node":0,"t_ns":0,"to":1})",
                R"({"from":0,"kind":"send","msg":"heartbeat","msg_id":2,"node":0,"t_ns":0,"to":2})",
                R"({"from":0,"kind":"drop","msg":"heartbeat","msg_id":2,"node":0,"reason":"cut","t_ns":0,"to":2})",
                R"({"from":0,"kind":"recv","msg":"heartbeat","msg_id":1,"node":1,"t_ns":1000000,"to":1})"}));
}

TEST(NetworkDeathTest, SendingToAnUnknownNodeAborts) {
  NetWorld w(2, constant_net(1));
  const MsgType t = w.net.type("u");
  EXPECT_INTERNAL_ERROR(w.net.send_unreliable(0, 7, t, 1, [] {}), "node 0: network: link from 0 to 7");
}

}  // namespace
}  // namespace fdsim::net
