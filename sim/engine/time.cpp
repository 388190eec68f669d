#include "sim/engine/time.h"
#include "sim/engine/internal_error.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace fdsim {

void time_overflow(const char* op) {
  fdsim::internal_error("fdsim: internal error: simulated time overflow in %s\n", op);
}

namespace {
std::string format_ns(int64_t v) {
  const bool neg = v < 0;
  uint64_t u = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%09" PRIu64 "s", neg ? "-" : "", u / 1000000000u,
                u % 1000000000u);
  return buf;
}
}  // namespace

std::string to_string(SimTime t) { return format_ns(t.count_ns()); }
std::string to_string(Duration d) { return format_ns(d.count_ns()); }

}  // namespace fdsim
