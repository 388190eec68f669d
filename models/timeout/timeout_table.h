#pragma once
// T_out of docs/models/hou-shin-timeout.md, cached: the silence after which an observer declares a
// node failed, given the node's last broadcast (region, load s0) and piggy-backed estimates.
//
// Contract: t_out(chain, s0, alpha, allowance) = ceil_ns(exit_quantile(chain', s0, alpha)) +
// allowance, where chain' is `chain` with lambda and mu ROUNDED TO 4 SIGNIFICANT DIGITS (round
// half away from zero on the decimal mantissa). The rounding is part of the model, not only a
// cache detail: the value returned is a function of the cache key alone, so the first and the
// hundredth query agree bit for bit, and a node computing its own T_out for extra broadcasts
// (extra broadcasts) gets exactly what its observers get from the same piggy-backed estimates. The
// relative error this adds to a rate is at most 5e-4; T_out moves by about the same relative
// amount. The key is (lo, hi, reflecting_top, s0, rounded lambda, rounded mu, alpha exactly).
// The quantile is rounded UP to the nanosecond so that S(T_out - allowance) <= alpha holds.
// A chain whose exit is unreachable (e.g. lambda = 0 in {0,1}) gives Duration::max() ("never
// suspect"), as does a quantile beyond the Duration range.
//
// Exact paths (which numerical method gives the quantile of a rounded chain): a region chain of
// at most kSpectralMaxStates states through spectral_quantile (spectral_exit.h), a larger one
// (the top region) and every lossy silence chain as a Poisson mixture (poisson_survival.h:
// one pass of O(n) row products, then a scalar series per evaluation, no eigendecomposition),
// each falling back to the slower paths (SpectralExit where accurate, else the uniformization
// of exit_chain.h / uniformization.h) beyond its range, except where far_exit.h proves the
// quantile beyond every Duration (then +infinity, which T_out maps to "never" as it would map
// the slow paths' value). With a run span (set_run_span_s, as every simulation sets it), a
// chain of kMinChargedChainStates states or more takes capped_quantile.h instead of the
// uncapped uniformization, up to a cap that grows with the caller's wait (quantile_needed_s).
// All of them return the upper end of a bracket of relative width <= 1e-12 around the same
// mathematical quantile, so they agree to about 1e-10 relative (tested).
//
// Memory: the values are memoized in six bounded memos (bounded_cache.h: 2048 slots, at most
// 1024 entries each, emptied when full; a deterministic function of the queries). Exact values
// and the cheap lower bounds are functions of their key alone, so hits and misses never change
// them; the fallback's bounds (quantile_needed_s) depend on the waits asked about, and only
// move the instants at which a caller asks again, never the exact value it gets at last.
// The bound is max_bytes() per table (tested <= 2 MB), allocated only as the memos fill,
// whatever the run (before issue 13 item 7 the memos were std::maps that grew by one entry per key). The
// bounds' scratch PoissonSurvival adds a few vectors of at most 17 states and two doubles per
// series term (at most about kMaxMass = 5000 terms: 80 KB). One table per model instance (no
// globals); not thread-safe.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "models/timeout/bounded_cache.h"
#include "models/timeout/exit_chain.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/silence_chain.h"
#include "sim/engine/time.h"

namespace fdsim::timeout {

// A positive rate rounded to 4 significant digits, as an exact decimal: value = mantissa *
// 10^exponent with mantissa in [1000, 9999] (or 0 for a zero rate).
struct RoundedRate {
  int64_t mantissa = 0;
  int exponent = 0;
  double value() const;
  auto operator<=>(const RoundedRate&) const = default;
};
RoundedRate round_4_significant(double rate);

class TimeoutTable {
 public:
  // The run span: no timeout longer than span_s can expire within the caller's run (a silence
  // starts at time >= 0 and the run ends at its horizon), so any quantile beyond it is as good
  // as "never". Set once, before the first query (+infinity, the default: every quantile
  // exact). With a finite span, an exact quantile that the cheap paths cannot give on a chain
  // of kMinChargedChainStates states or more (Poisson beyond its mass, spectral form
  // ill-conditioned, no far-exit claim) is computed by capped_quantile.h, whose work the span
  // bounds, and is +infinity when it exceeds the span; every quantile within the span is the
  // exact one, so the run's events are those of an uncapped table.
  void set_run_span_s(double span_s);
  double run_span_s() const { return run_span_s_; }

  Duration t_out(const ExitChain& chain, int64_t s0, double alpha, Duration allowance);
  // The cached exit quantile in seconds (+infinity if never), for the rounded chain.
  double quantile_s(const ExitChain& chain, int64_t s0, double alpha);
  // The same for the silence under broadcast loss (silence_chain.h): rates rounded to 4
  // significant digits, the loss probability used exactly. loss = 0 is the region chain of s0
  // (the same value and cache entry as quantile_s / t_out on it).
  Duration t_out(const SilenceChain& chain, int64_t s0, double alpha, Duration allowance);
  double quantile_s(const SilenceChain& chain, int64_t s0, double alpha);

  // A cheap lower bound of quantile_s, never above it (callers arm a timer there and compute
  // the exact value only if the silence gets that long, which is rare). exact = true only when
  // it is the exact value itself (then from quantile_s, the same cache entry).
  // Region chain of at most kSpectralMaxStates states (U, M): the closed-form quantile of the
  // rounded chain (closed_form_exit.h: two states, or the Toeplitz medium region) shrunk by
  // 1e-7 relative (its error is below 1e-8, tested), a few exponentials per evaluation and no
  // memo; where there is no closed form (or it declines), the exact value.
  // Larger region chain (the top one): the quantile of the rounded chain restricted to the
  // states within kWindow of s0, where leaving the window counts as an exit, so that its
  // survival is below the chain's at every t. In closed form (shrunk by 1e-7) when that
  // window is Toeplitz (above 0 and below the reflecting top); else as a Poisson mixture
  // (poisson_survival.h, shrunk by 1e-9; beyond its range ln(1/alpha) / (total rate out of
  // s0), the quantile of staying in s0).
  // Lossy silence chain (loss > 0): the silence lasts at least until the first region change
  // (pathwise), so a lower bound of the region-exit quantile of s0's region (region_chain_of,
  // the same rounded rates) is one: the small-region bound above, or for s0 in the top region
  // its closed-form window; where that has no closed form, the Poisson window of the lossy
  // chain around s0 (leaving the window is an exit; a crossing of a region boundary inside it
  // keeps its weight `loss`).
  // They allocate only when a chain needs more series terms than any before (one scratch
  // PoissonSurvival per table, whose buffers keep their capacity). Before the last step of
  // issue 13 item 7 the small regions' bound was their exact spectral quantile (exact = true)
  // and the top region's always the Poisson window: only the cost changed, since the model
  // decides on exact values (it moves the instants at which timers check, not the outcomes).
  struct Bound {
    double q_s;
    bool exact;
  };
  // The quantile for a caller that has waited need_s seconds (a silence that reached its lower
  // bound, a sender's wait for its next extra broadcast) and asks again if its wait outlasts
  // the answer: {q, true} with the exact value (what quantile_s gives) where a cheap path gives
  // it, or where the run span's fallback (capped_quantile.h) finds it within its cap; else
  // {b, false}: the quantile is above b, the fallback's cap, at least twice need_s and twice
  // the previous such b of the same key (memoised), at most below the span. So the fallback's
  // work over one wait of length w is at most that of a few caps of 2 w (the caps double: about
  // 4 rate w x (1.15 S + 197) operations for S states) and a wait that ends sooner costs no
  // more: what the cost estimate counts (models/loadsharing/cost_bound.h). Without a run span,
  // or with need_s at least the span, always exact.
  Bound quantile_needed_s(const ExitChain& chain, int64_t s0, double alpha, double need_s);
  Bound quantile_needed_s(const SilenceChain& chain, int64_t s0, double alpha, double need_s);
  // t_out for a caller that has waited `need`: the exact T_out (*exact = true), or a lower bound
  // rounded down to the ns plus the allowance (*exact = false).
  Duration t_out_needed(const ExitChain& chain, int64_t s0, double alpha, Duration allowance,
                        Duration need, bool* exact);
  Duration t_out_needed(const SilenceChain& chain, int64_t s0, double alpha, Duration allowance,
                        Duration need, bool* exact);
  static constexpr int64_t kWindow = 8;
  // Region chains up to this many states go through SpectralExit, larger ones through
  // PoissonSurvival (see the header comment).
  static constexpr int64_t kSpectralMaxStates = 2 * kWindow + 1;
  Bound quantile_lower_bound_s(const ExitChain& chain, int64_t s0, double alpha);
  Bound quantile_lower_bound_s(const SilenceChain& chain, int64_t s0, double alpha);
  // The chain actually used for a query: rates rounded to 4 significant digits.
  static ExitChain rounded(const ExitChain& chain);
  // Entries currently memoized (exact values only, not bounds).
  size_t size() const { return cache_.size() + lossy_cache_.size(); }
  // The most memory the memos of one table ever hold.
  static constexpr size_t max_bytes() {
    return 2 * (BoundedCache<7, double>::max_bytes() + BoundedCache<9, double>::max_bytes()) +
           BoundedCache<7, Bound>::max_bytes() + BoundedCache<9, Bound>::max_bytes();
  }

 private:
  // (lo, hi, reflecting_top, s0, rounded lambda, rounded mu, alpha bits) and (th_u, th_f, s0,
  // rounded lambda_u, lambda_m, lambda_o, mu, loss bits, alpha bits) as words.
  using Key = BoundedCache<7, double>::Key;
  using LossyKey = BoundedCache<9, double>::Key;
  static Key key_of(const ExitChain& chain, int64_t s0, double alpha);
  static LossyKey key_of(const SilenceChain& chain, int64_t s0, double alpha);
  static SilenceChain rounded(const SilenceChain& chain);
  Duration to_t_out(double q_s, Duration allowance) const;
  Duration to_t_out(const Bound& b, Duration allowance) const;
  BoundedCache<7, double> cache_;
  BoundedCache<9, double> lossy_cache_;
  BoundedCache<7, Bound> bound_cache_;  // the lower bounds, same keys (never in size())
  BoundedCache<9, Bound> lossy_bound_cache_;
  // The fallback's caps known to be below the quantile (quantile_needed_s), same keys.
  BoundedCache<7, double> floor_cache_;
  BoundedCache<9, double> lossy_floor_cache_;
  PoissonSurvival scratch_;  // the bounds' workspace (its buffers only; no state between calls)
  double run_span_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace fdsim::timeout
