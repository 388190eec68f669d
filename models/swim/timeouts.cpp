#include "models/swim/timeouts.h"

#include <algorithm>

#include "models/swim/lifeguard_math.h"

namespace fdsim::swim {

SwimTimeouts swim_timeouts(const SwimConfig& c, const SwimArm& arm, int64_t members) {
  SwimTimeouts t;
  t.members = members;
  t.k = c.suspicion_k(arm, members);
  t.min = suspicion_timeout(c.suspicion_mult, members, c.probe_interval);
  t.max = t.min * c.suspicion_max_timeout_mult;
  for (int64_t n = 0; n <= t.k; ++n)
    t.suspicion.push_back(suspicion_deadline(n, t.k, t.min, t.max));
  const int64_t scores = arm.awareness ? c.awareness_max_multiplier : 1;
  for (int64_t s = 0; s < scores; ++s) {
    Awareness a(c.awareness_max_multiplier);
    a.apply_delta(s);
    const Duration deadline = a.scale_timeout(c.probe_interval);
    t.probe.push_back(ProbeTimeouts{s, deadline, std::min(c.probe_timeout, deadline)});
  }
  return t;
}

}  // namespace fdsim::swim
