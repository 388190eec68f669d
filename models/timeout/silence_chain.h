#pragma once
// The silence an observer sees after a state broadcast when broadcasts may be lost: the
// generalisation of the region-exit time of exit_chain.h to lossy links (issue 13, item 5).
//
// Model: the sender's queue length is a birth-death chain on 0..th_f + kTopRegionStates
// (reflecting top, as in top_region_chain) with birth rate lambda_r in region r (U = 0..th_u,
// M = th_u+1..th_f, O above) and death rate mu when >= 1. Every region change is broadcast
// and each broadcast reaches the observer independently with probability 1 - loss. The
// silence after a received broadcast lasts until the first region change whose broadcast
// arrives, so
//   P(silence > t | s0) = E[loss^N(t)],  N(t) = region changes in (0, t],
// which is e_s0' exp(Q~ t) 1 for the sub-generator Q~ of the whole chain in which every
// transition across a region boundary is kept with weight `loss` (the rest of its rate
// "leaves": the broadcast got through). With loss = 0 the blocks decouple and this is exactly
// the exit time of the region containing s0 (exit_chain.h). Q~ is tridiagonal with positive
// off-diagonal pairs when loss > 0 and every rate is > 0, hence symmetrizable: SpectralExit
// computes it. The model's assumptions are those of exit_chain.h (Poisson input at the region
// rates, exponential service) plus independent losses; delays are covered by the allowance.

#include <array>
#include <cstdint>
#include <limits>

#include "models/timeout/capped_quantile.h"
#include "models/timeout/exit_chain.h"

namespace fdsim::timeout {

struct SilenceChain {
  int64_t th_u = 1;
  int64_t th_f = 4;
  std::array<double, 3> lambda{};  // birth rate in U, M, O (per second)
  double mu = 0;                   // death rate when the state is >= 1
  double loss = 0;                 // probability that one broadcast does not arrive
  int64_t top() const { return th_f + kTopRegionStates; }
  int region_of(int64_t s) const { return s <= th_u ? 0 : (s <= th_f ? 1 : 2); }
};

// Aborts with a message on malformed input (th_u < 0, th_f <= th_u, negative or non-finite
// rates, loss outside [0, 1)).
void validate(const SilenceChain& c);

// The region chain of s0 (loss = 0 reduces to it).
ExitChain region_chain_of(const SilenceChain& c, int64_t s0);

// P(silence > t | s0), and its alpha-quantile (inf { t : P <= alpha }, +infinity if never).
// loss = 0 gives exactly survival / spectral_quantile of region_chain_of(c, s0). loss > 0 is
// computed as a Poisson mixture (poisson_survival.h: exact series, no eigendecomposition),
// falling back to SpectralExit / uniformization only beyond its range (Lambda t > 5000).
// With a finite cap.span_s, a chain of kMinChargedChainStates states or more whose cheap paths
// give up falls back to capped_quantile.h (work bounded by the cap) instead of the uncapped
// dense uniformization, and returns +infinity for a quantile beyond the cap it used, which it
// then stores in *beyond_cap_s (NaN otherwise: the value is exact, +infinity meaning never).
double silence_survival(const SilenceChain& c, int64_t s0, double t_s);
double silence_quantile(const SilenceChain& c, int64_t s0, double alpha,
                        const QuantileCap& cap = {}, double* beyond_cap_s = nullptr);

}  // namespace fdsim::timeout
