#pragma once
// A run's budget: the memory and the work one simulation may use, enforced while it runs.
//
// Contract:
// - A RunBudget is created on the thread that runs one simulation and is that thread's active
//   budget until it is destroyed (budgets nest: the previous one is restored). It measures
//   - memory: heap bytes held by the thread above the baseline at its creation
//     (heap_account.h; not enforced when the program does not count its heap);
//   - work: events the simulator dispatched plus work units charged with charge_work() by code
//     that does work inside one event that is not an event (a batch of tasks created at one
//     instant, a scan of a queue, a table built at the end of the run): one unit is about the
//     cost of one event.
// - check() (called by the run layer every kStallCheckEveryEvents events, and by
//   charge_work() every kChargeCheckEvery units) throws BudgetExceeded when a limit is
//   crossed, and Interrupted (interrupt.h) when SIGINT/SIGTERM arrived. Both are thrown at safe
//   points only (between events, or inside a model's loop that charges work), never from
//   operator new, so the run unwinds and no partial result is written.
// - charge_work() without an active budget still polls for interrupts, so any long loop (a
//   reader, a grid expansion, an exit-time table) that charges its iterations stops within
//   milliseconds of a signal.
// - BudgetExceeded::what() is the one line the CLI prints (exit 2): "memory budget exceeded:
//   4.1 GB > 2.0 GB (2 x the estimate + 64 MB) at simulated time 61.3 s; validation estimated
//   18 kB per simulation; ...how to raise it". The budget is input-dependent, not a bug:
//   exit 2, a sweep point failed with that reason.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fdsim {

class Simulator;

struct BudgetLimits {
  double memory_bytes = std::numeric_limits<double>::infinity();  // heap above the baseline
  double work_units = std::numeric_limits<double>::infinity();    // events + charged units
  // What set each limit, for the message ("2 x the estimate + 64 MB", "--max-memory-gb", "the
  // environment's share"); static strings.
  const char* memory_origin = "";
  const char* work_origin = "";
};

// What validation estimated (for the message only).
struct BudgetEstimate {
  double memory_bytes = 0;
  double work_units = 0;
};

struct BudgetExceeded : std::runtime_error {
  explicit BudgetExceeded(const std::string& line) : std::runtime_error(line) {}
};

inline constexpr uint64_t kChargeCheckEvery = 4096;

class RunBudget {
 public:
  // `sim` may be null (a budget outside a simulation: work is then charged units only).
  // `source` names the input (the scenario file) for the out-of-memory line; it must outlive
  // the budget.
  RunBudget(const Simulator* sim, const BudgetLimits& limits, const BudgetEstimate& estimate,
            std::string_view source = {});
  ~RunBudget();
  RunBudget(const RunBudget&) = delete;
  RunBudget& operator=(const RunBudget&) = delete;

  // Throws Interrupted or BudgetExceeded (see above).
  void check();
  // Events dispatched plus units charged so far.
  double work_units() const;
  // Heap bytes above the baseline: now, and the peak so far (0 when not counted).
  int64_t memory_bytes() const;
  int64_t peak_memory_bytes() const;
  const BudgetLimits& limits() const { return limits_; }

  // The calling thread's active budget, or null.
  static RunBudget* active();
  // For the out-of-memory handler: writes into buf (NUL-terminated, at most n bytes) the
  // line's start: "<source>: run budget exceeded: memory: an allocation failed at simulated
  // time 12.5 s with 3.1 GB held by the simulation (validation estimated 1.8e-05 GB per
  // simulation)", or "fdsim: ... failed while not simulating, ..." without an active budget.
  // Allocates nothing.
  static void describe_for_out_of_memory(char* buf, size_t n) noexcept;

 private:
  friend void charge_work(uint64_t units);
  [[noreturn]] void exceeded(const char* what, double reached, double budget, double estimate,
                             const char* origin) const;

  const Simulator* sim_;
  BudgetLimits limits_;
  BudgetEstimate estimate_;
  std::string_view source_;
  int64_t heap_base_ = 0;
  int64_t saved_peak_ = 0;
  int64_t saved_limit_ = 0;
  bool saved_over_ = false;
  uint64_t charged_ = 0;
  RunBudget* previous_ = nullptr;
};

// Charges `units` of work to the thread's active budget (if any) and, every kChargeCheckEvery
// units, checks it (or, without a budget, polls for interrupts). Cheap enough for inner loops.
void charge_work(uint64_t units = 1);

// "4.1 GB" / "380 MB" / "12 kB" (as the cost estimate prints them).
std::string budget_bytes_text(double bytes);

}  // namespace fdsim
