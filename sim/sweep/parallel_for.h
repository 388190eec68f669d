#pragma once
// parallel_for(n, threads, body): body(i) for every i in [0, n), on `threads` threads (the
// caller's among them), each index exactly once, in no particular order.
//
// Contract: returns when every call has returned, also when no thread could be created (then
// the caller's thread makes every call). An exception thrown by a body (Interrupted,
// when SIGINT or SIGTERM arrives inside a long resolve) stops the other threads from taking new
// indices and is rethrown on the calling thread (the first one caught). Bodies must be safe to
// run concurrently; they run without the caller's RunBudget (budget.h: budgets are per thread),
// so their allocations are not charged to it.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace fdsim::sweep {

template <class Body>
void parallel_for(size_t n, size_t threads, const Body& body) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex first_mutex;
  auto work = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(first_mutex);
        if (!first) first = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
        return;
      }
    }
  };
  const size_t extra = std::min(threads, n) > 1 ? std::min(threads, n) - 1 : 0;
  std::vector<std::thread> pool;
  pool.reserve(extra);
  // A thread that cannot be created (a low `ulimit -u`, an address-space cap full of thread
  // stacks) is not an error: the threads already started and this one do the work. (An
  // exception escaping here with joinable threads would terminate the process.)
  try {
    for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
  }
  work();
  for (auto& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace fdsim::sweep
