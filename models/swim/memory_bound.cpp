#include "models/swim/memory_bound.h"

#include <cstdio>

#include "sim/scenario/cost_estimate.h"

namespace fdsim::swim {

bool swim_orders_materialize(double members, double probe_ticks) {
  return probe_ticks * 2 >= members;
}

double swim_state_bytes(double members, double probe_ticks, double lookahead_entries) {
  double b = members * (kBytesPerMember + lookahead_entries * kLookaheadBytesPerEntry);
  if (swim_orders_materialize(members, probe_ticks))
    b += members * (members * kProbeOrderBytesPerEntry + kMaterializedBytesPerMember);
  return b;
}

double swim_churn_bytes(double members, double probe_ticks, double spare, double slots) {
  double b = slots * (kViewEntryBytes * members + kStreamBytes);
  if (spare > 0) {
    b += members * spare * kViewEntryBytes;
    if (!swim_orders_materialize(members, probe_ticks))
      b += members * (members * kProbeOrderBytesPerEntry + kMaterializedBytesPerMember);
  }
  return b;
}

double swim_memory_bound_bytes() { return scenario::cost_limits().memory_bytes; }

std::string bytes_text(double bytes) {
  char buf[64];
  if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  return buf;
}

}  // namespace fdsim::swim
