// Descheduled stalls and inbound delay (sim/net/hosts.h, sim/net/starvation.h modes "stall" and
// "inbound_delay"): hand-derived traces. Links are a constant 1 ms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/net/starvation.h"
#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::NetWorld;

// Node 0 stalled from 0 to 100 ms. Messages from node 1 sent at 10, 20, 30 ms arrive at 11,
// 21, 31; node 0's timers are due at 15 and 50 ms (during the stall) and at 103 ms (during the
// drain); a message sent at 100 ms arrives at 101, behind the held ones.
// Trace, by the contract (timers that came due first, then the held messages at 2 ms each,
// timers on time during the drain):
//   100 t15, 100 t50, 102 m10, 103 t103, 104 m20, 106 m30, 108 m100.
// A plain pause (Hosts::pause/resume) replays in arrival order instead, all at 100:
//   m10 t15 m20 m30 t50, then m100 at 101 and t103 at 103.
std::vector<std::string> stall_trace(bool stall) {
  NetWorld w(2, testing_support::constant_net(1));
  const MsgType t = w.net.type("m");
  const EventKind kt = w.sim.kind("test.timer");
  std::vector<std::string> got;
  auto note = [&](const std::string& what) {
    got.push_back(std::to_string(int(w.now_ms())) + " " + what);
  };
  if (stall) {
    w.hosts.set_timers_on_time(0, true);  // as Starvation does for a stall entry
    w.at_ms(0, [&] { w.hosts.stall(0, 0); });
    w.at_ms(100, [&] { w.hosts.end_stall(0, constant_latency(2), std::make_shared<Rng>(1)); });
  } else {
    w.at_ms(0, [&] { w.hosts.pause(0); });
    w.at_ms(100, [&] { w.hosts.resume(0); });
  }
  for (int at : {10, 20, 30, 100})
    w.at_ms(at, [&, at] {
      w.net.send_unreliable(1, 0, t, 8, [&, at] { note("m" + std::to_string(at)); });
    });
  for (int due : {15, 50, 103})
    w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(due), kt,
                        [&, due] { note("t" + std::to_string(due)); });
  w.sim.run();
  EXPECT_FALSE(w.hosts.is_paused(0));
  EXPECT_FALSE(w.hosts.is_stalled(0));
  return got;
}

TEST(Stall, DueTimersRunFirstThenHeldMessagesDrainAtThePerMessageCost) {
  EXPECT_EQ(stall_trace(true), (std::vector<std::string>{"100 t15", "100 t50", "102 m10", "103 t103",
                                                         "104 m20", "106 m30", "108 m100"}));
  // The pause fault keeps its arrival-order replay.
  EXPECT_EQ(stall_trace(false), (std::vector<std::string>{"100 m10", "100 t15", "100 m20", "100 m30",
                                                          "100 t50", "101 m100", "103 t103"}));
}

TEST(Stall, SocketBufferHoldsAtMostItsBoundAndDropsLaterArrivals) {
  NetWorld w(2, testing_support::constant_net(1));
  const MsgType t = w.net.type("m");
  std::vector<int> got;
  w.at_ms(0, [&] { w.hosts.stall(0, 2); });
  w.at_ms(100, [&] { w.hosts.end_stall(0, constant_latency(1), std::make_shared<Rng>(1)); });
  for (int at : {10, 20, 30, 40, 150})
    w.at_ms(at, [&, at] { w.net.send_unreliable(1, 0, t, 8, [&, at] { got.push_back(at); }); });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<int>{10, 20, 150}));  // 30 and 40 found the buffer full
  EXPECT_EQ(w.hosts.service_stats(0)->dropped_socket, 2u);
  EXPECT_EQ(w.net.type_counts()[t].dropped, 2u);
}

TEST(Stall, ScheduledStallEntryStallsTheNodeForItsWindow) {
  NetworkConfig cfg = testing_support::constant_net(1);
  StarvedEntry e;
  e.nodes = {1};
  e.mode = StarveMode::stall;
  e.service = constant_latency(3);
  e.at = SimTime::zero() + Duration::ms(100);
  e.end = SimTime::zero() + Duration::ms(200);
  cfg.starved.push_back(e);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("m");
  std::vector<double> got;
  std::vector<bool> stalled;
  for (double at : {50.0, 150.0, 160.0, 250.0}) {
    w.at_ms(at, [&] { w.net.send_unreliable(0, 1, t, 8, [&] { got.push_back(w.now_ms()); }); });
    w.at_ms(at, [&] { stalled.push_back(w.hosts.is_stalled(1)); });
  }
  w.sim.run();
  // 151 and 161 are held until 200, then served at 3 ms each; 251 after the drain, at once.
  EXPECT_EQ(got, (std::vector<double>{51, 203, 206, 251}));
  EXPECT_EQ(stalled, (std::vector<bool>{false, true, true, false}));
}

TEST(InboundDelay, DeliveriesAreHandedOverLateWhileTimersRunOnTime) {
  NetworkConfig cfg = testing_support::constant_net(1);
  StarvedEntry e;
  e.nodes = {0};
  e.mode = StarveMode::inbound_delay;
  e.service = constant_latency(50);
  e.at = SimTime::zero();
  e.end = SimTime::zero() + Duration::ms(100);
  cfg.starved.push_back(e);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("m");
  std::vector<std::string> got;
  for (int at : {0, 60, 100})
    w.at_ms(at, [&, at] {
      w.net.send_unreliable(1, 0, t, 8, [&, at] {
        got.push_back(std::to_string(int(w.now_ms())) + " m" + std::to_string(at));
      });
    });
  w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(10), w.sim.kind("test.timer"),
                      [&] { got.push_back(std::to_string(int(w.now_ms())) + " t10"); });
  w.sim.run();
  // m0 arrives at 1, handed over at 51; m60 at 61 -> 111 (arrived inside the window); m100
  // arrives at 101, after the window: at once.
  EXPECT_EQ(got, (std::vector<std::string>{"10 t10", "51 m0", "101 m100", "111 m60"}));
}

// The first message (sent at 0, arriving at 1) draws 50 ms; the model then changes to 5 ms, so
// the second (sent at 10, arriving at 11) draws 5 ms: independent draws hand it over at 16,
// before the first (51); a FIFO lag holds it until the first's hand-over, 51.
TEST(InboundDelay, FifoOrderNeverHandsOverBeforeAnEarlierArrival) {
  for (bool fifo : {false, true}) {
    NetWorld w(2, testing_support::constant_net(1));
    const MsgType t = w.net.type("m");
    std::vector<std::string> got;
    w.hosts.delay_inbound(0, constant_latency(50), std::make_shared<Rng>(1), fifo);
    w.at_ms(5, [&] { w.hosts.delay_inbound(0, constant_latency(5), std::make_shared<Rng>(1), fifo); });
    for (int at : {0, 10})
      w.at_ms(at, [&, at] {
        w.net.send_unreliable(1, 0, t, 8, [&, at] {
          got.push_back(std::to_string(int(w.now_ms())) + " m" + std::to_string(at));
        });
      });
    w.sim.run();
    if (fifo)
      EXPECT_EQ(got, (std::vector<std::string>{"51 m0", "51 m10"}));
    else
      EXPECT_EQ(got, (std::vector<std::string>{"16 m10", "51 m0"}));
  }
}

TEST(InboundDelay, AProbeAnswerReadAfterTheDeadlineTimesOut) {
  for (double delay_ms : {0.0, 10.0, 50.0}) {
    NetWorld w(2, testing_support::constant_net(1));
    const MsgType t = w.net.type("tcp");
    if (delay_ms > 0) w.hosts.delay_inbound(0, constant_latency(delay_ms), std::make_shared<Rng>(1));
    double at = -1;
    ProbeOutcome outcome = ProbeOutcome::refused;
    // The probe from node 1 to node 0 is served late too (it reaches node 0).
    double served = -1;
    w.net.probe(0, 1, Duration::ms(20), t, ProbeBytes{8, 8}, [] { return int64_t(1); },
                [&](ProbeResult r) {
                  at = w.now_ms();
                  outcome = r.outcome;
                });
    w.net.probe(1, 0, Duration::ms(100), t, ProbeBytes{8, 8}, [&] {
      served = w.now_ms();
      return int64_t(1);
    }, [](ProbeResult) {});
    w.sim.run();
    // The answer reaches node 0 at 2 ms and is read 2 + delay ms: answered before the 20 ms
    // deadline; with a later read, timed out at the deadline.
    EXPECT_DOUBLE_EQ(at, delay_ms < 18 ? 2 + delay_ms : 20) << delay_ms;
    EXPECT_EQ(outcome, delay_ms < 18 ? ProbeOutcome::answered : ProbeOutcome::timed_out) << delay_ms;
    EXPECT_DOUBLE_EQ(served, 1 + delay_ms) << delay_ms;
  }
}

}  // namespace
}  // namespace fdsim::net
