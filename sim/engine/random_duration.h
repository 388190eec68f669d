#pragma once
// The one rule for random durations (issue 24).
//
// A random draw that becomes a Duration (an exponential gap from a rate, a time to failure
// from a mean, a jitter) is clamped to [0, kMaxRandomDuration] = [0, 1e9 s]. Why this is exact:
// every horizon is at most 1e9 s (sim/scenario/top_level.cpp), so an event a clamped draw
// schedules lands at or after the horizon whatever the draw was, and never runs; and
// now + draw <= 2e9 s = 2e18 ns stays far inside int64 nanoseconds (9.2e18), with room for the
// sums models make. A NaN or negative draw (impossible from the laws fdsim uses, but a contract
// is cheaper than a proof) becomes 0. Draws below the clamp convert exactly as
// Duration::from_seconds / from_ms do, so results of every ordinary run are unchanged.
#include "sim/engine/time.h"

namespace fdsim {

inline constexpr double kMaxRandomDurationS = 1e9;

inline Duration random_duration_s(double s) {
  if (!(s > 0.0)) return Duration::zero();  // also NaN
  if (s >= kMaxRandomDurationS) return Duration::from_seconds(kMaxRandomDurationS);
  return Duration::from_seconds(s);
}

inline Duration random_duration_ms(double ms) {
  if (!(ms > 0.0)) return Duration::zero();
  if (ms >= kMaxRandomDurationS * 1e3) return Duration::from_seconds(kMaxRandomDurationS);
  return Duration::from_ms(ms);
}

}  // namespace fdsim
