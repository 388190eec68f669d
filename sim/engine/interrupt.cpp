#include "sim/engine/interrupt.h"

#include <csignal>

#include <atomic>

namespace fdsim {

namespace {
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signo) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signo);
}
}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal takes the default action: ends at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

void check_interrupt() {
  if (g_signal.load(std::memory_order_relaxed) != 0) [[unlikely]]
    throw Interrupted();
}

int interrupt_exit_code() {
  const int s = interrupt_signal();
  return s == 0 ? 0 : 128 + s;
}

void reset_interrupt() { g_signal.store(0); }

}  // namespace fdsim
