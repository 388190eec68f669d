#pragma once
// Out of memory ends fdsim with exit 1 and one line (issue 16).
//
// Contract: after install_out_of_memory_handler(), an allocation through operator new that
// cannot be satisfied, on any thread, at any point (including inside a destructor or a
// noexcept function, where a std::bad_alloc used to turn into std::terminate and SIGABRT),
// writes "fdsim: internal error: out of memory" to stderr and ends the process with exit code
// 1 at once (std::_Exit: no destructors, no partial result: result files are written
// atomically, so at worst a hidden temporary file is left, which a sweep removes on resume).
// operator new therefore never throws std::bad_alloc in fdsim.

namespace fdsim::cli {

void install_out_of_memory_handler();

}  // namespace fdsim::cli
