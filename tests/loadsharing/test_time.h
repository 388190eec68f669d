#pragma once
// Simulated instants written in seconds, for the load-sharing tests.
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

inline SimTime at_s(double s) { return SimTime::from_seconds(s); }

}  // namespace fdsim::loadsharing
