#include "sim/run/run_stats.h"

#include <sys/resource.h>

namespace fdsim::run {

int64_t peak_rss_kb() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss);  // kB on Linux
}

}  // namespace fdsim::run
