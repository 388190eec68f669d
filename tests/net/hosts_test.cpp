// Hosts: node-bound timers under crash, recovery and pause; listeners; idempotent writers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/internal_error.h"
#include "sim/net/hosts.h"

namespace fdsim::net {
namespace {

struct Log {
  std::vector<std::pair<int64_t, std::string>> entries;  // (t in ms, what)
  void add(Simulator& sim, std::string what) {
    entries.push_back({sim.now().count_ns() / 1000000, std::move(what)});
  }
};

struct RecordingListener : HostListener {
  std::vector<std::string> events;
  void on_crash(NodeId n) override { events.push_back("crash " + std::to_string(n)); }
  void on_recover(NodeId n, uint32_t inc) override {
    events.push_back("recover " + std::to_string(n) + " inc " + std::to_string(inc));
  }
  void on_pause(NodeId n) override { events.push_back("pause " + std::to_string(n)); }
  void on_resume(NodeId n) override { events.push_back("resume " + std::to_string(n)); }
  void on_sick(NodeId n, bool s) override {
    events.push_back("sick " + std::to_string(n) + (s ? " on" : " off"));
  }
  void on_play_dead(NodeId n, bool s) override {
    events.push_back("play_dead " + std::to_string(n) + (s ? " on" : " off"));
  }
};

TEST(Hosts, TimersRunAtTheirTimeOnARunningHost) {
  Simulator sim;
  Hosts hosts(sim, 2);
  Log log;
  const EventKind k = sim.kind("t");
  hosts.schedule_after(1, Duration::ms(5), k, [&] { log.add(sim, "a"); });
  hosts.schedule_at(0, SimTime::from_ns(3000000), k, [&] { log.add(sim, "b"); });
  sim.run();
  EXPECT_EQ(log.entries, (decltype(log.entries){{3, "b"}, {5, "a"}}));
  EXPECT_EQ(sim.events_dispatched(), 2u);
}

TEST(Hosts, CrashDropsPendingTimersAndRecoverGivesANewIncarnation) {
  Simulator sim;
  Hosts hosts(sim, 2);
  Log log;
  const EventKind k = sim.kind("t");
  hosts.schedule_after(0, Duration::ms(10), k, [&] { log.add(sim, "old-before-recovery"); });
  hosts.schedule_after(0, Duration::ms(30), k, [&] { log.add(sim, "old-after-recovery"); });
  hosts.schedule_after(1, Duration::ms(10), k, [&] { log.add(sim, "other-node"); });
  sim.schedule_at(SimTime::from_ns(5000000), k, kNoNode, [&] { hosts.crash(0); });
  sim.schedule_at(SimTime::from_ns(20000000), k, kNoNode, [&] {
    hosts.recover(0);
    EXPECT_EQ(hosts.incarnation(0), 1u);
    hosts.schedule_after(0, Duration::ms(15), k, [&] { log.add(sim, "new"); });
  });
  sim.run();
  EXPECT_EQ(log.entries, (decltype(log.entries){{10, "other-node"}, {35, "new"}}));
  EXPECT_TRUE(hosts.is_running(0));
}

TEST(Hosts, RunOnDropsAStaleIncarnation) {
  Simulator sim;
  Hosts hosts(sim, 1);
  const EventKind k = sim.kind("t");
  int ran = 0;
  hosts.crash(0);
  hosts.run_on(0, 0, k, [&] { ++ran; });  // crashed
  hosts.recover(0);
  hosts.run_on(0, 0, k, [&] { ++ran; });  // incarnation 0 is gone
  hosts.run_on(0, 1, k, [&] { ++ran; });  // current
  EXPECT_EQ(ran, 1);
}

TEST(Hosts, PauseDefersTimersAndDeliveriesAndReplaysThemInOrderAtResume) {
  Simulator sim;
  Hosts hosts(sim, 2);
  Log log;
  const EventKind k = sim.kind("t");
  sim.schedule_at(SimTime::from_ns(1000000), k, kNoNode, [&] { hosts.pause(0); });
  hosts.schedule_at(0, SimTime::from_ns(2000000), k, [&] { log.add(sim, "timer@2"); });
  sim.schedule_at(SimTime::from_ns(3000000), k, kNoNode,
                  [&] { hosts.run_on(0, 0, k, [&] { log.add(sim, "msg@3"); }); });
  hosts.schedule_at(0, SimTime::from_ns(4000000), k, [&] { log.add(sim, "timer@4"); });
  hosts.schedule_at(1, SimTime::from_ns(4000000), k, [&] { log.add(sim, "node1@4"); });
  sim.schedule_at(SimTime::from_ns(6000000), k, kNoNode, [&] {
    EXPECT_TRUE(hosts.is_paused(0));
    EXPECT_TRUE(hosts.is_up(0));
    EXPECT_FALSE(hosts.is_running(0));
    hosts.resume(0);
  });
  hosts.schedule_at(0, SimTime::from_ns(7000000), k, [&] { log.add(sim, "timer@7"); });
  sim.run();
  EXPECT_EQ(log.entries, (decltype(log.entries){{4, "node1@4"},
                                                {6, "timer@2"},
                                                {6, "msg@3"},
                                                {6, "timer@4"},
                                                {7, "timer@7"}}));
}

TEST(Hosts, CrashDuringPauseDropsTheQueuedWork) {
  Simulator sim;
  Hosts hosts(sim, 1);
  const EventKind k = sim.kind("t");
  int ran = 0;
  hosts.pause(0);
  hosts.schedule_after(0, Duration::ms(1), k, [&] { ++ran; });
  sim.schedule_at(SimTime::from_ns(2000000), k, kNoNode, [&] { hosts.crash(0); });
  sim.schedule_at(SimTime::from_ns(3000000), k, kNoNode, [&] {
    hosts.resume(0);  // not paused any more: no-op
    hosts.recover(0);
  });
  sim.run();
  EXPECT_EQ(ran, 0);
  EXPECT_TRUE(hosts.is_running(0));
}

TEST(Hosts, ReplayedCallbackThatPausesAgainRequeuesTheRestInOrder) {
  Simulator sim;
  Hosts hosts(sim, 1);
  const EventKind k = sim.kind("t");
  std::vector<int> order;
  hosts.pause(0);
  hosts.run_on(0, 0, k, [&] {
    order.push_back(1);
    hosts.pause(0);  // e.g. a second GC stall right away
  });
  hosts.run_on(0, 0, k, [&] { order.push_back(2); });
  hosts.run_on(0, 0, k, [&] { order.push_back(3); });
  hosts.resume(0);
  EXPECT_EQ(order, (std::vector<int>{1}));
  hosts.run_on(0, 0, k, [&] { order.push_back(4); });
  hosts.resume(0);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
}

TEST(Hosts, CancelledTimersNeverRunAndLeaveNothingPending) {
  Simulator sim;
  Hosts hosts(sim, 1);
  const EventKind k = sim.kind("t");
  int ran = 0;
  for (int i = 0; i < 100000; ++i) {
    const EventId id = hosts.schedule_after(0, Duration::ms(1 + i), k, [&] { ++ran; });
    ASSERT_TRUE(sim.cancel(id));
  }
  EXPECT_EQ(sim.queue_size(), 0u);
  EXPECT_LT(sim.queue_bytes(), size_t(4) << 20);  // tombstones are swept, not kept
  const EventId kept = hosts.schedule_after(0, Duration::ms(1), k, [&] { ++ran; });
  EXPECT_TRUE(sim.pending(kept));
  sim.run();
  EXPECT_EQ(ran, 1);
}

// A timer belongs to the incarnation current when it was scheduled, however close the
// scheduling is to a crash and recovery (the engine's guard compares sequence numbers).
TEST(Hosts, TimersOfAnEarlierIncarnationNeverRunEvenAtTheRecoveryInstant) {
  Simulator sim;
  Hosts hosts(sim, 2);
  const EventKind k = sim.kind("t");
  std::vector<std::string> ran;
  hosts.schedule_at(0, SimTime::from_ns(5), k, [&] { ran.push_back("before crash"); });
  hosts.schedule_at(1, SimTime::from_ns(5), k, [&] { ran.push_back("other host"); });
  sim.schedule_at(SimTime::from_ns(3), k, kNoNode, [&] {
    hosts.schedule_at(0, SimTime::from_ns(5), k, [&] { ran.push_back("same instant, before"); });
    hosts.crash(0);
    hosts.schedule_at(0, SimTime::from_ns(5), k, [&] { ran.push_back("while crashed"); });
    hosts.recover(0);
    hosts.schedule_at(0, SimTime::from_ns(5), k, [&] { ran.push_back("after recovery"); });
  });
  sim.run();
  EXPECT_EQ(ran, (std::vector<std::string>{"other host", "after recovery"}));
}

TEST(Hosts, ListenersSeeOnlyRealTransitions) {
  Simulator sim;
  Hosts hosts(sim, 3);
  RecordingListener l;
  hosts.add_listener(&l);
  hosts.recover(0);  // not crashed: no-op
  hosts.crash(0);
  hosts.crash(0);  // already crashed: no-op
  hosts.pause(0);  // crashed: no-op
  hosts.recover(0);
  hosts.pause(1);
  hosts.pause(1);
  hosts.resume(1);
  hosts.resume(1);
  hosts.set_sick(2, true);
  hosts.set_sick(2, true);
  hosts.set_play_dead(2, true);
  hosts.set_sick(2, false);
  hosts.set_play_dead(2, false);
  EXPECT_EQ(l.events, (std::vector<std::string>{"crash 0", "recover 0 inc 1", "pause 1",
                                                "resume 1", "sick 2 on", "play_dead 2 on",
                                                "sick 2 off", "play_dead 2 off"}));
}

TEST(Hosts, SickAndPlayDeadAreFlagsThatSurviveACrash) {
  Simulator sim;
  Hosts hosts(sim, 1);
  hosts.set_sick(0, true);
  hosts.crash(0);
  hosts.recover(0);
  EXPECT_TRUE(hosts.is_sick(0));
  EXPECT_TRUE(hosts.is_running(0));
}

TEST(Hosts, PerNodeStateIsEightBytes) { EXPECT_EQ(sizeof(HostState), 8u); }

TEST(HostsDeathTest, UnknownNodeAbortsWithTimeAndNode) {
  Simulator sim;
  Hosts hosts(sim, 2);
  EXPECT_INTERNAL_ERROR(hosts.crash(5), "t = 0.000000000s.*node 5");
}

}  // namespace
}  // namespace fdsim::net
