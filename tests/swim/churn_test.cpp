// Churn on SWIM (sim/faults/churn.h; SwimModel's ChurnParticipant; models/swim/README.md
// "Churn"): exact hand-built runs of a small memberlist cluster. Six slots at memberlist's LAN
// defaults (probe 1 s, gossip 200 ms to 3 members, retransmit_mult 4, push-pull 30 s), constant
// 1 ms links, no loss. The churn entry names slot 3 (a session of exactly 10 s: an empirical
// law of one value) and, where a test says so, slot 5 as a spare (then members 0..4 are present
// at t = 0, else all six); joins come every 20 s and stop at 25 s, so exactly one join (at
// 20 s, on the lowest free slot) happens.
//
// Bounds used below (no loss):
// - Leave (with the spare): the leaver's n is 5 (the spare slot is in no view), so its transmit limit is
//   retransmit_mult x ceil(log10(5 + 1)) = 4, one packet to each of up to 4 distinct members:
//   with kRandomNodes' 3n = 15 draws the 4 other members are all reached in these runs, so every
//   view has the leaver left one link (1 ms) after the leave.
// - Join: the seed takes the joiner in when the push-pull arrives (1 ms); the joiner's alive
//   (queued at its start) and the seed's rebroadcast reach every member within the next gossip
//   rounds (200 ms apart, fan-out 3); the asserted bound is 1 s, five gossip rounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "sim/faults/churn.h"
#include "sim/faults/config.h"
#include "sim/faults/injector.h"
#include "tests/swim/harness.h"

namespace fdsim::swim {
namespace {

using nlohmann::json;
using test::at_s;

constexpr size_t kSlots = 6;

struct ChurnOptions {
  bool graceful = true;
  bool spare = false;            // slot 5 is a spare (absent at t = 0)
  bool joins = false;            // one join at 20 s
  bool leaves = true;            // slot 3 leaves at 10 s
  std::optional<double> pause_3_at_s;  // pause slot 3 for 2 s (its refutation raises its incarnation)
  double horizon_s = 60;
};

struct ChurnRun {
  explicit ChurnRun(ChurnOptions o)
      : cfg(test::config(kSlots)),
        hosts(sim, cfg.node_count),
        net(sim, hosts, RngFactory(1, 0), test::Harness::make_net(test::HarnessOptions{})),
        world{sim, hosts, net, RngFactory(1, 0), SimTime::zero(), at_s(o.horizon_s)},
        faults(make_faults(o)),
        injector(world, faults) {
    sim.set_trace(&sink);
    model = std::make_unique<SwimModel>(world, cfg, 0);
    model->enable_churn();
    injector.set_churn_participant(model.get());
    injector.start();
    model->start();
  }

  static faults::FaultsConfig make_faults(const ChurnOptions& o) {
    faults::ChurnProcess p;
    p.nodes = {3};
    if (o.spare) p.spare = {5};
    if (o.leaves) p.session = faults::Lifetime::empirical({10.0});
    if (o.joins) p.join = faults::Lifetime::empirical({20.0});
    p.graceful = o.graceful;
    p.stop = at_s(25);
    p.stream = "faults.churn";
    faults::FaultsConfig f;
    f.churn = p;
    if (o.pause_3_at_s) {
      faults::ScheduledFault pause;
      pause.kind = faults::FaultKind::pause;
      pause.at = at_s(*o.pause_3_at_s);
      pause.end = at_s(*o.pause_3_at_s + 2.0);
      pause.nodes = {3};
      f.scheduled.push_back(pause);
    }
    return f;
  }

  void run_until_s(double s) { sim.run_until(at_s(s)); }
  Member& m(NodeId n) { return model->member(n); }
  const SwimRecorder& rec() const { return model->recorder(); }

  std::vector<json> records(const std::string& kind,
                            const std::function<bool(const json&)>& pred = nullptr) const {
    std::vector<json> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!pred || pred(r))) out.push_back(r);
    return out;
  }
  static SimTime time_of(const json& r) { return SimTime::from_ns(r["t_ns"].get<int64_t>()); }
  // Packets of message type `msg` sent to `to` (network "send" records) at or after t.
  size_t sent_to(const std::string& msg, NodeId to, SimTime from_t) const {
    return records("send", [&](const json& r) {
             return r["msg"] == msg && r["to"] == to && time_of(r) >= from_t;
           }).size();
  }
  // The instant member `observer` changed its view of `target` to `to` (the last such), if any.
  std::optional<SimTime> view_changed(NodeId observer, NodeId target, const std::string& to) const {
    std::optional<SimTime> t;
    for (const json& r : records("swim_state", [&](const json& r) {
           return r["node"] == observer && r["target"] == target && r["to"] == to;
         }))
      t = time_of(r);
    return t;
  }

  SwimConfig cfg;
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  faults::FaultsConfig faults;
  faults::FaultInjector injector;
  test::RecordingSink sink;
  std::unique_ptr<SwimModel> model;
};

TEST(SwimChurn, GracefulLeaverIsLeftInEveryViewOneLinkAfterItsLeaveAndNeverAFailure) {
  ChurnOptions o;
  o.spare = true;
  ChurnRun r(o);
  r.run_until_s(60);
  const auto leaves = r.records("swim_leave");
  ASSERT_EQ(leaves.size(), 1u);
  const SimTime left_at = ChurnRun::time_of(leaves[0]);
  EXPECT_EQ(left_at, at_s(10));
  EXPECT_EQ(leaves[0]["node"], 3);
  // The leaver's dead-about-self (Node == From) went out as gossip before its host went down.
  EXPECT_EQ(r.records("send", [&](const json& p) {
               return p["from"] == 3 && p["msg"] == "swim.gossip" && ChurnRun::time_of(p) == left_at;
             }).size(),
            4u);
  for (NodeId n : {0u, 1u, 2u, 4u}) {
    EXPECT_EQ(r.m(n).state_of(3), PeerState::left) << "member " << n;
    const auto t = r.view_changed(n, 3, "left");
    ASSERT_TRUE(t) << "member " << n;
    EXPECT_EQ(*t, left_at + Duration::ms(1)) << "member " << n;
    EXPECT_FALSE(r.view_changed(n, 3, "dead")) << "member " << n;
    EXPECT_FALSE(r.view_changed(n, 3, "suspect")) << "member " << n;
  }
  // Nobody probes it afterwards, nobody suspects it, and nothing is a failure.
  EXPECT_EQ(r.sent_to("swim.ping", 3, left_at + Duration::ms(1)), 0u);
  EXPECT_EQ(r.sent_to("swim.indirect_ping", 3, left_at), 0u);
  EXPECT_TRUE(r.rec().crashes().empty());
  EXPECT_EQ(r.rec().suspicions(), 0u);
  EXPECT_EQ(r.rec().false_suspicions(), 0u);
  EXPECT_EQ(r.rec().false_removals(), 0u);
  EXPECT_EQ(r.rec().removals(), 4u);  // four views turned left
  const json m = r.model->metrics();
  EXPECT_EQ(m["crashes_count"], 0);
  EXPECT_EQ(m["churn"]["leaves_graceful_count"], 1);
  EXPECT_EQ(m["churn"]["leaves_crash_count"], 0);
  EXPECT_EQ(m["churn"]["leave_known_all_s"]["count"], 1);
  EXPECT_DOUBLE_EQ(m["churn"]["leave_known_all_s"]["max"].get<double>(), 0.001);
  EXPECT_EQ(m["churn"]["leave_views_dead_count"], 0);
}

TEST(SwimChurn, CrashLeaveIsDetectedAsACrash) {
  ChurnOptions o;
  o.graceful = false;
  o.spare = true;
  ChurnRun r(o);
  r.run_until_s(60);
  EXPECT_TRUE(r.records("swim_leave").empty());
  const auto& crashes = r.rec().crashes();
  ASSERT_EQ(crashes.size(), 1u);
  EXPECT_EQ(crashes[0].node, 3u);
  EXPECT_EQ(crashes[0].crashed, at_s(10));
  ASSERT_TRUE(crashes[0].first_suspicion && crashes[0].first_removal && crashes[0].removal_all);
  // Lifeguard at n = 5: removal between min = 4 s and max = 24 s after the first suspicion.
  EXPECT_GE(*crashes[0].first_removal - *crashes[0].first_suspicion, Duration::s(4));
  EXPECT_LE(*crashes[0].first_removal - *crashes[0].first_suspicion, Duration::s(24));
  for (NodeId n : {0u, 1u, 2u, 4u}) EXPECT_EQ(r.m(n).state_of(3), PeerState::dead) << n;
  EXPECT_EQ(r.rec().false_removals(), 0u);
  EXPECT_EQ(r.rec().false_suspicions(), 0u);
  const json m = r.model->metrics();
  EXPECT_EQ(m["crashes_count"], 1);
  EXPECT_EQ(m["churn"]["leaves_crash_count"], 1);
  EXPECT_EQ(m["churn"]["leaves_graceful_count"], 0);
}

TEST(SwimChurn, SpareSlotIsInNoViewUntilItsJoinerIsAliveEverywhereAndProbes) {
  ChurnOptions o;
  o.spare = true;
  o.joins = true;
  o.leaves = false;
  ChurnRun r(o);
  r.run_until_s(19.999);
  for (NodeId n : {0u, 1u, 2u, 3u, 4u}) {
    EXPECT_FALSE(r.m(n).knows(5)) << n;
    EXPECT_EQ(r.m(n).num_nodes(), 5) << n;  // n of the suspicion and retransmit formulas
    const auto& order = r.m(n).probe_order();
    EXPECT_FALSE(order.lazy()) << n;
  }
  EXPECT_EQ(r.records("send", [](const json& p) { return p["to"] == 5 || p["from"] == 5; }).size(), 0u);
  r.run_until_s(60);
  const auto joins = r.records("swim_join");
  ASSERT_EQ(joins.size(), 1u);
  EXPECT_EQ(joins[0]["node"], 5);
  EXPECT_EQ(ChurnRun::time_of(joins[0]), at_s(20));
  const NodeId seed = joins[0]["seed"].get<NodeId>();
  EXPECT_LT(seed, 5u);
  // The seed takes it in when the push-pull arrives; every member within 1 s.
  EXPECT_EQ(*r.view_changed(seed, 5, "alive"), at_s(20) + Duration::ms(1));
  for (NodeId n : {0u, 1u, 2u, 3u, 4u}) {
    const auto t = r.view_changed(n, 5, "alive");
    ASSERT_TRUE(t) << n;
    EXPECT_LE(*t, at_s(21)) << n;
    EXPECT_EQ(r.m(n).state_of(5), PeerState::alive) << n;
    EXPECT_EQ(r.m(n).incarnation_of(5), 1u) << n;
    EXPECT_EQ(r.m(n).gen_of(5), 1u) << n;
    EXPECT_EQ(r.m(n).num_nodes(), 6) << n;
  }
  // The joiner merged the seed's state (all six slots) and probes like any member.
  EXPECT_EQ(r.m(5).num_nodes(), 6);
  for (NodeId n = 0; n < 5; ++n) EXPECT_EQ(r.m(5).state_of(n), PeerState::alive) << n;
  EXPECT_GE(r.records("send", [](const json& p) {
              return p["from"] == 5 && p["msg"] == "swim.ping";
            }).size(),
            30u);  // about one probe a second for 40 s
  EXPECT_EQ(r.rec().suspicions(), 0u);
  EXPECT_EQ(r.rec().false_removals(), 0u);
  const json m = r.model->metrics();
  EXPECT_EQ(m["churn"]["joins_count"], 1);
  EXPECT_EQ(m["churn"]["join_known_all_s"]["count"], 1);
  EXPECT_LE(m["churn"]["join_known_all_s"]["max"].get<double>(), 1.0);
}

TEST(SwimChurn, FreshIdentityOnAReusedSlotStartsAtIncarnationOneWithNothingOfTheOld) {
  // Slots 0..5 present. Slot 3 is paused 5-7 s: it is suspected and refutes (incarnation 2,
  // health score raised); it leaves at 10 s and a fresh identity takes slot 3 at 20 s (no spare
  // slot: the lowest free slot is the one its predecessor left).
  ChurnOptions o;
  o.joins = true;
  o.pause_3_at_s = 5.0;
  o.horizon_s = 72;
  ChurnRun r(o);
  r.run_until_s(9.999);
  ASSERT_GE(r.m(3).incarnation(), 2u);  // the old identity refuted
  const uint32_t old_incarnation = r.m(3).incarnation();
  r.run_until_s(19.999);
  for (NodeId n : {0u, 1u, 2u, 4u, 5u}) {
    EXPECT_EQ(r.m(n).state_of(3), PeerState::left) << n;
    EXPECT_EQ(r.m(n).incarnation_of(3), old_incarnation) << n;
  }
  r.run_until_s(60);
  ASSERT_EQ(r.records("swim_join").size(), 1u);
  EXPECT_EQ(r.m(3).gen(), 1u);
  EXPECT_EQ(r.m(3).incarnation(), 1u);
  EXPECT_EQ(r.m(3).health_score(), 0);
  EXPECT_FALSE(r.m(3).has_left());
  for (NodeId n : {0u, 1u, 2u, 4u, 5u}) {
    EXPECT_EQ(r.m(n).state_of(3), PeerState::alive) << n;
    EXPECT_EQ(r.m(n).incarnation_of(3), 1u) << n;
    EXPECT_EQ(r.m(n).gen_of(3), 1u) << n;
    EXPECT_FALSE(r.m(n).suspicion_of(3)) << n;
    EXPECT_EQ(r.m(n).num_nodes(), 6) << n;  // the new identity took the old one's entry
  }
  // A ping (UDP or TCP) for the old identity is not answered by the new one (net.go
  // handlePing 489-493, handleConn 285-291); one for the new identity is.
  const auto acks_at = [&](SimTime t) {
    return r.records("send", [&](const json& x) {
             return x["from"] == 3 && x["to"] == 0 && x["msg"] == "swim.ack" && ChurnRun::time_of(x) == t;
           }).size();
  };
  Packet old_ping{Msg::ping, 0, 9001, kNoNode, false, {}, 0};
  Packet new_ping{Msg::ping, 0, 9002, kNoNode, false, {}, 1};
  r.sim.schedule_at(at_s(70), r.sim.kind("test.ping"), kNoNode, [&] { r.m(3).receive(old_ping); });
  r.sim.schedule_at(at_s(71), r.sim.kind("test.ping"), kNoNode, [&] { r.m(3).receive(new_ping); });
  r.run_until_s(72);
  EXPECT_EQ(acks_at(at_s(70)), 0u);
  EXPECT_EQ(acks_at(at_s(71)), 1u);
  EXPECT_EQ(r.m(3).serve_tcp_ping(0), 0);
  EXPECT_EQ(r.m(3).serve_tcp_ping(1), 1);
  // No refutation by the new identity: it was never suspected or declared dead.
  EXPECT_TRUE(r.records("swim_refute", [](const json& x) {
                 return x["node"] == 3 && ChurnRun::time_of(x) >= at_s(20);
               }).empty());
  const json m = r.model->metrics();
  EXPECT_EQ(m["churn"]["joins_count"], 1);
  EXPECT_EQ(m["churn"]["join_known_all_s"]["count"], 1);
  EXPECT_EQ(m["crashes_count"], 0);
}

// A crash leave on slot 3 at 10 s: the old identity is declared dead (at incarnation 1) by
// every member before the fresh identity joins at 20 s with incarnation 1 too. memberlist tells
// the two apart by name; keyed by slot alone, the alive at incarnation 1 would lose against the
// dead at incarnation 1 (state.go aliveNode 1023-1026) and the joiner would have to refute.
TEST(SwimChurn, FreshIdentityAfterACrashLeaveIsAliveEverywhereWithoutRefuting) {
  ChurnOptions o;
  o.graceful = false;
  o.joins = true;
  ChurnRun r(o);
  r.run_until_s(19.999);
  for (NodeId n : {0u, 1u, 2u, 4u, 5u}) {
    EXPECT_EQ(r.m(n).state_of(3), PeerState::dead) << n;
    EXPECT_EQ(r.m(n).incarnation_of(3), 1u) << n;
  }
  r.run_until_s(60);
  EXPECT_EQ(r.m(3).incarnation(), 1u);
  for (NodeId n : {0u, 1u, 2u, 4u, 5u}) {
    EXPECT_EQ(r.m(n).state_of(3), PeerState::alive) << n;
    EXPECT_EQ(r.m(n).incarnation_of(3), 1u) << n;
    EXPECT_LE(*r.view_changed(n, 3, "alive"), at_s(21)) << n;
  }
  EXPECT_TRUE(r.records("swim_refute", [](const json& x) { return x["node"] == 3; }).empty());
  // The crash is measured once (the old identity), and nothing about the new one is false.
  ASSERT_EQ(r.rec().crashes().size(), 1u);
  EXPECT_TRUE(r.rec().crashes()[0].removal_all);
  EXPECT_EQ(r.rec().false_removals(), 0u);
  EXPECT_EQ(r.rec().false_suspicions(), 0u);
}

}  // namespace
}  // namespace fdsim::swim
