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
// It is computed by SpectralExit (spectral_exit.h: one eigendecomposition of the symmetrized
// tridiagonal sub-generator, then Newton), falling back to the uniformization of exit_chain.h
// for chains it cannot decompose; the two agree to about 1e-10 relative (tested).
// A chain whose exit is unreachable (e.g. lambda = 0 in {0,1}) gives Duration::max() ("never
// suspect"), as does a quantile beyond the Duration range.
//
// The cache grows by one entry per distinct key and is never evicted; with rates rounded to 4
// digits a run sees a bounded number of keys in practice. One table per model instance (no
// globals); not thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "models/timeout/exit_chain.h"
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
  Duration t_out(const ExitChain& chain, int64_t s0, double alpha, Duration allowance);
  // The cached exit quantile in seconds (+infinity if never), for the rounded chain.
  double quantile_s(const ExitChain& chain, int64_t s0, double alpha);
  // The same for the silence under broadcast loss (silence_chain.h): rates rounded to 4
  // significant digits, the loss probability used exactly. loss = 0 is the region chain of s0
  // (the same value and cache entry as quantile_s / t_out on it).
  Duration t_out(const SilenceChain& chain, int64_t s0, double alpha, Duration allowance);
  double quantile_s(const SilenceChain& chain, int64_t s0, double alpha);

  // A cheap lower bound of quantile_s, never above it (callers arm a timer there and compute
  // the exact value only if the silence gets that long, which is rare): the quantile of the
  // rounded chain restricted to the states within kWindow of s0, where leaving the window
  // counts as an exit, so that its survival is below the chain's at every t (shrunk by 1e-9
  // relative for rounding); if that window is the whole chain, the exact (cached) value with
  // exact = true. Falls back to ln(1/alpha) / (total rate out of s0), the quantile of staying
  // in s0, when the window's decomposition is not accurate.
  struct Bound {
    double q_s;
    bool exact;
  };
  static constexpr int64_t kWindow = 8;
  Bound quantile_lower_bound_s(const ExitChain& chain, int64_t s0, double alpha);
  Bound quantile_lower_bound_s(const SilenceChain& chain, int64_t s0, double alpha);
  // The chain actually used for a query: rates rounded to 4 significant digits.
  static ExitChain rounded(const ExitChain& chain);
  size_t size() const { return cache_.size() + lossy_cache_.size(); }

 private:
  struct Key {
    int64_t lo, hi;
    bool reflecting_top;
    int64_t s0;
    RoundedRate lambda, mu;
    uint64_t alpha_bits;
    auto operator<=>(const Key&) const = default;
  };
  struct LossyKey {
    int64_t th_u, th_f, s0;
    RoundedRate lambda_u, lambda_m, lambda_o, mu;
    uint64_t loss_bits, alpha_bits;
    auto operator<=>(const LossyKey&) const = default;
  };
  Duration to_t_out(double q_s, Duration allowance) const;
  std::map<Key, double> cache_;
  std::map<LossyKey, double> lossy_cache_;
  std::map<Key, Bound> bound_cache_;  // the lower bounds, same keys (never in size())
  std::map<LossyKey, Bound> lossy_bound_cache_;
};

}  // namespace fdsim::timeout
