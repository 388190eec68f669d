// The stall guard (sim/run/stall_guard.h): a simulation whose time stops advancing ends with an
// error naming the instant and the event kinds, instead of running forever.

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "sim/engine/simulator.h"
#include "sim/run/stall_guard.h"

namespace fdsim::run {
namespace {

// Runs `sim` to `horizon` with the guard checked as run_simulation checks it.
void run_guarded(Simulator& sim, SimTime horizon) {
  StallGuard guard(sim);
  sim.set_progress_hook(kStallCheckEveryEvents, [&guard] { guard.check(); });
  sim.run_until(horizon);
}

TEST(StallGuard, AnEventThatReschedulesItselfAtTheSameInstantIsStopped) {
  Simulator sim;
  const EventKind spin = sim.kind("test.spin");
  const EventKind tick = sim.kind("test.tick");
  std::function<void()> again;
  again = [&] { sim.schedule_at(sim.now(), spin, 0, again); };
  std::function<void()> ticking;
  ticking = [&] { sim.schedule_after(Duration::from_ms(1), tick, 1, ticking); };
  sim.schedule_at(SimTime::from_seconds(0), tick, 1, ticking);
  sim.schedule_at(SimTime::from_seconds(0.5), spin, 0, again);
  try {
    run_guarded(sim, SimTime::from_seconds(10));
    FAIL() << "expected the stall guard to stop the run";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("simulated time stuck at 0.500000000s for ", 0), 0u) << what;
    EXPECT_NE(what.find(": test.spin "), std::string::npos) << what;
    EXPECT_EQ(what.find("test.tick"), std::string::npos) << what;  // not dispatched in the stall
  }
  EXPECT_EQ(sim.now(), SimTime::from_seconds(0.5));
}

TEST(StallGuard, ABusyButAdvancingRunIsLeftAlone) {
  // 20 million events, each 1 ns after the previous: more events than the stall limit, but
  // time always moves.
  Simulator sim;
  const EventKind step = sim.kind("test.step");
  std::function<void()> next;
  next = [&] { sim.schedule_after(Duration::ns(1), step, 0, next); };
  sim.schedule_at(SimTime::zero(), step, 0, next);
  EXPECT_NO_THROW(run_guarded(sim, SimTime::from_ns(20'000'000)));
  EXPECT_GT(sim.events_dispatched(), kStallEvents);
}

}  // namespace
}  // namespace fdsim::run
