// A starved memberlist member (models/swim/handoff_queue.h): hand-built sequences against the
// queue alone, against a starved host (Hosts + HandoffQueue, constant 10 ms service), and
// through the SWIM model (ping/ack on the receive path, updates in the handoff lists, drops at
// HandoffQueueDepth, a suspicion timer delayed by the backlog, timers before packets at resume).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/swim/handoff_queue.h"
#include "models/swim/lifeguard_math.h"
#include "tests/net/net_fixture.h"
#include "tests/swim/harness.h"

namespace fdsim::swim::test {
namespace {

net::ServiceItem handoff_item(uint64_t id, double arrived_ms, int32_t tag) {
  net::ServiceItem it;
  it.msg_id = id;
  it.arrived = SimTime::zero() + Duration::from_ms(arrived_ms);
  it.tag = tag;
  return it;
}

TEST(HandoffQueue, LifoHighPriorityFirstAlternatingWithTheReceivePath) {
  HandoffQueue q(2);
  std::vector<net::ServiceItem> dropped;
  q.admit(handoff_item(1, 5, 3), dropped);    // a packet
  EXPECT_TRUE(q.hand_off(handoff_item(10, 5, -1), false));
  EXPECT_TRUE(q.hand_off(handoff_item(11, 5, -1), false));
  EXPECT_FALSE(q.hand_off(handoff_item(12, 5, -1), false));  // low list full at depth 2
  EXPECT_TRUE(q.hand_off(handoff_item(20, 5, -1), true));    // the high list has its own bound
  q.admit(handoff_item(2, 5, 3), dropped);    // a packet
  q.admit(handoff_item(3, 5, -1), dropped);   // a timer due at the packets' instant goes first
  q.admit(handoff_item(4, 6, 3), dropped);    // a later packet
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(q.size(), 7u);
  EXPECT_EQ(q.dropped(), 1u);
  EXPECT_EQ(q.handed_off(), 3u);
  std::vector<uint64_t> order;
  while (!q.empty()) order.push_back(q.next().msg_id);
  // A hand-off gave the handler the turn: 20 (high), then work 3 (the timer), 11 (newest low),
  // work 1, 10, work 2, work 4.
  EXPECT_EQ(order, (std::vector<uint64_t>{20, 3, 11, 1, 10, 2, 4}));
}

TEST(HandoffQueue, ClearForgetsEverything) {
  HandoffQueue q(4);
  std::vector<net::ServiceItem> dropped;
  q.admit(handoff_item(1, 0, 3), dropped);
  q.hand_off(handoff_item(2, 0, -1), true);
  q.hand_off(handoff_item(3, 0, -1), false);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
}

// A starved host with the handoff queue, constant 10 ms service; returns "name@ms" in run order.
struct StarvedHost {
  net::testing_support::NetWorld w{2, net::testing_support::constant_net(1)};
  HandoffQueue* q = nullptr;
  std::vector<std::string> ran;
  EventKind kind = w.sim.kind("test.timer");
  StarvedHost() {
    auto queue = std::make_unique<HandoffQueue>(1024);
    q = queue.get();
    w.hosts.set_service_queue(0, std::move(queue));
    w.hosts.starve(0, net::constant_latency(10), std::make_shared<Rng>(1));
  }
  std::function<void()> log(std::string name) {
    return [this, name] { ran.push_back(name + "@" + std::to_string(int(w.now_ms()))); };
  }
  void timer(std::string name, double at_ms) {
    w.hosts.schedule_at(0, SimTime::zero() + Duration::from_ms(at_ms), kind, log(name));
  }
  // A delivery at at_ms whose callback runs `fn` (tag 0: a message type).
  void packet(double at_ms, std::function<void()> fn) {
    w.at_ms(at_ms, [this, fn] { w.hosts.run_on(0, 0, kind, fn, 0, 1, 1); });
  }
  void hand_off(std::string name, bool high) {
    net::ServiceItem it;
    it.fn = log(name);
    it.arrived = w.sim.now();
    q->hand_off(std::move(it), high);
  }
};

TEST(HandoffQueue, TimersWaitBehindTheBacklogAndHandedOffMessagesRunNewestFirst) {
  StarvedHost h;
  h.packet(100, [&] {
    h.ran.push_back("P@" + std::to_string(int(h.w.now_ms())));
    h.hand_off("H1", false);
    h.hand_off("H2", false);
    h.hand_off("H3", true);
  });
  h.timer("T", 105);  // arrives while P is in service
  h.w.sim.run();
  // P served 100-110; then the handler's turn: the alive (high) message; the timer due at 105
  // runs at 130 (25 ms late: the backlog); then the low list newest first.
  EXPECT_EQ(h.ran, (std::vector<std::string>{"P@110", "H3@120", "T@130", "H2@140", "H1@150"}));
}

TEST(HandoffQueue, AtResumeTimersDueDuringThePauseRunBeforePacketsThatArrivedDuringIt) {
  StarvedHost h;
  h.w.at_ms(200, [&] { h.w.hosts.pause(0); });
  h.packet(210, h.log("P1"));
  h.timer("T", 220);
  h.packet(230, h.log("P2"));
  h.w.at_ms(300, [&] { h.w.hosts.resume(0); });
  h.w.sim.run();
  // Before the batch admission at resume, P1 started service first: P1@310, T@320, P2@330.
  EXPECT_EQ(h.ran, (std::vector<std::string>{"T@310", "P1@320", "P2@330"}));
}

// SWIM: 4 members, member 0 starved from t = 0 with a constant 10 ms service; the tickers are
// turned (almost) off so that the injected packets are the only work of member 0 near t = 1 s.
SwimConfig quiet_config() {
  SwimConfig c = config(4);
  c.probe_interval = Duration::ms(100000);
  c.gossip_nodes = 0;
  c.push_pull_interval = Duration::zero();
  return c;
}

HarnessOptions starved_member_0(double horizon_s) {
  HarnessOptions o;
  o.horizon_s = horizon_s;
  net::StarvedEntry e;
  e.nodes = {0};
  e.service = net::constant_latency(10);
  e.at = SimTime::zero();
  e.stream = "net.starved";
  o.starved.push_back(e);
  return o;
}

// Delivers `p` to member 0 now, as the network does (a delivery of the packet's type).
void deliver_to_0(Harness& h, const Packet& p) {
  Member* m0 = &h.m(0);
  h.hosts.run_on(0, h.hosts.incarnation(0), h.sim.kind("test.delivery"), [m0, p] { m0->receive(p); },
                 int32_t(h.net.type("swim." + std::string(msg_name(p.kind)))), p.from, 1);
}

std::vector<std::string> states_of_0(const Harness& h) {
  std::vector<std::string> out;
  for (const json& r : h.records("swim_state", 0))
    out.push_back(std::to_string(r["target"].get<int>()) + ":" + r["to"].get<std::string>() + "@" +
                  std::to_string(int64_t(std::llround(Harness::time_of(r).millis()))));
  return out;
}

TEST(SwimHandoff, PingAckOnTheReceivePathUpdatesInTheHandoffLists) {
  for (const bool memberlist : {true, false}) {
    SwimConfig c = quiet_config();
    c.memberlist_starved_queue = memberlist;
    Harness h(c, starved_member_0(3));
    h.at(at_s(1), [&] {
      deliver_to_0(h, Packet{Msg::gossip, 1, 0, kNoNode, false,
                             {Update{UpdateKind::suspect, 2, 1, 1}, Update{UpdateKind::suspect, 3, 1, 1}}});
      deliver_to_0(h, Packet{Msg::ping, 1, 77, kNoNode, false, {Update{UpdateKind::alive, 3, 2, 3}}});
    });
    h.run_until_s(3);
    const auto acks = h.records("send", 0, [](const json& r) { return r["msg"] == "swim.ack"; });
    ASSERT_EQ(acks.size(), 1u) << memberlist;
    if (memberlist) {
      // 1.010 the gossip packet's receive path hands both suspicions off; 1.020 the newest (3);
      // 1.030 the ping (the ack leaves; its alive update goes to the high list); 1.040 alive 3;
      // 1.050 suspect 2.
      EXPECT_EQ(states_of_0(h), (std::vector<std::string>{"3:suspect@1020", "3:alive@1040", "2:suspect@1050"}));
      EXPECT_EQ(Harness::time_of(acks[0]), at_s(1.030));
      const json m = h.model->metrics();
      EXPECT_EQ(m["starved"]["handoff_messages_count"], 3);
      EXPECT_EQ(m["starved"]["handoff_dropped_count"], 0);
    } else {
      // starved_queue "host": updates applied with their packet.
      EXPECT_EQ(states_of_0(h), (std::vector<std::string>{"2:suspect@1010", "3:suspect@1010", "3:alive@1020"}));
      EXPECT_EQ(Harness::time_of(acks[0]), at_s(1.020));
    }
  }
}

TEST(SwimHandoff, AFullHandoffListDropsTheNewMessage) {
  SwimConfig c = quiet_config();
  c.handoff_queue_depth = 1;
  Harness h(c, starved_member_0(3));
  h.at(at_s(1), [&] {
    deliver_to_0(h, Packet{Msg::gossip, 1, 0, kNoNode, false,
                           {Update{UpdateKind::suspect, 2, 1, 1}, Update{UpdateKind::suspect, 3, 1, 1},
                            Update{UpdateKind::alive, 1, 2, 1}}});
  });
  h.run_until_s(3);
  // suspect 2 fills the low list (depth 1), suspect 3 is dropped, alive 1 goes to the high list.
  EXPECT_EQ(states_of_0(h), (std::vector<std::string>{"2:suspect@1030"}));
  const auto drops = h.records("swim_handoff_drop", 0);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0]["target"], 3);
  EXPECT_EQ(h.model->metrics()["starved"]["handoff_dropped_count"], 1);
  EXPECT_EQ(h.m(0).incarnation_of(1), 2u);  // the alive message was served (1.020)
}

TEST(SwimHandoff, TheSuspicionTimerWaitsBehindTheBacklog) {
  // Plain SWIM (k = 0: confirmations do not move the timer); member 2 crashes so that it never
  // refutes.
  SwimConfig quiet = quiet_config();
  quiet.arms = {SwimArm{"swim", false, false, false, false}};
  Harness h(quiet, starved_member_0(500));
  h.at(at_s(0.5), [&] { h.hosts.crash(2); });
  h.at(at_s(1), [&] {
    deliver_to_0(h, Packet{Msg::gossip, 1, 0, kNoNode, false, {Update{UpdateKind::suspect, 2, 1, 1}}});
  });
  // The suspicion starts at 1.020 (receive path 1.010, handoff 1.020) and lasts min.
  const SwimConfig& c = h.cfg;
  const Duration min = suspicion_timeout(c.suspicion_mult, 4, c.probe_interval);
  const SimTime due = at_s(1.020) + suspicion_deadline(0, 0, min, min * c.suspicion_max_timeout_mult);
  // Three pings 5 ms before it is due: served due-5 .. due+25; the timer arrives at `due`
  // behind two of them and runs at due + 35 ms.
  h.at(due - Duration::ms(5), [&] {
    for (uint32_t s = 0; s < 3; ++s) deliver_to_0(h, Packet{Msg::ping, 1, 100 + s, kNoNode, false, {}});
  });
  h.run_until_s((due + Duration::ms(100)).seconds());
  const auto dead = h.records("swim_state", 0, [](const json& r) { return r["to"] == "dead"; });
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(Harness::time_of(dead[0]), due + Duration::ms(35));
}

}  // namespace
}  // namespace fdsim::swim::test
