#include "sim/cli/out_of_memory.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "sim/engine/budget.h"
#include "sim/run/run_budget.h"

namespace fdsim::cli {

namespace {

// The environment's memory limit, read before any allocation can fail.
double g_environment_bytes = 0;

[[noreturn]] void out_of_memory() {
  // No allocation from here on: snprintf of numbers into static buffers, write(2), then exit
  // without unwinding (a partial result is never written: result files are atomic).
  static char where[512];
  static char line[800];
  RunBudget::describe_for_out_of_memory(where, sizeof where);
  if (std::isfinite(g_environment_bytes)) {
    std::snprintf(line, sizeof line,
                  "%s; the environment's limit (address space or cgroup) leaves %.3f GB to fdsim: lower "
                  "the scenario's size or raise that limit\n",
                  where, g_environment_bytes / 1e9);
  } else {
    std::snprintf(line, sizeof line,
                  "%s: the machine has no more memory: lower the scenario's size or --max-memory-gb\n",
                  where);
  }
  size_t len = 0;
  while (len < sizeof line && line[len] != '\0') ++len;
  ssize_t written = ::write(STDERR_FILENO, line, len);
  (void)written;
  std::_Exit(2);
}

}  // namespace

void install_out_of_memory_handler() {
  g_environment_bytes = run::environment_memory_bytes();
  std::set_new_handler(out_of_memory);
}

}  // namespace fdsim::cli
