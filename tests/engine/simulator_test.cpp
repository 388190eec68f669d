// The engine's contract: (time, sequence) order, O(1) cancel, run bounds, counters, fingerprint.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/internal_error.h"
#include "sim/engine/simulator.h"

namespace fdsim {
namespace {

TEST(Simulator, EventsRunInTimeOrderThenSchedulingOrder) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  std::vector<int> order;
  sim.schedule_at(SimTime::from_ns(30), k, 0, [&] { order.push_back(3); });
  sim.schedule_at(SimTime::from_ns(10), k, 0, [&] { order.push_back(1); });
  sim.schedule_at(SimTime::from_ns(20), k, 0, [&] { order.push_back(21); });
  sim.schedule_at(SimTime::from_ns(20), k, 0, [&] { order.push_back(22); });
  sim.schedule_at(SimTime::from_ns(20), k, 0, [&] { order.push_back(23); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 21, 22, 23, 3}));
  EXPECT_EQ(sim.now(), SimTime::from_ns(30));
  EXPECT_EQ(sim.events_dispatched(), 5u);
}

TEST(Simulator, SameTimeEventsScheduledFromCallbacksRunAfterEarlierScheduledOnes) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  std::vector<int> order;
  sim.schedule_at(SimTime::from_ns(5), k, 0, [&] {
    order.push_back(1);
    sim.schedule_after(Duration::zero(), k, 0, [&] { order.push_back(3); });
  });
  sim.schedule_at(SimTime::from_ns(5), k, 0, [&] { order.push_back(2); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(Simulator, CancelPreventsDispatchAndIsIdempotent) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  int ran = 0;
  EventId a = sim.schedule_after(Duration::ms(1), k, 0, [&] { ran += 1; });
  EventId b = sim.schedule_after(Duration::ms(2), k, 0, [&] { ran += 10; });
  EXPECT_TRUE(sim.pending(a));
  EXPECT_EQ(sim.queue_size(), 2u);
  EXPECT_TRUE(sim.cancel(a));
  EXPECT_FALSE(sim.cancel(a));
  EXPECT_FALSE(sim.pending(a));
  EXPECT_EQ(sim.queue_size(), 1u);
  sim.run();
  EXPECT_EQ(ran, 10);
  EXPECT_FALSE(sim.cancel(b));  // already ran
  EXPECT_EQ(sim.events_dispatched(), 1u);
}

TEST(Simulator, StaleHandleDoesNotCancelTheEventReusingItsSlot) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  int ran = 0;
  EventId a = sim.schedule_after(Duration::ms(1), k, 0, [&] { ran += 1; });
  sim.cancel(a);
  EventId b = sim.schedule_after(Duration::ms(1), k, 0, [&] { ran += 10; });
  EXPECT_EQ(a.slot, b.slot);  // the slot is reused ...
  EXPECT_FALSE(sim.cancel(a));  // ... but the old handle no longer refers to anything
  sim.run();
  EXPECT_EQ(ran, 10);
}

TEST(Simulator, MassCancellationKeepsQueueConsistent) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  std::vector<EventId> ids;
  int ran = 0;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(sim.schedule_at(SimTime::from_ns(1000 - i), k, 0, [&] { ++ran; }));
  for (int i = 0; i < 1000; ++i)
    if (i % 10 != 0) sim.cancel(ids[i]);
  EXPECT_EQ(sim.queue_size(), 100u);
  int64_t last = -1;
  bool ordered = true;
  sim.schedule_at(SimTime::from_ns(0), k, 0, [] {});
  while (sim.queue_size() > 0) {
    const SimTime next = sim.next_event_time();
    ordered &= next.count_ns() >= last;
    last = next.count_ns();
    sim.run_until(next);
  }
  EXPECT_TRUE(ordered);
  EXPECT_EQ(ran, 100);
}

TEST(Simulator, RunUntilStopsAtHorizonInclusiveAndAdvancesClock) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  std::vector<int64_t> times;
  for (int i = 1; i <= 5; ++i)
    sim.schedule_at(SimTime::from_ns(i * 10), k, 0, [&] { times.push_back(sim.now().count_ns()); });
  sim.run_until(SimTime::from_ns(30));
  EXPECT_EQ(times, (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(sim.now(), SimTime::from_ns(30));
  sim.run_until(SimTime::from_ns(45));
  EXPECT_EQ(sim.now(), SimTime::from_ns(45));
  EXPECT_EQ(times.size(), 4u);
  EXPECT_EQ(sim.queue_size(), 1u);
}

TEST(Simulator, StopReturnsAfterCurrentEvent) {
  Simulator sim;
  const EventKind k = sim.kind("test");
  int ran = 0;
  sim.schedule_after(Duration::ms(1), k, 0, [&] {
    ++ran;
    sim.stop();
  });
  sim.schedule_after(Duration::ms(2), k, 0, [&] { ++ran; });
  sim.run();
  EXPECT_EQ(ran, 1);
  sim.run();
  EXPECT_EQ(ran, 2);
}

TEST(Simulator, CountsPerKindAndPeakQueue) {
  Simulator sim;
  const EventKind a = sim.kind("a");
  const EventKind b = sim.kind("b");
  EXPECT_EQ(sim.kind("a"), a);
  for (int i = 0; i < 3; ++i) sim.schedule_after(Duration::ms(i), a, 0, [] {});
  for (int i = 0; i < 2; ++i) sim.schedule_after(Duration::ms(i), b, 1, [] {});
  EXPECT_EQ(sim.peak_queue_size(), 5u);
  sim.run();
  EXPECT_EQ(sim.kind_counts()[a].dispatched, 3u);
  EXPECT_EQ(sim.kind_counts()[b].dispatched, 2u);
  EXPECT_EQ(sim.kind_counts()[b].name, "b");
  EXPECT_EQ(sim.peak_queue_size(), 5u);
  EXPECT_EQ(sim.queue_size(), 0u);
}

TEST(SimulatorDeathTest, SchedulingInThePastAborts) {
  Simulator sim;
  const EventKind k = sim.kind("late");
  sim.schedule_at(SimTime::from_ns(100), k, 3, [] {});
  sim.run();
  EXPECT_INTERNAL_ERROR(sim.schedule_at(SimTime::from_ns(50), k, 3, [] {}), "before now");
}

// Fingerprint: equal for identical event sequences, different when time, kind or node differ.
uint64_t fingerprint_of(int64_t t2, const char* kind2, NodeId node2) {
  Simulator sim;
  sim.schedule_at(SimTime::from_ns(10), sim.kind("x"), 1, [] {});
  sim.schedule_at(SimTime::from_ns(t2), sim.kind(kind2), node2, [] {});
  sim.run();
  return sim.fingerprint();
}

TEST(Simulator, FingerprintDependsOnTimeKindAndNode) {
  const uint64_t base = fingerprint_of(20, "y", 2);
  EXPECT_EQ(base, fingerprint_of(20, "y", 2));
  EXPECT_NE(base, fingerprint_of(21, "y", 2));
  EXPECT_NE(base, fingerprint_of(20, "z", 2));
  EXPECT_NE(base, fingerprint_of(20, "y", 3));
}

TEST(Simulator, CancelledEventsAreNotFingerprinted) {
  Simulator a, b;
  a.schedule_at(SimTime::from_ns(10), a.kind("x"), 1, [] {});
  b.schedule_at(SimTime::from_ns(10), b.kind("x"), 1, [] {});
  EventId extra = b.schedule_at(SimTime::from_ns(15), b.kind("x"), 1, [] {});
  b.cancel(extra);
  a.run();
  b.run();
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
}

TEST(Simulator, TwoInstancesAreIndependent) {
  Simulator a, b;
  int ra = 0, rb = 0;
  a.schedule_after(Duration::ms(5), a.kind("x"), 0, [&] { ++ra; });
  b.schedule_after(Duration::ms(7), b.kind("x"), 0, [&] { ++rb; });
  a.run();
  EXPECT_EQ(ra, 1);
  EXPECT_EQ(rb, 0);
  EXPECT_EQ(b.now(), SimTime::zero());
  b.run();
  EXPECT_EQ(b.now(), SimTime::from_ns(7'000'000));
}

}  // namespace
}  // namespace fdsim
