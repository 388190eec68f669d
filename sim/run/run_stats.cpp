#include "sim/run/run_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace fdsim::run {

int64_t peak_rss_kb() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss);  // kB on Linux
}

int64_t malloc_page_kb() {
  const int64_t base_kb = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) / 1024 : 4;
  const char* t = std::getenv("GLIBC_TUNABLES");
  const char* p = t ? std::strstr(t, "glibc.malloc.hugetlb=") : nullptr;
  if (p == nullptr) return base_kb;
  const char v = p[std::strlen("glibc.malloc.hugetlb=")];
  if (v != '1' && v != '2') return base_kb;
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  int64_t bytes = 0;
  return (f >> bytes) && bytes > 0 ? bytes / 1024 : base_kb;
}

}  // namespace fdsim::run
