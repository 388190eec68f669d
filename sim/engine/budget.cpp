#include "sim/engine/budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/engine/heap_account.h"
#include "sim/engine/interrupt.h"
#include "sim/engine/simulator.h"

namespace fdsim {

namespace {
constinit thread_local RunBudget* t_active = nullptr;
constinit thread_local uint64_t t_since_check = 0;

std::string events_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

std::string budget_bytes_text(double bytes) {
  if (!std::isfinite(bytes)) return "unlimited";
  char buf[64];
  if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.0f kB", bytes / 1e3);
  return buf;
}

RunBudget::RunBudget(const Simulator* sim, const BudgetLimits& limits,
                     const BudgetEstimate& estimate, std::string_view source)
    : sim_(sim), limits_(limits), estimate_(estimate), source_(source) {
  heap::ThreadHeap& h = heap::t_thread_heap;
  heap_base_ = h.bytes;
  saved_peak_ = h.peak;
  saved_limit_ = h.limit;
  saved_over_ = h.over;
  h.peak = h.bytes;
  h.over = false;
  if (std::isfinite(limits_.memory_bytes) && limits_.memory_bytes < 9e18) {
    h.limit = heap_base_ + int64_t(limits_.memory_bytes);
  }
  previous_ = t_active;
  t_active = this;
}

RunBudget::~RunBudget() {
  heap::ThreadHeap& h = heap::t_thread_heap;
  if (saved_peak_ > h.peak) h.peak = saved_peak_;
  h.limit = saved_limit_;
  h.over = saved_over_;
  t_active = previous_;
}

RunBudget* RunBudget::active() { return t_active; }

void RunBudget::describe_for_out_of_memory(char* buf, size_t n) noexcept {
  if (n == 0) return;
  const RunBudget* b = t_active;
  const int source_len = b != nullptr ? int(std::min<size_t>(b->source_.size(), 200)) : 0;
  const char* source = b != nullptr ? b->source_.data() : "";
  const char* sep = source_len > 0 ? ": " : "fdsim: ";
  if (b == nullptr || b->sim_ == nullptr) {
    std::snprintf(buf, n,
                  "%.*s%smemory budget exceeded: an allocation failed while not simulating, "
                  "with %.3f GB held by this thread",
                  source_len, source, sep, double(heap::t_thread_heap.bytes) / 1e9);
    return;
  }
  std::snprintf(buf, n,
                "%.*s%smemory budget exceeded: an allocation failed at simulated time %.6g s "
                "with %.3f GB held by the simulation (validation estimated %.3g GB per "
                "simulation)",
                source_len, source, sep, b->sim_->now().seconds(),
                double(b->memory_bytes()) / 1e9, b->estimate_.memory_bytes / 1e9);
}

double RunBudget::work_units() const {
  return double(charged_) + (sim_ != nullptr ? double(sim_->events_dispatched()) : 0.0);
}

int64_t RunBudget::memory_bytes() const { return heap::t_thread_heap.bytes - heap_base_; }
int64_t RunBudget::peak_memory_bytes() const { return heap::t_thread_heap.peak - heap_base_; }

void RunBudget::check() {
  check_interrupt();
  if (heap::t_thread_heap.over) [[unlikely]] {
    exceeded("memory", double(peak_memory_bytes()), limits_.memory_bytes, estimate_.memory_bytes,
             limits_.memory_origin);
  }
  const double work = work_units();
  if (work > limits_.work_units) [[unlikely]] {
    exceeded("work", work, limits_.work_units, estimate_.work_units, limits_.work_origin);
  }
}

void RunBudget::exceeded(const char* what, double reached, double budget, double estimate,
                         const char* origin) const {
  const bool memory = what[0] == 'm';
  std::string line = std::string(what) + " budget exceeded: ";
  line += memory ? budget_bytes_text(reached) : events_text(reached) + " events and work units";
  line += " > ";
  line += memory ? budget_bytes_text(budget) : events_text(budget);
  if (origin != nullptr && origin[0] != '\0') line += std::string(" (") + origin + ")";
  if (sim_ != nullptr) {
    char t[64];
    std::snprintf(t, sizeof t, " at simulated time %.6g s", sim_->now().seconds());
    line += t;
  }
  if (estimate > 0) {
    line += "; validation estimated ";
    line += memory ? budget_bytes_text(estimate) : events_text(estimate) + " events";
    line += " per simulation";
  }
  line += memory ? "; a budget set from the estimate or --max-memory-gb is raised with "
                   "--max-memory-gb, the environment's share by a larger address-space or "
                   "cgroup limit"
                 : "; raise it with --max-events";
  throw BudgetExceeded(line);
}

void charge_work(uint64_t units) {
  RunBudget* b = t_active;
  if (b != nullptr) b->charged_ += units;
  t_since_check += units;
  if (t_since_check >= kChargeCheckEvery) [[unlikely]] {
    t_since_check = 0;
    if (b != nullptr)
      b->check();
    else
      check_interrupt();
  }
}

}  // namespace fdsim
