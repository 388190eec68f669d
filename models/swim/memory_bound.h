#pragma once
// The memory bound of a SWIM simulation (models/swim/README.md, "Memory"): validation refuses a
// cluster whose members' state would not fit, with the estimate, instead of a run that exhausts
// the machine's memory hours in.
//
// Contract: swim_state_bytes(n, probe_ticks, lookahead_entries) estimates the peak resident
// bytes of n members on a quiet cluster over a run of probe_ticks probe intervals:
// - kBytesPerMember per member (the member object, its host and network entry, queues, the
//   engine's pending timers; measured 8.3 kB at 10 000 members, bench/scale.sh);
// - 4 B per look-ahead entry of its lazy probe order (probe_order.h: lookahead_hint(), at most
//   2 x kMaxLookahead);
// - once a member can have wrapped its probe order (probe_ticks >= n / 2: a wrap needs one
//   tick per live member), its materialized order, 4 B x n, and its two mt19937_64 streams,
//   kMaterializedBytesPerMember: n^2 entries in all.
// Views of other members cost nothing until they leave the start view (peer_table.h), so
// failures and false positives add to the estimate (one view entry, about 64 bytes, per member
// and per node it changed its mind about). A scenario whose estimate exceeds
// swim_memory_bound_bytes() is refused: the memory limit of the cost estimate
// (sim/scenario/cost_estimate.h), kSwimMemoryBoundBytes unless the command line raised or lowered
// it with --max-memory-gb. Called with n alone, the first term only.
//
// Churn (sim/faults/churn.h) adds swim_churn_bytes(n, probe_ticks, spare, slots): with spare
// slots every member holds its order explicitly from t = 0 (the start shuffle without the
// absent slots: the n^2 term above, unless it is counted already) and one unknown view entry
// per spare slot; each joiner's view starts as n - 1 unknown entries (kViewEntryBytes each),
// for at most `slots` (the churn entry's nodes plus spare_nodes) joiners alive at once, and
// each joining slot holds a seed stream (kStreamBytes).

#include <cstdint>
#include <string>

namespace fdsim::swim {

inline constexpr double kBytesPerMember = 10e3;
inline constexpr double kLookaheadBytesPerEntry = 4.0;
inline constexpr double kProbeOrderBytesPerEntry = 4.0;
inline constexpr double kMaterializedBytesPerMember = 5.2e3;
// 16 GB: what a 100 000-member target was set against (issue 27).
inline constexpr double kSwimMemoryBoundBytes = 16e9;

inline constexpr double kViewEntryBytes = 64.0;
inline constexpr double kStreamBytes = 2.5e3;

double swim_state_bytes(double members, double probe_ticks = 0, double lookahead_entries = 0);
double swim_churn_bytes(double members, double probe_ticks, double spare, double slots);
// True when the estimate counts materialized probe orders (n^2 entries).
bool swim_orders_materialize(double members, double probe_ticks);
// The bound validation applies: scenario::cost_limits().memory_bytes (--max-memory-gb, default
// 16 GB = kSwimMemoryBoundBytes).
double swim_memory_bound_bytes();
// "41.2 GB", "380 MB".
std::string bytes_text(double bytes);

}  // namespace fdsim::swim
