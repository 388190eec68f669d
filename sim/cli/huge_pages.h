#pragma once
// Transparent huge pages for malloc'd memory in the long-running commands (bench/README.md,
// "SWIM events per CPU second").
//
// Why: a large run touches its members' state all over a heap of hundreds of megabytes, and
// with 4 kB pages most of those touches also miss the TLB. On a kernel whose transparent huge
// pages are in "madvise" mode (Debian's default), glibc (2.35 and later) uses them for the heap
// only when the tunable glibc.malloc.hugetlb=1 is set at process start. Measured on the
// 2-core development machine, 10 000 SWIM members for 60 s: 6.6 to 7.0 CPU s without, 5.2 to
// 5.4 with (bench/README.md); results are byte-identical (nothing in fdsim depends on
// addresses).
//
// Contract: for `fdsim run` and `fdsim sweep` only, when the kernel's mode is "madvise", the
// tunable is not already given (in GLIBC_TUNABLES) and FDSIM_HUGE_PAGES is not "0", the process
// re-executes itself (/proc/self/exe, same arguments) once with glibc.malloc.hugetlb=1 appended
// to GLIBC_TUNABLES. If that exec fails, it goes on as it is (the environment as before). Every
// other command, and every other mode ("always", "never", none), starts as it always did, and
// so does a build with AddressSanitizer (its allocator does not read glibc's tunables).

namespace fdsim::cli {

void use_huge_pages_for_malloc(int argc, char** argv);

}  // namespace fdsim::cli
