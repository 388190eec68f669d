// FaultInjector: every scheduled fault kind, from parsed JSON, drives hosts and network at the
// right instants; faults compose (no double crash, merged pauses).
#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/trace.h"
#include "tests/faults/faults_fixture.h"

namespace fdsim::faults {
namespace {

using nlohmann::json;
using testing_support::FaultWorld;
using testing_support::parse_faults;

FaultsConfig parsed(const char* text, size_t nodes = 4) {
  const auto p = parse_faults(json::parse(text), nodes);
  EXPECT_TRUE(p.diag.ok()) << (p.diag.ok() ? "" : p.problems().front());
  return p.cfg;
}

TEST(FaultInjector, CrashAndRecover_NoDoubleCrashAndRecoverOfAnUpNodeIsANoOp) {
  FaultWorld w(3, parsed(R"([
    {"kind": "crash", "at_s": 1, "nodes": [0, 1]},
    {"kind": "crash", "at_s": 2, "nodes": [0]},
    {"kind": "recover", "at_s": 3, "nodes": "all"},
    {"kind": "recover", "at_s": 4, "nodes": [0]}
  ])", 3));
  w.sim.run();
  EXPECT_EQ(w.timeline.events,
            (std::vector<std::string>{"1.000 crash 0", "1.000 crash 1", "3.000 recover 0",
                                      "3.000 recover 1"}));
  EXPECT_EQ(w.hosts.incarnation(0), 1u);
  EXPECT_EQ(w.hosts.incarnation(2), 0u);
}

TEST(FaultInjector, Pause_DefersTheNodesTimersUntilItEnds) {
  FaultWorld w(2, parsed(R"([{"kind": "pause", "at_s": 1, "duration_ms": 250, "nodes": [1]}])", 2));
  double ran_at = -1;
  w.hosts.schedule_at(1, SimTime::from_seconds(1.1), w.sim.kind("timer"),
                      [&] { ran_at = w.sim.now().seconds(); });
  w.sim.run();
  EXPECT_EQ(w.timeline.events, (std::vector<std::string>{"1.000 pause 1", "1.250 resume 1"}));
  EXPECT_DOUBLE_EQ(ran_at, 1.25);
}

TEST(FaultInjector, OverlappingPausesMergeIntoOneEndingAtTheLatestEnd) {
  FaultWorld w(1, parsed(R"([
    {"kind": "pause", "at_s": 1, "duration_ms": 500, "nodes": [0]},
    {"kind": "pause", "at_s": 1.2, "duration_ms": 100, "nodes": [0]},
    {"kind": "pause", "at_s": 1.4, "duration_ms": 400, "nodes": [0]}
  ])", 1));
  w.sim.run();
  EXPECT_EQ(w.timeline.events, (std::vector<std::string>{"1.000 pause 0", "1.800 resume 0"}));
}

TEST(FaultInjector, CrashDuringPauseEndsItAndAPauseOfACrashedNodeIsIgnored) {
  FaultWorld w(1, parsed(R"([
    {"kind": "pause", "at_s": 1, "duration_s": 1, "nodes": [0]},
    {"kind": "crash", "at_s": 1.5, "nodes": [0]},
    {"kind": "pause", "at_s": 1.6, "duration_s": 1, "nodes": [0]},
    {"kind": "recover", "at_s": 1.7, "nodes": [0]}
  ])", 1));
  w.sim.run();
  EXPECT_EQ(w.timeline.events,
            (std::vector<std::string>{"1.000 pause 0", "1.500 crash 0", "1.700 recover 0"}));
  EXPECT_TRUE(w.hosts.is_running(0));
}

TEST(FaultInjector, SickAndPlayDead_WithAndWithoutDuration) {
  FaultWorld w(3, parsed(R"([
    {"kind": "sick", "at_s": 1, "duration_s": 2, "nodes": [0]},
    {"kind": "sick", "at_s": 2, "duration_s": 2, "nodes": [0]},
    {"kind": "play_dead", "at_s": 1, "duration_ms": 500, "nodes": [1]},
    {"kind": "play_dead", "at_s": 1, "nodes": [2]}
  ])", 3));
  w.sim.run_until(SimTime::from_seconds(100));
  EXPECT_EQ(w.timeline.events,
            (std::vector<std::string>{"1.000 sick 0", "1.000 play_dead 1", "1.000 play_dead 2",
                                      "1.500 play_dead_end 1", "4.000 sick_end 0"}));
  EXPECT_TRUE(w.hosts.is_play_dead(2));
}

TEST(FaultInjector, Partition_CutsBetweenStartAndHeal) {
  FaultWorld w(4, parsed(R"([
    {"kind": "partition", "at_s": 1, "heal_at_s": 2, "a": "left", "b": "right"},
    {"kind": "partition", "at_s": 3, "a": [0], "b": [1], "one_way": true}
  ])"));
  std::vector<std::string> seen;
  for (double t : {0.5, 1.5, 2.5, 3.5})
    w.at_s(t, [&, t] {
      seen.push_back(std::to_string(int(t * 10)) + ":" + std::to_string(w.net.cut(0, 2)) +
                     std::to_string(w.net.cut(2, 0)) + std::to_string(w.net.cut(0, 1)) +
                     std::to_string(w.net.cut(1, 0)));
    });
  w.sim.run();
  EXPECT_EQ(seen, (std::vector<std::string>{"5:0000", "15:1100", "25:0000", "35:0010"}));
}

TEST(FaultInjector, LossBurst_DropsOnlyOnItsLinksDuringItsWindow) {
  FaultWorld w(3, parsed(R"([{"kind": "loss_burst", "at_s": 1, "duration_s": 1, "from": [0],
                              "to": [1], "loss": 1.0}])", 3));
  const net::MsgType t = w.net.type("m");
  std::vector<std::string> got;
  for (double s : {0.5, 1.5, 2.5})
    w.at_s(s, [&, s] {
      w.net.send_unreliable(0, 1, t, 1, [&, s] { got.push_back("0->1@" + std::to_string(int(s * 10))); });
      w.net.send_unreliable(0, 2, t, 1, [&, s] { got.push_back("0->2@" + std::to_string(int(s * 10))); });
    });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<std::string>{"0->1@5", "0->2@5", "0->2@15", "0->1@25", "0->2@25"}));
}

TEST(FaultInjector, DelaySpike_AddsItsExtraDelayDuringItsWindow) {
  FaultWorld w(2, parsed(R"([{"kind": "delay_spike", "at_s": 1, "duration_s": 1, "extra_ms": 40}])", 2));
  const net::MsgType t = w.net.type("m");
  std::vector<double> delays_ms;
  for (double s : {0.5, 1.5, 2.5})
    w.at_s(s, [&] {
      const SimTime sent = w.sim.now();
      w.net.send_unreliable(0, 1, t, 1, [&, sent] { delays_ms.push_back((w.sim.now() - sent).millis()); });
    });
  w.sim.run();
  EXPECT_EQ(delays_ms, (std::vector<double>{1, 41, 1}));  // default latency: constant 1 ms
}

struct Sink : TraceSink {
  std::vector<std::string> kinds;
  void record(SimTime, NodeId, std::string_view kind, const nlohmann::json&) override {
    kinds.emplace_back(kind);
  }
};

TEST(FaultInjector, TracesEveryStateChangeThatHappens) {
  const FaultsConfig cfg = parsed(R"([
    {"kind": "crash", "at_s": 1, "nodes": [0]},
    {"kind": "crash", "at_s": 2, "nodes": [0]},
    {"kind": "partition", "at_s": 3, "heal_at_s": 4, "a": [1]}
  ])");
  Simulator sim;
  Sink sink;
  sim.set_trace(&sink);
  net::Hosts hosts(sim, 4);
  net::Network net(sim, hosts, RngFactory(1, 0), net::NetworkConfig{});
  World world{sim, hosts, net, RngFactory(1, 0), SimTime::zero(), SimTime::from_seconds(10)};
  FaultInjector inj(world, cfg);
  inj.start();
  sim.run();
  EXPECT_EQ(sink.kinds, (std::vector<std::string>{"crash", "partition", "heal"}));
}

}  // namespace
}  // namespace fdsim::faults
