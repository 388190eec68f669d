// The traffic meter (sim/net/traffic.h) through the Network: hand-counted messages, bytes and
// drops of small hand-built exchanges, the window start, per-node maxima and the normalisation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using nlohmann::json;
using testing_support::constant_net;
using testing_support::NetWorld;

// Traffic of `w` over [window_start, end_ms).
json traffic_of(NetWorld& w, double end_ms) {
  return w.net.traffic_metrics(SimTime::zero() + Duration::from_ms(end_ms));
}

TEST(Traffic, CountsFromTheWindowStartByTypeAndNode) {
  NetWorld w(4, constant_net(1.0));
  w.net.set_traffic_window(SimTime::zero() + Duration::from_ms(100));
  const MsgType a = w.net.type("a"), b = w.net.type("b");
  w.net.type("unused");
  w.at_ms(99.999, [&] { w.net.send_unreliable(0, 1, a, 1000, [] {}); });  // before: not counted
  w.at_ms(100, [&] {  // at the start: counted (half-open window [100, end))
    w.net.send_unreliable(0, 1, a, 10, [] {});
    w.net.send_unreliable(0, 2, a, 10, [] {});
    w.net.send_reliable(3, 1, b, 7, [] {});
  });
  w.at_ms(500, [&] { w.net.send_unreliable(2, 0, b, 5, [] {}); });
  w.sim.run_until(SimTime::zero() + Duration::from_ms(1100));
  const json t = traffic_of(w, 1100);
  EXPECT_DOUBLE_EQ(t["window_s"].get<double>(), 1.0);
  EXPECT_EQ(t["messages_count"], 4);
  EXPECT_EQ(t["bytes_count"], 32);
  EXPECT_EQ(t["by_type"]["messages_count"]["a"], 2);
  EXPECT_EQ(t["by_type"]["bytes_count"]["a"], 20);
  EXPECT_EQ(t["by_type"]["messages_count"]["b"], 2);
  EXPECT_EQ(t["by_type"]["bytes_count"]["b"], 12);
  EXPECT_EQ(t["by_type"]["messages_count"]["unused"], 0);  // every registered type appears
  EXPECT_DOUBLE_EQ(t["messages_per_node_s"].get<double>(), 4.0 / (4 * 1.0));
  EXPECT_DOUBLE_EQ(t["bytes_per_node_s"].get<double>(), 32.0 / 4);
  EXPECT_DOUBLE_EQ(t["by_type"]["bytes_per_node_s"]["b"].get<double>(), 12.0 / 4);
  EXPECT_DOUBLE_EQ(t["max_node_messages_per_s"].get<double>(), 2.0);  // node 0 sent 2
  EXPECT_DOUBLE_EQ(t["max_node_bytes_per_s"].get<double>(), 20.0);
  EXPECT_EQ(t["dropped_count"], 0);
}

TEST(Traffic, EveryReliableAttemptIsAMessage) {
  NetworkConfig c = constant_net(1.0);
  c.retransmit_interval = Duration::ms(100);
  NetWorld w(2, c);
  const MsgType m = w.net.type("m");
  // The destination plays dead until 350 ms: attempts at 0, 100, 200, 300 are dropped
  // ("play_dead"), the one at 400 arrives.
  w.at_ms(0, [&] {
    w.hosts.set_play_dead(1, true);
    w.net.send_reliable(0, 1, m, 50, [] {});
  });
  w.at_ms(350, [&] { w.hosts.set_play_dead(1, false); });
  w.sim.run_until(SimTime::zero() + Duration::from_ms(1000));
  const json t = traffic_of(w, 1000);
  EXPECT_EQ(t["messages_count"], 5);
  EXPECT_EQ(t["bytes_count"], 250);
  EXPECT_EQ(t["dropped_by_reason_count"]["play_dead"], 4);
  EXPECT_EQ(t["dropped_count"], 4);
}

TEST(Traffic, DropsByReason) {
  NetworkConfig c = constant_net(1.0);
  LinkOverride lossy;
  lossy.from = {0};
  lossy.to = {3};
  lossy.loss = 1.0;
  c.overrides.push_back(lossy);
  NetWorld w(4, c);
  const MsgType m = w.net.type("m");
  w.at_ms(0, [&] {
    w.hosts.crash(1);
    w.net.send_unreliable(0, 1, m, 1, [] {});  // down
    w.net.add_partition({0}, {2}, false);
    w.net.send_unreliable(0, 2, m, 1, [] {});  // cut
    w.net.send_unreliable(0, 3, m, 1, [] {});  // lost
    w.net.send_unreliable(2, 3, m, 1, [] {});  // arrives
  });
  w.sim.run_until(SimTime::zero() + Duration::from_ms(10));
  const json t = traffic_of(w, 10);
  EXPECT_EQ(t["messages_count"], 4);
  EXPECT_EQ(t["dropped_by_reason_count"]["down"], 1);
  EXPECT_EQ(t["dropped_by_reason_count"]["cut"], 1);
  EXPECT_EQ(t["dropped_by_reason_count"]["lost"], 1);
  EXPECT_EQ(t["dropped_by_reason_count"]["play_dead"], 0);
  EXPECT_EQ(t["dropped_count"], 3);
}

TEST(Traffic, ProbeRequestAndServedAnswer) {
  NetWorld w(3, constant_net(5.0));
  const MsgType p = w.net.type("p");
  w.at_ms(0, [&] {
    w.hosts.crash(2);
    // Answered: the request from 0 and the answer from 1.
    w.net.probe(0, 1, Duration::ms(100), p, ProbeBytes{20, 3}, [] { return int64_t(1); },
                [](ProbeResult) {});
    // Refused by a crashed target: the request only.
    w.net.probe(0, 2, Duration::ms(100), p, ProbeBytes{20, 3}, [] { return int64_t(1); },
                [](ProbeResult) {});
  });
  w.sim.run_until(SimTime::zero() + Duration::from_ms(200));
  const json t = traffic_of(w, 200);
  EXPECT_EQ(t["messages_count"], 3);
  EXPECT_EQ(t["bytes_count"], 20 + 3 + 20);
  EXPECT_DOUBLE_EQ(t["max_node_bytes_per_s"].get<double>(), 40.0 / 0.2);
}

TEST(Traffic, EmptyWindowHasNullRates) {
  NetWorld w(2, constant_net(1.0));
  w.net.type("m");
  w.net.set_traffic_window(SimTime::zero() + Duration::from_ms(10));
  const json t = traffic_of(w, 10);
  EXPECT_EQ(t["messages_count"], 0);
  EXPECT_TRUE(t["messages_per_node_s"].is_null());
  EXPECT_TRUE(t["by_type"]["messages_per_node_s"]["m"].is_null());
}

}  // namespace
}  // namespace fdsim::net
