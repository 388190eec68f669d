#include "sim/engine/heap_account.h"

#include <atomic>

namespace fdsim::heap {

constinit thread_local ThreadHeap t_thread_heap{};

namespace {
std::atomic<bool> g_enabled{false};
}

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }
void mark_enabled() { g_enabled.store(true, std::memory_order_relaxed); }

}  // namespace fdsim::heap
