#pragma once
// Clean ends on SIGINT, SIGTERM and SIGXFSZ (issues 24 and 28).
//
// Contract:
// - install_signal_handlers() (called once by the CLI's main): SIGINT and SIGTERM set a flag
//   (async-signal-safe: one atomic store) and restore the default action, so a second Ctrl-C
//   ends the process at once; SIGXFSZ is ignored, so exceeding a file-size limit (`ulimit -f`,
//   Slurm's default) makes write() fail with EFBIG, which the writers report as a write error
//   and clean up after (temporary file removed), instead of a core dump with temp litter.
// - interrupt_signal(): 0, or the first signal received (SIGINT or SIGTERM).
// - check_interrupt(): throws Interrupted if a signal arrived. The run layer calls it every
//   65 536 simulated events (with the stall guard), so a running simulation ends within
//   milliseconds; its partial result is never written.
// - Callers that stop early exit with interrupt_exit_code(): 128 + signal (130 for SIGINT,
//   143 for SIGTERM), the shell's convention.
#include <stdexcept>

namespace fdsim {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted by a signal") {}
};

void install_signal_handlers();
int interrupt_signal();
void check_interrupt();
int interrupt_exit_code();
// For tests: forget a received signal.
void reset_interrupt();

}  // namespace fdsim
