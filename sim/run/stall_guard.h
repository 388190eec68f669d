#pragma once
// The stall guard: a run whose simulated time stops advancing (a model that reschedules itself
// at the same instant forever, a period that rounds to 0 ns) would never end. The guard looks
// at the simulator every kCheckEveryEvents events; if simulated time has not moved over
// kStallEvents consecutive events it throws std::runtime_error naming the instant and the
// event kinds dispatched during the stall, most frequent first ("simulated time stuck at
// 12.5s for 16777216 events: geode.tick 16777000, net.deliver 216"). The run then fails as an
// internal error (exit 1; one failed run in a sweep).
//
// Legitimate bursts are far smaller: the largest same-instant burst of the shipped scenarios
// is a few thousand events (a broadcast to every node of a 100k-node ring is 1e5).

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.h"

namespace fdsim::run {

inline constexpr uint64_t kStallEvents = uint64_t{1} << 24;  // 16.8 million
inline constexpr uint64_t kStallCheckEveryEvents = uint64_t{1} << 16;

class StallGuard {
 public:
  explicit StallGuard(const Simulator& sim) : sim_(sim) {}
  // Called every kStallCheckEveryEvents dispatched events; throws on a stall.
  void check();

 private:
  const Simulator& sim_;
  SimTime last_time_ = SimTime::zero();
  uint64_t events_at_last_advance_ = 0;
  std::vector<uint64_t> kinds_at_last_advance_;
};

}  // namespace fdsim::run
