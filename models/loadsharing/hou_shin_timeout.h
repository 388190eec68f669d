#pragma once
// T_out[i] (docs/models/hou-shin-timeout.md) for one received broadcast: the silence after which
// an observer suspects the sender, and ("Extra broadcasts" there) the sender's own extra-broadcast deadline.
//
// Contract: the chain is the queue length of the sender inside the region it reported, with
// birth rate lambda_r (the piggy-backed input rate of that region) and death rate mu (the
// piggy-backed execution rate); exiting the region is the next region-change broadcast. U and M
// are bounded chains, O is truncated with a reflecting top (timeout::top_region_chain), the
// state s0 clamped into it. Under the CET load index the thresholds and s0 are mapped to queue
// lengths with the piggy-backed mu (timeout/cet_mapping.h: an approximation). The result is
// timeout::TimeoutTable::t_out (quantile rounded up to the ns + allowance), Duration::max() when
// the exit is unreachable ("never suspect"). The model is exact only for Poisson input and
// exponential service with the estimated rates, and only when the sender broadcasts on every
// region change (broadcast_on = every_change).
//
// Loss (issue 13, item 5): with loss > 0 the quantile is that of the silence until the first
// broadcast that gets through (timeout/silence_chain.h: every region change is broadcast and
// lost independently with probability `loss`), so that a healthy sender is falsely suspected
// with probability at most alpha per received broadcast under the model's assumptions. loss = 0
// is exactly the region-exit quantile above.

#include "models/loadsharing/broadcast.h"
#include "models/loadsharing/config.h"
#include "models/timeout/exit_chain.h"
#include "models/timeout/timeout_table.h"

namespace fdsim::loadsharing {

// The run span of a run's T_out table (timeout::TimeoutTable::set_run_span_s) when the run ends
// at horizon_s: horizon + send margin (when configured) + 1 s. A silence limit runs from a
// receipt at time >= 0; an extra broadcast is due T_out - margin after its send, the margin
// being send_margin or the delay allowance (which T_out includes); so a quantile beyond the
// span puts every timer it sets after the horizon (the 1 s covers rounding to nanoseconds).
double t_out_run_span_s(const LoadSharingConfig& cfg, double horizon_s);

// The exit chain for `b` and the start state s0 in it.
timeout::ExitChain exit_chain_for(const Broadcast& b, const RegionThresholds& thresholds,
                                  LoadIndex index, int64_t* s0);

// The lossy silence chain for `b` (same s0 as exit_chain_for).
timeout::SilenceChain silence_chain_for(const Broadcast& b, const RegionThresholds& thresholds,
                                        LoadIndex index, double loss, int64_t* s0);

Duration hou_shin_timeout(timeout::TimeoutTable& table, const Broadcast& b,
                          const RegionThresholds& thresholds, LoadIndex index, double alpha,
                          Duration allowance, double loss = 0.0);

// hou_shin_timeout for a caller that has waited `need` (TimeoutTable::t_out_needed): the exact
// value (*exact = true), or a lower bound beyond the wait (*exact = false) where the run span's
// fallback has not reached the quantile yet; the caller waits until the bound and asks again.
Duration hou_shin_timeout_needed(timeout::TimeoutTable& table, const Broadcast& b,
                                 const RegionThresholds& thresholds, LoadIndex index,
                                 double alpha, Duration allowance, double loss, Duration need,
                                 bool* exact);

// A cheap lower bound of hou_shin_timeout (TimeoutTable::quantile_lower_bound_s, rounded DOWN
// to the ns, plus the allowance); *exact is set when it is the value itself. The model arms its
// timers at the bound and computes the exact T_out only when a silence gets that long.
Duration hou_shin_timeout_lower_bound(timeout::TimeoutTable& table, const Broadcast& b,
                                      const RegionThresholds& thresholds, LoadIndex index,
                                      double alpha, Duration allowance, double loss, bool* exact);

}  // namespace fdsim::loadsharing
