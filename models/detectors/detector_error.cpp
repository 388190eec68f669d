#include "models/detectors/detector_error.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::detectors {
void detector_error(const char* detector, const char* what) {
  fdsim::internal_error("fdsim: internal error: %s detector: %s\n", detector, what);
}
}  // namespace fdsim::detectors
