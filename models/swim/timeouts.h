#pragma once
// The timeouts a memberlist member uses at a given cluster size, computed with the same
// functions the members call (lifeguard_math.h, SwimConfig::suspicion_k), for `fdsim timeout
// --model swim` and for tests.
//
// Contract: swim_timeouts(c, arm, members) gives
// - k: the confirmations a new suspicion expects (SwimConfig::suspicion_k),
// - min and max of the suspicion timer (util.go suspicionTimeout; max = SuspicionMaxTimeoutMult
//   x min),
// - suspicion[c] for c = 0 .. k: the time from the suspicion's start at which the member
//   declares the suspect dead when c independent confirmations have arrived by then
//   (suspicion.go: max with no confirmation, min when k = 0, else remainingSuspicionTime(c, k,
//   0, min, max)),
// - probe[s] for health score s = 0 .. AwarenessMaxMultiplier - 1: the probe deadline
//   (awareness.go ScaleTimeout of ProbeInterval; score 0 without awareness) and the direct-ack
//   wait min(ProbeTimeout, deadline) (state.go probeNode).
// Requires members >= 1.

#include <cstdint>
#include <vector>

#include "models/swim/config.h"

namespace fdsim::swim {

struct ProbeTimeouts {
  int64_t health_score = 0;
  Duration deadline;     // ack handler lifetime and indirect / TCP wait
  Duration direct_wait;  // wait for the direct ack before the indirect pings
};

struct SwimTimeouts {
  int64_t members = 0;
  int64_t k = 0;
  Duration min, max;
  std::vector<Duration> suspicion;  // index c = confirmations, 0 .. k
  std::vector<ProbeTimeouts> probe;
};

SwimTimeouts swim_timeouts(const SwimConfig& c, const SwimArm& arm, int64_t members);

}  // namespace fdsim::swim
