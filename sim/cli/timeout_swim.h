#pragma once
// `fdsim timeout --model swim`: memberlist's suspicion timeouts for c = 0 .. k confirmations and
// the awareness-scaled probe timeouts at a cluster size, from the SWIM model's own code
// (models/swim/timeouts.h). Exit codes: 0 ok, 2 bad input (one line per problem).

#include <cstdint>

namespace fdsim::cli {

struct SwimTimeoutArgs {
  int64_t members = -1;  // required
  double probe_interval_ms = 1000;
  double probe_timeout_ms = 500;
  int64_t suspicion_mult = 4;
  int64_t suspicion_max_timeout_mult = 6;
  int64_t confirmations = -1;  // < 0: memberlist's rule max(0, suspicion_mult - 2)
  int64_t awareness_max_multiplier = 8;
  bool no_lifeguard = false;  // plain SWIM: no awareness, no dynamic suspicion
  bool json = false;
};

int run_swim_timeout(const SwimTimeoutArgs& a);

}  // namespace fdsim::cli
