#pragma once
#include <cstdint>
#include <limits>

namespace fdsim {
// Index of a simulated node (host) in the scenario, 0..N-1.
using NodeId = uint32_t;
// "No particular node" (global events, global RNG streams).
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();
}  // namespace fdsim
