#include "models/timeout/timeout_table.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "models/timeout/capped_quantile.h"
#include "models/timeout/closed_form_exit.h"
#include "models/timeout/far_exit.h"
#include "models/timeout/poisson_survival.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/uniformization.h"

namespace fdsim::timeout {

namespace {

// 10^k by exact multiplications (exact up to 10^22; beyond, deterministic IEEE rounding); the
// exact ones from a table (the same values: every 10^k, k <= 22, is a double).
constexpr std::array<double, 23> kPow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
double pow10(int k) {
  const int m = k < 0 ? -k : k;
  if (m < int(kPow10.size())) return kPow10[size_t(m)];
  double p = 1;
  for (int i = 0; i < m; ++i) p *= 10;
  return p;
}

}  // namespace

double RoundedRate::value() const {
  if (mantissa == 0) return 0;
  const double m = static_cast<double>(mantissa);
  return exponent >= 0 ? m * pow10(exponent) : m / pow10(-exponent);
}

RoundedRate round_4_significant(double rate) {
  if (!(rate >= 0) || !std::isfinite(rate)) {
    fdsim::internal_error("fdsim: internal error: cannot round rate %.17g\n", rate);
  }
  RoundedRate r;
  // A rate below 1e-290 per second (a posterior whose evidence was forgotten to a subnormal)
  // rounds to 0: 10^-e for its exponent would overflow, and at any time scale a simulation can
  // reach (1e9 s) such a rate never fires. Every larger rate rounds as before.
  if (rate < 1e-290) return r;
  // value = mantissa * 10^exponent, mantissa in [1000, 9999]. Start from floor(log10(rate)) - 3
  // or one decade below it: rate is in [2^b, 2^(b+1)), so floor(log10 rate) is floor(b log10 2)
  // or one more (log10 2 < 1). From below, the first exponent whose mantissa rounds into [1000,
  // 9999] (or to 10000, which rounds up a decade) is the correctly rounded one, so this walks
  // up at most two decades (cheaper than a log10; the result is the one of the log10 start,
  // tested against it in tests/timeout/timeout_table_test.cpp).
  const int b = std::ilogb(rate);
  int e = static_cast<int>(std::floor(b * 0.30102999566398120)) - 3;
  for (int tries = 0; tries < 4; ++tries) {
    const double scaled = e >= 0 ? rate / pow10(e) : rate * pow10(-e);
    // std::llround without the library call: for 1 <= x < 2^50, x + 0.5 is exact (or, across a
    // power of two, keeps its integer part), so truncating it rounds half away from zero.
    const int64_t m =
        scaled >= 1 && scaled < 0x1p50 ? int64_t(scaled + 0.5) : std::llround(scaled);
    if (m >= 10000) {
      if (m == 10000) return RoundedRate{1000, e + 1};  // 9999.5.. rounds up a decade
      ++e;
    } else if (m < 1000) {
      --e;
    } else {
      return RoundedRate{m, e};
    }
  }
  fdsim::internal_error("fdsim: internal error: rounding rate %.17g did not converge\n", rate);
}

ExitChain TimeoutTable::rounded(const ExitChain& chain) {
  ExitChain c = chain;
  c.lambda = round_4_significant(chain.lambda).value();
  c.mu = round_4_significant(chain.mu).value();
  return c;
}

namespace {

uint64_t word(RoundedRate r) {
  return (uint64_t(r.mantissa) << 20) | uint64_t(uint32_t(r.exponent + 0x80000) & 0xFFFFFu);
}

// The diagonals of the sub-generator of a region chain (exit_chain.h).
void region_diagonals(const ExitChain& c, Eigen::VectorXd* d, Eigen::VectorXd* up,
                      Eigen::VectorXd* lo) {
  const Eigen::Index n = static_cast<Eigen::Index>(c.hi - c.lo + 1);
  *d = Eigen::VectorXd(n);
  *up = Eigen::VectorXd(n - 1);
  *lo = Eigen::VectorXd(n - 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int64_t s = c.lo + i;
    const double birth = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
    const double death = s >= 1 ? c.mu : 0.0;
    (*d)(i) = -(birth + death);
    if (i + 1 < n) {
      (*up)(i) = birth;
      (*lo)(i) = c.mu;  // death from s + 1 >= 1
    }
  }
}

// The exact quantile of a (rounded) region chain: see the header for the choice of method.
// With a run span, *beyond_cap_s as in silence_quantile (silence_chain.h).
double region_quantile(const ExitChain& c, int64_t s0, double alpha, const QuantileCap& cap,
                       double* beyond_cap_s) {
  *beyond_cap_s = std::numeric_limits<double>::quiet_NaN();
  if (c.hi - c.lo + 1 > TimeoutTable::kSpectralMaxStates && exit_reachable(c, s0)) {
    Eigen::VectorXd d, up, lo;
    region_diagonals(c, &d, &up, &lo);
    PoissonSurvival ps(d, up, lo, static_cast<Eigen::Index>(s0 - c.lo));
    const double q = ps.quantile(alpha);
    if (!std::isnan(q)) return q;
    // Beyond the Poisson path's mass, a region whose exit is provably later than any Duration
    // (far_exit.h) is "never" without the spectral form's dense fallback (the same T_out).
    if (exit_later_than(c, s0, alpha, kBeyondDurationS))
      return std::numeric_limits<double>::infinity();
    // With a run span, a chain of kMinChargedChainStates states or more whose spectral form is
    // ill-conditioned takes the exact path the span bounds (capped_quantile.h) instead of
    // spectral_quantile's uncapped dense uniformization.
    if (d.size() >= kMinChargedChainStates && std::isfinite(cap.span_s)) {
      const SpectralExit e(c, s0);
      if (e.accurate()) return e.quantile(alpha);
      const double cap_s = effective_cap_s(cap, ps.rate());
      const double q =
          capped_quantile(d, up, lo, static_cast<Eigen::Index>(s0 - c.lo), alpha, cap_s, ps);
      if (std::isinf(q)) *beyond_cap_s = cap_s;
      return q;
    }
  }
  return spectral_quantile(c, s0, alpha);
}

}  // namespace

void TimeoutTable::set_run_span_s(double span_s) {
  if (!(span_s > 0)) fdsim::internal_error("fdsim: internal error: run span %.17g s\n", span_s);
  if (size() != 0)
    fdsim::internal_error("fdsim: internal error: run span set after quantiles were cached\n");
  run_span_s_ = span_s;
}

TimeoutTable::Key TimeoutTable::key_of(const ExitChain& chain, int64_t s0, double alpha) {
  return Key{uint64_t(chain.lo),
             uint64_t(chain.hi),
             uint64_t(chain.reflecting_top),
             uint64_t(s0),
             word(round_4_significant(chain.lambda)),
             word(round_4_significant(chain.mu)),
             std::bit_cast<uint64_t>(alpha)};
}

TimeoutTable::LossyKey TimeoutTable::key_of(const SilenceChain& chain, int64_t s0, double alpha) {
  return LossyKey{uint64_t(chain.th_u),
                  uint64_t(chain.th_f),
                  uint64_t(s0),
                  word(round_4_significant(chain.lambda[0])),
                  word(round_4_significant(chain.lambda[1])),
                  word(round_4_significant(chain.lambda[2])),
                  word(round_4_significant(chain.mu)),
                  std::bit_cast<uint64_t>(chain.loss),
                  std::bit_cast<uint64_t>(alpha)};
}

SilenceChain TimeoutTable::rounded(const SilenceChain& chain) {
  SilenceChain c = chain;
  for (double& l : c.lambda) l = round_4_significant(l).value();
  c.mu = round_4_significant(chain.mu).value();
  return c;
}

namespace {

// The cap of a query that has waited need_s, given the largest lower bound already known beyond
// a cap (`floor`, 0 if none): double the wait, at least double the floor (quantile_needed_s).
QuantileCap cap_for(double need_s, const double* floor, double span_s) {
  const double wanted = 2.0 * std::max(need_s, floor ? *floor : 0.0);
  return QuantileCap{std::min(wanted, span_s), span_s};
}

}  // namespace

TimeoutTable::Bound TimeoutTable::quantile_needed_s(const ExitChain& chain, int64_t s0,
                                                    double alpha, double need_s) {
  validate(chain);
  const Key key = key_of(chain, s0, alpha);
  if (const double* hit = cache_.find(key)) return {*hit, true};
  const double* floor = floor_cache_.find(key);
  if (floor && *floor > need_s) return {*floor, false};
  double beyond_s;
  const double q =
      region_quantile(rounded(chain), s0, alpha, cap_for(need_s, floor, run_span_s_), &beyond_s);
  // Beyond a cap below the span: a lower bound, kept for the next query. Beyond the span
  // itself: "never" within the run, as exact as the run needs.
  if (beyond_s < run_span_s_) {
    floor_cache_.put(key, beyond_s);
    return {beyond_s, false};
  }
  cache_.put(key, q);
  return {q, true};
}

double TimeoutTable::quantile_s(const ExitChain& chain, int64_t s0, double alpha) {
  return quantile_needed_s(chain, s0, alpha, run_span_s_).q_s;
}

Duration TimeoutTable::to_t_out(double q_s, Duration allowance) const {
  const double q_ns = std::ceil(q_s * 1e9);
  const double headroom_ns =
      static_cast<double>(Duration::max().count_ns() - allowance.count_ns());
  // Compare in double with a margin: anything near the int64 range is "never" anyway.
  if (!(q_ns < headroom_ns * 0.999)) return Duration::max();
  return Duration::ns(static_cast<int64_t>(q_ns)) + allowance;
}

Duration TimeoutTable::to_t_out(const Bound& b, Duration allowance) const {
  if (b.exact) return to_t_out(b.q_s, allowance);
  // A lower bound rounded down to the ns (b.q_s is below the span, far from overflow).
  return Duration::ns(static_cast<int64_t>(std::floor(b.q_s * 1e9))) + allowance;
}

namespace {

void check_allowance(Duration allowance) {
  if (allowance < Duration::zero()) {
    fdsim::internal_error("fdsim: internal error: negative delay allowance %s\n",
                          to_string(allowance).c_str());
  }
}

}  // namespace

Duration TimeoutTable::t_out(const ExitChain& chain, int64_t s0, double alpha,
                             Duration allowance) {
  check_allowance(allowance);
  return to_t_out(quantile_s(chain, s0, alpha), allowance);
}

Duration TimeoutTable::t_out_needed(const ExitChain& chain, int64_t s0, double alpha,
                                    Duration allowance, Duration need, bool* exact) {
  check_allowance(allowance);
  const Bound b = quantile_needed_s(chain, s0, alpha, need.seconds());
  *exact = b.exact;
  return to_t_out(b, allowance);
}

TimeoutTable::Bound TimeoutTable::quantile_needed_s(const SilenceChain& chain, int64_t s0,
                                                    double alpha, double need_s) {
  if (chain.loss == 0) return quantile_needed_s(region_chain_of(chain, s0), s0, alpha, need_s);
  validate(chain);
  const LossyKey key = key_of(chain, s0, alpha);
  if (const double* hit = lossy_cache_.find(key)) return {*hit, true};
  const double* floor = lossy_floor_cache_.find(key);
  if (floor && *floor > need_s) return {*floor, false};
  double beyond_s;
  const double q = silence_quantile(rounded(chain), s0, alpha,
                                    cap_for(need_s, floor, run_span_s_), &beyond_s);
  if (beyond_s < run_span_s_) {
    lossy_floor_cache_.put(key, beyond_s);
    return {beyond_s, false};
  }
  lossy_cache_.put(key, q);
  return {q, true};
}

double TimeoutTable::quantile_s(const SilenceChain& chain, int64_t s0, double alpha) {
  return quantile_needed_s(chain, s0, alpha, run_span_s_).q_s;
}

Duration TimeoutTable::t_out(const SilenceChain& chain, int64_t s0, double alpha,
                             Duration allowance) {
  check_allowance(allowance);
  return to_t_out(quantile_s(chain, s0, alpha), allowance);
}

Duration TimeoutTable::t_out_needed(const SilenceChain& chain, int64_t s0, double alpha,
                                    Duration allowance, Duration need, bool* exact) {
  check_allowance(allowance);
  const Bound b = quantile_needed_s(chain, s0, alpha, need.seconds());
  *exact = b.exact;
  return to_t_out(b, allowance);
}

namespace {

// Relative width of the bracket whose lower end is a window's bound: T_out needs no more than 3
// digits to decide when to compute the exact value.
constexpr double kBoundRelWidth = 1e-3;
// The bounds are shrunk by this relative amount below the lower end of the bracket, so that
// rounding in the evaluation of S cannot put them above the quantile.
constexpr double kBoundShrink = 1 - 1e-9;

// A closed-form quantile (closed_form_exit.h: within 1e-8 of the exact quantile of the same
// rounded chain over rate ratios 1e-5 to 1e5, tested; usually within 1e-12) is shrunk by this
// much to be a lower bound of the exact value.
constexpr double kClosedFormShrink = 1 - 1e-7;

// A closed-form quantile (NaN where the closed form declined) as a bound, or nullopt.
std::optional<TimeoutTable::Bound> closed_form_bound(double q) {
  if (!(q > 0) || !std::isfinite(q)) return std::nullopt;
  return TimeoutTable::Bound{q * kClosedFormShrink, false};
}

// The largest chain a bound is computed on: a window of 2 kWindow + 1 states, or a region of at
// most kSpectralMaxStates states.
constexpr int64_t kMaxBoundStates = TimeoutTable::kSpectralMaxStates;
static_assert(2 * TimeoutTable::kWindow + 1 <= kMaxBoundStates);

struct Rates {
  double birth, death, keep;  // move rates out of a state; keep = weight of staying in the chain
};

// The window [a, b] of a tridiagonal chain on 0..n-1 given by its move rates (rates(s): birth
// from s to s+1, death from s to s-1, and keep = the weight of a move across the boundary
// between s and s+1, either way), with everything leaving [a, b] an exit. The quantile from
// s0, as a lower bound. No allocation beyond `scratch`'s buffers.
template <class RatesOf>
TimeoutTable::Bound window_bound(int64_t n, RatesOf rates, int64_t s0, double alpha,
                                 PoissonSurvival& scratch) {
  const int64_t a = std::max<int64_t>(0, s0 - TimeoutTable::kWindow);
  const int64_t b = std::min<int64_t>(n - 1, s0 + TimeoutTable::kWindow);
  const int64_t m = b - a + 1;
  std::array<double, kMaxBoundStates> d{}, up{}, lo{};
  Rates next = rates(a);
  for (int64_t s = a; s <= b; ++s) {
    const int64_t i = s - a;
    const Rates r = next;
    d[size_t(i)] = -(r.birth + r.death);
    if (s < b) {
      next = rates(s + 1);
      up[size_t(i)] = r.birth * r.keep;
      lo[size_t(i)] = next.death * r.keep;
    }
  }
  const double out = -d[size_t(s0 - a)];
  scratch.reset(d.data(), up.data(), lo.data(), static_cast<Eigen::Index>(m),
                static_cast<Eigen::Index>(s0 - a));
  // A bound needs no more than 3 digits: the lower end of a bracket of relative width 1e-3.
  const double q = scratch.quantile_lower_bound(alpha, kBoundRelWidth);
  if (std::isfinite(q)) return {q * kBoundShrink, false};
  // Staying in s0 for t has probability exp(-out t) <= S(t).
  if (out <= 0) return {std::numeric_limits<double>::infinity(), false};
  return {std::log(1 / alpha) / out * kBoundShrink, false};
}

// The window of a large region chain `c` (rounded) around s0 as a chain of its own: states
// [max(lo, s0 - kWindow), s0 + kWindow] with exits at both ends. Leaving it comes no later
// than leaving the region (pathwise), so its quantile is a lower bound of the region's. When
// the window stays above 0 and below a reflecting top it is Toeplitz and has a closed form
// (closed_form_exit.h); NaN otherwise (and where the closed form declines).
double toeplitz_window_quantile(const ExitChain& c, int64_t s0, double alpha) {
  const int64_t lo = std::max(c.lo, s0 - TimeoutTable::kWindow);
  const int64_t hi = s0 + TimeoutTable::kWindow;
  if (lo < 1 || hi > c.hi || (c.reflecting_top && hi == c.hi))
    return std::numeric_limits<double>::quiet_NaN();
  return closed_form_quantile(closed_form_survival(region_chain(lo, hi, c.lambda, c.mu), s0),
                              alpha);
}

}  // namespace

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const ExitChain& chain, int64_t s0,
                                                         double alpha) {
  validate(chain);
  if (chain.hi - chain.lo + 1 <= kSpectralMaxStates) {
    // A small region: its closed-form survival (closed_form_exit.h) where it has one (no memo:
    // cheaper than the memo's key), else the exact value (the spectral path, cached).
    const double q = closed_form_quantile(closed_form_survival(rounded(chain), s0), alpha);
    if (const auto b = closed_form_bound(q)) return *b;
    return {quantile_s(chain, s0, alpha), true};
  }
  const Key key = key_of(chain, s0, alpha);
  if (const Bound* hit = bound_cache_.find(key)) return *hit;
  // A large region (the top one): the window around s0, in closed form where it has one.
  const ExitChain c = rounded(chain);
  std::optional<Bound> b = closed_form_bound(toeplitz_window_quantile(c, s0, alpha));
  if (!b) {
    b = window_bound(
        c.hi - c.lo + 1,
        [&c](int64_t i) {
          const int64_t s = c.lo + i;
          return Rates{(s == c.hi && c.reflecting_top) ? 0.0 : c.lambda, s >= 1 ? c.mu : 0.0, 1.0};
        },
        s0 - c.lo, alpha, scratch_);
  }
  bound_cache_.put(key, *b);
  return *b;
}

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const SilenceChain& chain, int64_t s0,
                                                         double alpha) {
  if (chain.loss == 0) return quantile_lower_bound_s(region_chain_of(chain, s0), s0, alpha);
  validate(chain);
  const ExitChain region = region_chain_of(chain, s0);
  if (region.hi - region.lo + 1 <= kSpectralMaxStates) {
    // silence >= region exit time pathwise, so a lower bound of the region-exit quantile (the
    // same rounded rates) is one of the silence's. No memo of its own (the closed form is
    // cheaper than the lossy key; the exact fallback is cached).
    const Bound r = quantile_lower_bound_s(region, s0, alpha);
    return Bound{r.exact && std::isfinite(r.q_s) ? r.q_s * kBoundShrink : r.q_s, false};
  }
  const LossyKey key = key_of(chain, s0, alpha);
  if (const Bound* hit = lossy_bound_cache_.find(key)) return *hit;
  // A large region (the top one): the closed-form window of the region (a lower bound of the
  // region's exit, so of the silence), else the window of the lossy chain around s0.
  const SilenceChain c = rounded(chain);
  std::optional<Bound> b =
      closed_form_bound(toeplitz_window_quantile(region_chain_of(c, s0), s0, alpha));
  if (!b) {
    b = window_bound(
        c.top() + 1,
        [&c](int64_t s) {
          const bool crosses = s < c.top() && c.region_of(s) != c.region_of(s + 1);
          return Rates{s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))], s >= 1 ? c.mu : 0.0,
                       crosses ? c.loss : 1.0};
        },
        s0, alpha, scratch_);
  }
  lossy_bound_cache_.put(key, *b);
  return *b;
}

}  // namespace fdsim::timeout
