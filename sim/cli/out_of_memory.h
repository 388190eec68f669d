#pragma once
// Out of memory ends fdsim with exit 2 and one budget line.
//
// Contract: after install_out_of_memory_handler(), an allocation through operator new that
// cannot be satisfied, on any thread, at any point (including inside a destructor or a
// noexcept function, where a std::bad_alloc used to turn into std::terminate and SIGABRT),
// writes one line to stderr, "fdsim: run budget exceeded: memory: an allocation failed at
// simulated time 12.5 s with 3.1 GB held by the simulation (validation estimated ...); the
// environment's limit (address space or cgroup) leaves 4.0 GB to fdsim: ...", and ends the
// process with exit code 2 at once (std::_Exit: no destructors, no partial result: result
// files are written atomically, so at worst a hidden temporary file is left, which a sweep
// removes on resume). It is input that needs more memory than the environment gives, not a
// bug, hence exit 2. Run budgets (sim/run/run_budget.h) are set below the environment's
// limit, so this line is the last resort (one allocation larger than the room left).
// operator new therefore never throws std::bad_alloc in fdsim.

namespace fdsim::cli {

void install_out_of_memory_handler();

}  // namespace fdsim::cli
