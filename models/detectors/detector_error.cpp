#include "models/detectors/detector_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::detectors {
void detector_error(const char* detector, const char* what) {
  std::fprintf(stderr, "fdsim: internal error: %s detector: %s\n", detector, what);
  std::abort();
}
}  // namespace fdsim::detectors
