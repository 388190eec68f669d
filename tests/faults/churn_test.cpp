// The churn fault (sim/faults/churn.h): its scenario entry (fields, defaults, every problem at
// its path) and the driver's exact schedule against a recording participant: absent slots at
// t = 0, leaves one session after each identity's start, joins on the lowest free slot with a
// new host incarnation, joins skipped when no slot is free, nothing at or after stop.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/faults/churn.h"
#include "tests/faults/faults_fixture.h"

namespace fdsim::faults {
namespace {

using nlohmann::json;
using testing_support::parse_faults;

TEST(ChurnConfig, ParsesWithDefaults) {
  const auto p = parse_faults(json::parse(R"([
    {"kind": "churn", "nodes": [0, 1], "spare_nodes": [3], "mean_session_s": 3600,
     "mean_join_interval_s": 600}])"));
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  ASSERT_TRUE(p.cfg.churn);
  const ChurnProcess& c = *p.cfg.churn;
  EXPECT_EQ(c.nodes, (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(c.spare, (std::vector<NodeId>{3}));
  EXPECT_DOUBLE_EQ(c.session->mean_s(), 3600);
  EXPECT_DOUBLE_EQ(c.join->mean_s(), 600);
  EXPECT_TRUE(c.graceful);
  EXPECT_EQ(c.start, SimTime::zero());
  EXPECT_FALSE(c.stop);
  EXPECT_EQ(p.cfg.churn_entry, 0u);
  EXPECT_EQ(p.resolved["faults"][0]["leave"], "graceful");
  EXPECT_FALSE(p.cfg.empty());
}

TEST(ChurnConfig, LawObjectsAndCrashLeaves) {
  const auto p = parse_faults(json::parse(R"([
    {"kind": "crash", "at_s": 1, "nodes": [3]},
    {"kind": "churn", "nodes": [0], "leave": "crash",
     "session": {"distribution": "weibull", "shape": 0.7, "scale_s": 86400},
     "join_interval": {"distribution": "exponential", "mean_s": 60}, "start_s": 5, "stop_s": 50}])"));
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  const ChurnProcess& c = *p.cfg.churn;
  EXPECT_FALSE(c.graceful);
  EXPECT_EQ(c.start, SimTime::from_seconds(5));
  EXPECT_EQ(*c.stop, SimTime::from_seconds(50));
  EXPECT_EQ(p.cfg.churn_entry, 1u);
}

TEST(ChurnConfig, EveryProblemAtItsPath) {
  auto problems = [](const char* text) { return parse_faults(json::parse(text)).problems(); };
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0]}])"),
            std::vector<std::string>{
                "$.faults[0]: churn needs 'mean_session_s' or 'session' (leaves), or "
                "'mean_join_interval_s' or 'join_interval' (joins), or both"});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0, 1], "spare_nodes": [1, 2],
                          "mean_session_s": 10}])"),
            std::vector<std::string>{"$.faults[0].spare_nodes: expected spare nodes disjoint "
                                     "from nodes, but node 1 is in both"});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0], "mean_join_interval_s": 10}])"),
            std::vector<std::string>{"$.faults[0].spare_nodes: joins need free slots: give "
                                     "spare_nodes, or a session law so that leavers free theirs"});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0], "mean_session_s": 10,
                          "leave": "politely"}])"),
            std::vector<std::string>{"$.faults[0].leave: expected one of \"graceful\", "
                                     "\"crash\", got the string \"politely\""});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0], "mean_session_s": -1}])"),
            std::vector<std::string>{"$.faults[0].mean_session_s: expected a number > 0 and <= "
                                     "1000000000, got -1"});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0], "mean_session_s": 10},
                         {"kind": "churn", "nodes": [1], "mean_session_s": 10}])"),
            std::vector<std::string>{
                "$.faults[1].kind: at most one churn entry (the first is $.faults[0])"});
  EXPECT_EQ(problems(R"([{"kind": "churn", "nodes": [0], "spare_nodes": [2],
                          "mean_session_s": 10},
                         {"kind": "crash_process", "nodes": [2, 3], "mean_up_s": 100}])"),
            std::vector<std::string>{
                "$.faults: node 2 is a churn slot ($.faults[0]) and also named by a "
                "crash_process; churn slots may not take other crashes or recoveries"});
}

TEST(ChurnConfig, EventRateBudgetCountsEverySlot) {
  // 4 slots leaving every 10 ns is 4e8 events/s, over the budget.
  const auto p = parse_faults(json::parse(R"([{"kind": "churn", "nodes": [0, 1],
    "spare_nodes": [2, 3], "mean_session_s": 1e-8}])"));
  ASSERT_FALSE(p.diag.ok());
  EXPECT_NE(p.problems().front().find("$.faults[0].mean_session_s"), std::string::npos);
  EXPECT_NE(p.problems().front().find("slots 4"), std::string::npos) << p.problems().front();
}

// Records what the driver tells the model, with the host state it sees.
struct Recording : ChurnParticipant {
  Simulator& sim;
  net::Hosts& hosts;
  std::vector<std::string> calls;
  Recording(Simulator& s, net::Hosts& h) : sim(s), hosts(h) {}
  void add(const char* what, NodeId n) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.0f %s %u inc %u %s", sim.now().seconds(), what, n,
                  hosts.incarnation(n), hosts.is_crashed(n) ? "down" : "up");
    calls.push_back(buf);
  }
  void churn_absent(NodeId n) override { add("absent", n); }
  void churn_leave(NodeId n, bool graceful) override { add(graceful ? "leave" : "crash", n); }
  void churn_join(NodeId n) override { add("join", n); }
};

struct ChurnWorld {
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  Recording rec;
  FaultsConfig cfg;
  FaultInjector injector;
  ChurnWorld(size_t n, FaultsConfig c)
      : hosts(sim, n),
        net(sim, hosts, RngFactory(1, 0), net::NetworkConfig{}),
        world{sim, hosts, net, RngFactory(1, 0), SimTime::zero(), SimTime::from_seconds(1e6)},
        rec(sim, hosts),
        cfg(std::move(c)),
        injector(world, cfg) {
    injector.set_churn_participant(&rec);
    injector.start();
  }
};

ChurnProcess fixed(double session_s, double join_s) {
  ChurnProcess p;
  if (session_s > 0) p.session = Lifetime::empirical({session_s});
  if (join_s > 0) p.join = Lifetime::empirical({join_s});
  p.stream = "faults.churn";
  return p;
}

TEST(ChurnDriver, ExactScheduleOfLeavesAndJoins) {
  // Slots 0, 1 present and 2, 3 spare; sessions 10 s, a join every 4 s, until 30 s.
  FaultsConfig f;
  f.churn = fixed(10, 4);
  f.churn->nodes = {0, 1};
  f.churn->spare = {2, 3};
  f.churn->stop = SimTime::from_seconds(30);
  ChurnWorld w(5, f);
  EXPECT_TRUE(w.hosts.is_crashed(2));
  EXPECT_TRUE(w.hosts.is_crashed(3));
  w.sim.run_until(SimTime::from_seconds(100));
  // (The participant hears of a join before the host comes up, so it sees the old
  // incarnation; Hosts::recover then adds one.) Joins at 4, 8 take the spares 2, 3; at 10
  // both originals leave; the join at 12 takes 0 (the lowest free slot), 2 leaves at 14, the
  // join at 16 takes 1, 3 leaves at 18, the join at 20 takes 2, 0 leaves at 22, the join at
  // 24 takes 0, 1 leaves at 26, the join at 28 takes 1; the join due at 32 and the leaves
  // due at or after stop (2 at 30, 0 at 34, 1 at 38) do not happen. Slot 4 is no churn slot.
  EXPECT_EQ(w.rec.calls, (std::vector<std::string>{
                             "0 absent 2 inc 0 up", "0 absent 3 inc 0 up",
                             "4 join 2 inc 0 down", "8 join 3 inc 0 down",
                             "10 leave 0 inc 0 up", "10 leave 1 inc 0 up",
                             "12 join 0 inc 0 down", "14 leave 2 inc 1 up",
                             "16 join 1 inc 0 down", "18 leave 3 inc 1 up",
                             "20 join 2 inc 1 down", "22 leave 0 inc 1 up",
                             "24 join 0 inc 1 down", "26 leave 1 inc 1 up",
                             "28 join 1 inc 1 down"}));
  EXPECT_FALSE(w.hosts.is_crashed(4));
  EXPECT_EQ(w.hosts.incarnation(4), 0u);
}

TEST(ChurnDriver, JoinWithNoFreeSlotIsSkippedAndCrashLeavesSayCrash) {
  FaultsConfig f;
  f.churn = fixed(5, 2);
  f.churn->nodes = {0};
  f.churn->graceful = false;
  f.churn->stop = SimTime::from_seconds(9);
  ChurnWorld w(2, f);
  w.sim.run_until(SimTime::from_seconds(100));
  // Joins at 2, 4 find no free slot; 0 leaves (crash) at 5; the join at 6 takes it; its
  // session would end at 11 >= stop; the join at 8 finds no slot.
  EXPECT_EQ(w.rec.calls,
            (std::vector<std::string>{"5 crash 0 inc 0 up", "6 join 0 inc 0 down"}));
  EXPECT_FALSE(w.hosts.is_crashed(0));
  EXPECT_EQ(w.hosts.incarnation(0), 1u);
}

}  // namespace
}  // namespace fdsim::faults
