#include "sim/cli/out_of_memory.h"

#include <unistd.h>

#include <cstdlib>
#include <new>

namespace fdsim::cli {

namespace {

[[noreturn]] void out_of_memory() {
  // No allocation here: write(2) of a constant, then exit without unwinding.
  static constexpr char kLine[] = "fdsim: internal error: out of memory\n";
  ssize_t written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  (void)written;
  std::_Exit(1);
}

}  // namespace

void install_out_of_memory_handler() { std::set_new_handler(out_of_memory); }

}  // namespace fdsim::cli
