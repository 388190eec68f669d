#pragma once
// Machine-dependent facts about a run (never part of the deterministic result).
#include <cstdint>

namespace fdsim::run {

// Peak resident set size of the whole process so far, in kB (getrusage); 0 if unknown.
// Note: with several runs in one process (sweeps) this is the process's peak, not the run's.
int64_t peak_rss_kb();

}  // namespace fdsim::run
