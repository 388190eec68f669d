#pragma once
// The state broadcast a node sends to its observers (docs/models/load-sharing.md, "Broadcasts and transfers").
//
// Contract: a broadcast is a snapshot taken at its send instant: region and exact load then,
// and the sender's posterior-mean estimates then. Observers compute the Hou-Shin timeout
// T_out[sender] from nothing else, and the sender computes its own extra-broadcast deadline
// from the same fields, so both sides agree exactly.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "models/loadsharing/regions.h"
#include "sim/engine/ids.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

// Posterior means of the sender's on-line estimators (docs/models/load-sharing.md, "On-line estimators"), per second.
struct Estimates {
  double lambda_per_s = 0;                                // external arrival rate at the node
  double mu_per_s = 0;                                    // execution (service) rate
  std::array<double, kRegionCount> region_input_per_s{};  // lambda_r: joins per second in region r
};

// periodic: the heartbeat of the periodic arms (fixed_periodic, oracle_periodic,
// periodic_no_diagnosis). extra: hou_shin_extra's and oracle_extra's extra broadcasts, and the
// silence broadcasts of fixed_on_silence.
enum class BroadcastKind : uint8_t { region_change = 0, extra = 1, recovery = 2, periodic = 3 };
inline constexpr size_t kBroadcastKindCount = 4;

inline std::string_view broadcast_kind_name(BroadcastKind k) {
  switch (k) {
    case BroadcastKind::region_change:
      return "region_change";
    case BroadcastKind::extra:
      return "extra";
    case BroadcastKind::recovery:
      return "recovery";
    case BroadcastKind::periodic:
      return "periodic";
  }
  return "?";
}

struct Broadcast {
  NodeId sender = kNoNode;
  uint32_t incarnation = 0;
  SimTime send_time;
  Region region = Region::U;
  int64_t queue_length = 0;  // s0 for the exit chain (QL at send time)
  double load = 0;           // the load index at send time (QL, or CET in seconds)
  Estimates estimates;
  BroadcastKind kind = BroadcastKind::region_change;
};

}  // namespace fdsim::loadsharing
