// The run budget in the engine (sim/engine/budget.h): work is events plus charged units, the
// check throws BudgetExceeded with the simulated time and the estimate, charge_work polls for
// interrupts without a budget, and budgets nest.

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/engine/budget.h"
#include "sim/engine/heap_account.h"
#include "sim/engine/interrupt.h"
#include "sim/engine/simulator.h"

namespace {

using fdsim::BudgetExceeded;
using fdsim::Duration;
using fdsim::RunBudget;
using fdsim::Simulator;

// A simulator with one event that reschedules itself every millisecond, forever.
struct Ticker {
  Simulator sim;
  std::function<void()> tick;
  explicit Ticker(uint64_t charge_per_event = 0) {
    tick = [this, charge_per_event] {
      if (charge_per_event > 0) fdsim::charge_work(charge_per_event);
      sim.schedule_after(Duration::from_ms(1), sim.kind("tick"), 0, tick);
    };
    sim.schedule_after(Duration::from_ms(1), sim.kind("tick"), 0, tick);
  }
};

TEST(RunBudget, EventsCountAsWorkAndTheCheckNamesTheSimulatedTime) {
  Ticker t;
  fdsim::BudgetLimits limits;
  limits.work_units = 1000;
  limits.work_origin = "--max-events";
  RunBudget budget(&t.sim, limits, {0, 400});
  t.sim.set_progress_hook(100, [&] { budget.check(); });
  try {
    t.sim.run_until(fdsim::SimTime::from_seconds(100));
    FAIL() << "no budget stop";
  } catch (const BudgetExceeded& e) {
    // 1 100 events at the first check past 1 000: simulated time 1.1 s.
    EXPECT_EQ(std::string(e.what()),
              "work budget exceeded: 1.1e+03 events and work units > 1e+03 (--max-events) at "
              "simulated time 1.1 s; validation estimated 400 events per simulation; raise it "
              "with --max-events");
  }
  EXPECT_EQ(t.sim.events_dispatched(), 1100u);
}

TEST(RunBudget, ChargedWorkInsideEventsStopsARunBetweenChecks) {
  // Each event charges 10 000 units: the budget of 1e5 is crossed inside the 10th event, long
  // before any check of the event count would see it.
  Ticker t(10000);
  fdsim::BudgetLimits limits;
  limits.work_units = 1e5;
  RunBudget budget(&t.sim, limits, {});
  EXPECT_THROW(t.sim.run_until(fdsim::SimTime::from_seconds(100)), BudgetExceeded);
  EXPECT_LE(t.sim.events_dispatched(), 11u);
  EXPECT_GE(budget.work_units(), 1e5);
}

TEST(RunBudget, ChargeWorkWithoutABudgetPollsForInterrupts) {
  ASSERT_EQ(RunBudget::active(), nullptr);
  fdsim::install_signal_handlers();
  fdsim::reset_interrupt();
  std::raise(SIGINT);  // sets the flag (and restores the default action)
  EXPECT_THROW(fdsim::charge_work(fdsim::kChargeCheckEvery), fdsim::Interrupted);
  fdsim::reset_interrupt();
  EXPECT_NO_THROW(fdsim::charge_work(fdsim::kChargeCheckEvery));
}

TEST(RunBudget, HeapAboveTheMemoryBudgetStopsAtTheNextCheck) {
  if (!fdsim::heap::enabled()) GTEST_SKIP() << "operator new is not counted in this build";
  fdsim::BudgetLimits limits;
  limits.memory_bytes = 1e6;
  limits.memory_origin = "--max-memory-gb";
  RunBudget budget(nullptr, limits, {5e5, 0});
  std::vector<char> small(100000);
  EXPECT_NO_THROW(fdsim::charge_work(fdsim::kChargeCheckEvery));
  std::vector<char> big(4000000);
  EXPECT_GE(budget.peak_memory_bytes(), 4000000);
  try {
    fdsim::charge_work(fdsim::kChargeCheckEvery);
    FAIL() << "no budget stop";
  } catch (const BudgetExceeded& e) {
    EXPECT_EQ(std::string(e.what()).rfind("memory budget exceeded: 4 MB > 1 MB (--max-memory-gb); "
                                          "validation estimated 500 kB per simulation",
                                          0),
              0u)
        << e.what();
  }
}

TEST(RunBudget, BudgetsNestAndTheOuterOneIsRestored) {
  fdsim::BudgetLimits outer_limits;
  outer_limits.work_units = 1e9;
  RunBudget outer(nullptr, outer_limits, {});
  EXPECT_EQ(RunBudget::active(), &outer);
  {
    fdsim::BudgetLimits inner_limits;
    inner_limits.work_units = 10;
    RunBudget inner(nullptr, inner_limits, {});
    EXPECT_EQ(RunBudget::active(), &inner);
    EXPECT_THROW(fdsim::charge_work(fdsim::kChargeCheckEvery), BudgetExceeded);
  }
  EXPECT_EQ(RunBudget::active(), &outer);
  EXPECT_NO_THROW(fdsim::charge_work(fdsim::kChargeCheckEvery));
}

}  // namespace
