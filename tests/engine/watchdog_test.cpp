#include <gtest/gtest.h>

#include <vector>

#include "sim/engine/watchdog.h"

namespace fdsim {
namespace {

TEST(Watchdog, FiresOnceAtLatestDeadlineWithOnePendingEvent) {
  Simulator sim;
  std::vector<int64_t> fired;
  Watchdog w(sim, sim.kind("wd"), 0, [&] { fired.push_back(sim.now().count_ns()); });
  w.arm(SimTime::from_ns(100));
  // Pushing the deadline later costs no new event.
  const auto scheduled_before = sim.events_scheduled();
  for (int i = 1; i <= 50; ++i) w.arm(SimTime::from_ns(100 + i * 10));
  EXPECT_EQ(sim.events_scheduled(), scheduled_before);
  EXPECT_EQ(sim.queue_size(), 1u);
  sim.run();
  EXPECT_EQ(fired, (std::vector<int64_t>{600}));
  EXPECT_FALSE(w.armed());
  // The early event re-armed once: 2 dispatched events in total.
  EXPECT_EQ(sim.events_dispatched(), 2u);
}

TEST(Watchdog, MovingDeadlineEarlierReschedules) {
  Simulator sim;
  std::vector<int64_t> fired;
  Watchdog w(sim, sim.kind("wd"), 0, [&] { fired.push_back(sim.now().count_ns()); });
  w.arm(SimTime::from_ns(1000));
  w.arm(SimTime::from_ns(300));
  sim.run();
  EXPECT_EQ(fired, (std::vector<int64_t>{300}));
}

TEST(Watchdog, DisarmPreventsExpiry) {
  Simulator sim;
  int fired = 0;
  Watchdog w(sim, sim.kind("wd"), 0, [&] { ++fired; });
  w.arm(SimTime::from_ns(10));
  w.disarm();
  sim.run();
  EXPECT_EQ(fired, 0);
  w.arm(SimTime::from_ns(20));
  sim.run();
  EXPECT_EQ(fired, 1);
}

TEST(Watchdog, HeartbeatTimeoutPattern) {
  // Heartbeats every 1 s touch a 3 s timeout; they stop after t = 10 s: expiry at 13 s.
  Simulator sim;
  const EventKind hb = sim.kind("hb");
  int64_t expired_at = -1;
  Watchdog w(sim, sim.kind("wd"), 0, [&] { expired_at = sim.now().count_ns(); });
  for (int i = 0; i <= 10; ++i)
    sim.schedule_at(SimTime::zero() + Duration::s(i), hb, 0, [&] { w.arm_after(Duration::s(3)); });
  sim.run();
  EXPECT_EQ(expired_at, Duration::s(13).count_ns());
}

}  // namespace
}  // namespace fdsim
