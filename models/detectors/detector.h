#pragma once
// Heartbeat failure detectors (docs/models/heartbeat-detectors.md).
//
// Contract: a Detector watches one peer from the arrivals of its heartbeats. Between two
// arrivals, every detector here is monotone: it trusts the peer until some instant and suspects
// it from then on. suspect_at() returns that instant (SimTime::max() = never, e.g. before the
// first heartbeat when the detector has nothing to extrapolate from), so a caller can ask
// "suspected at t?" as t >= suspect_at(), and can arm one watchdog instead of polling.
// on_heartbeat() may move suspect_at() either way. Detectors draw no randomness and know
// nothing of the network: they are pure functions of the arrival sequence.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/engine/time.h"

namespace fdsim::detectors {

class Detector {
 public:
  virtual ~Detector() = default;
  // Heartbeat number `seq` (0, 1, 2, ... as sent), stamped with its send time on the sender's
  // clock, arrived now = `arrival`.
  virtual void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) = 0;
  virtual SimTime suspect_at() const = 0;
  bool suspects(SimTime t) const { return t >= suspect_at(); }
  virtual std::string_view kind() const = 0;
};

}  // namespace fdsim::detectors
