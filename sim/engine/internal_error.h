#pragma once
// Internal errors: a broken contract inside the simulator (a programmer error, or an input the
// loader should have refused) ends the current run, not the process.
//
// Contract: internal_error() formats its message printf-style and throws InternalError (a
// std::logic_error) carrying it, without the "fdsim: internal error: " prefix and the trailing
// newline older call sites wrote. run::execute catches it and reports the run as failed with
// the message: `fdsim run` prints "<file>: internal error in replication R: <message>" and
// exits 1; inside a sweep it is one failed run (an error record in OUT/runs, exit 3) while the
// other workers' runs go on. It used to be std::abort(), which killed a whole sweep and left
// no error record, so every resume aborted again.
//
// Never call it from a destructor or a noexcept function (that would still terminate).
#include <stdexcept>
#include <string>

namespace fdsim {

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn, gnu::cold, gnu::format(printf, 1, 2)]] void internal_error(const char* format, ...);

}  // namespace fdsim
