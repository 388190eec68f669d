#pragma once
// Machine-dependent facts about a run (never part of the deterministic result).
#include <cstdint>

namespace fdsim::run {

// Peak resident set size of the whole process so far, in kB (getrusage); 0 if unknown.
// Note: with several runs in one process (sweeps) this is the process's peak, not the run's.
int64_t peak_rss_kb();
// The page size glibc's malloc asks the kernel for, in kB: the transparent huge page size when
// GLIBC_TUNABLES holds glibc.malloc.hugetlb=1 or 2 (sim/cli/huge_pages.h sets it for `fdsim
// run` and `fdsim sweep`), else the base page size. Speed figures depend on it, so result
// files record it.
int64_t malloc_page_kb();

}  // namespace fdsim::run
