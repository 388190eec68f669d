#pragma once
// Load index and state regions (docs/models/load-sharing.md, "Regions, buddies and preferred lists").
//
// Contract: region_of(L) is U if L <= th_u, M if th_u < L <= th_f, O if L > th_f, for the load
// index L: QL (tasks queued or in service, an integer) or CET (remaining cumulative execution
// time in seconds; with ExecKnowledge::mean it is the planned, not the true, remaining work).
// The thresholds are in the unit of the index. For QL with integer thresholds the regions are
// the integer ranges U = {0..th_u}, M = {th_u+1..th_f}, O = {th_f+1, ...} that the exit-time
// chain of docs/models/hou-shin-timeout.md uses.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fdsim::loadsharing {

enum class LoadIndex : uint8_t { ql, cet };
enum class Region : uint8_t { U = 0, M = 1, O = 2 };
inline constexpr size_t kRegionCount = 3;

struct RegionThresholds {
  double th_u = 1;
  double th_f = 4;
  Region region_of(double load) const {
    if (load <= th_u) return Region::U;
    if (load <= th_f) return Region::M;
    return Region::O;
  }
};

std::string_view region_name(Region r);

}  // namespace fdsim::loadsharing
