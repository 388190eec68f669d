#pragma once
// The CET load index (docs/models/load-sharing.md, "Regions, buddies and preferred lists": remaining cumulative execution time,
// in seconds) mapped onto the queue-length chain of exit_chain.h.
//
// Contract / approximation: the region-exit chain is a chain on the NUMBER of tasks. For CET we
// do not build a chain on remaining work; we convert every CET quantity to a queue length by
// dividing by the mean execution time 1/mu (i.e. multiplying by mu) and rounding to the nearest
// integer (half away from zero): QL = round(CET * mu). Thresholds TH_u, TH_f and the state s0 at
// the broadcast are all mapped this way, then s0 is clamped into its mapped region (a node in
// CET region M may map to a queue length on the region's edge). If TH_u and TH_f map to the same
// queue length, TH_f is raised to TH_u + 1 so that M is not empty. This is exact only when every
// task's remaining work equals the mean; with exponential execution times the true CET exit time
// has a different (smoother) law, so T_out under CET is an approximation whose error grows with
// the variance of execution times. mu is the rate the caller believes (configured or estimated).
// Negative or non-finite inputs, mu <= 0, or TH_f < TH_u are programmer errors and abort.

#include <cstdint>

namespace fdsim::timeout {

struct QueueLengthThresholds {
  int64_t th_u = 0;  // U = {0..th_u}
  int64_t th_f = 0;  // M = {th_u+1..th_f}, O = {th_f+1, ...}
};

// round(cet_s * mu_per_s).
int64_t cet_to_queue_length(double cet_s, double mu_per_s);
QueueLengthThresholds map_cet_thresholds(double th_u_cet_s, double th_f_cet_s, double mu_per_s);
// The mapped state clamped into [lo, hi].
int64_t cet_state_in_region(double cet_s, double mu_per_s, int64_t lo, int64_t hi);

}  // namespace fdsim::timeout
