#pragma once
// Heap bytes held by the calling thread: the memory half of a run's budget (budget.h).
//
// Contract:
// - When the program links the counting allocator (sim/cli/counting_new.cpp in the fdsim
//   executable, tests/support/counting_new.cpp in the test programs, python/counting_new.cpp
//   in the Python module), every operator new / delete adds / subtracts the block's usable size
//   to the calling thread's `bytes` and keeps `peak`; `enabled()` is then true (also in the
//   AddressSanitizer build: counting_new.inc). In a program that does not link it the counters
//   stay 0 and `enabled()` is false: memory budgets are then not enforced
//   (docs/scenario-format.md, "Run budgets").
// - Counting is per thread because a simulation runs on one thread from start to end; a block
//   freed on another thread than the one that allocated it moves bytes between the two
//   counters (the thread that runs a simulation measures it as the difference from a baseline
//   taken at its start, so results handed to another thread cost it nothing).
// - The figures depend on the code and the standard library, not on the machine or the run's
//   timing, so a budget stop is reproducible: same scenario, seed and binary, same stop.
// - Crossing `limit` sets `over`; nothing is thrown from operator new (callers treat new as
//   non-throwing): the budget's next check point (budget.h) turns the flag into a clean stop.

#include <cstddef>
#include <cstdint>
#include <limits>

namespace fdsim::heap {

struct ThreadHeap {
  int64_t bytes = 0;  // held now (can be negative: blocks freed here, allocated elsewhere)
  int64_t peak = 0;   // the largest `bytes` since the last reset_peak()
  int64_t limit = std::numeric_limits<int64_t>::max();  // `over` is set when peak exceeds it
  bool over = false;
};

// constinit: no TLS wrapper call on the allocation path.
extern constinit thread_local ThreadHeap t_thread_heap;

inline void on_allocate(size_t usable) {
  ThreadHeap& h = t_thread_heap;
  h.bytes += int64_t(usable);
  if (h.bytes > h.peak) [[unlikely]] {
    h.peak = h.bytes;
    if (h.peak > h.limit) h.over = true;
  }
}
inline void on_free(size_t usable) { t_thread_heap.bytes -= int64_t(usable); }

// True when operator new is counted in this program.
bool enabled();
// Called once by the counting allocator's static initializer.
void mark_enabled();

}  // namespace fdsim::heap
