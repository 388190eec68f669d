#include "models/timeout/timeout_table.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "models/timeout/poisson_survival.h"
#include "models/timeout/spectral_exit.h"

namespace fdsim::timeout {

namespace {

// 10^k by exact multiplications (exact up to 10^22; beyond, deterministic IEEE rounding).
double pow10(int k) {
  double p = 1;
  for (int i = 0; i < (k < 0 ? -k : k); ++i) p *= 10;
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
    std::fprintf(stderr, "fdsim: internal error: cannot round rate %.17g\n", rate);
    std::abort();
  }
  RoundedRate r;
  if (rate == 0) return r;
  // value = mantissa * 10^exponent, mantissa in [1000, 9999]: exponent = floor(log10) - 3,
  // corrected if log10 rounding put the mantissa one decade off.
  int e = static_cast<int>(std::floor(std::log10(rate))) - 3;
  for (int tries = 0; tries < 4; ++tries) {
    const double scaled = e >= 0 ? rate / pow10(e) : rate * pow10(-e);
    const int64_t m = std::llround(scaled);
    if (m >= 10000) {
      if (m == 10000) return RoundedRate{1000, e + 1};  // 9999.5.. rounds up a decade
      ++e;
    } else if (m < 1000) {
      --e;
    } else {
      return RoundedRate{m, e};
    }
  }
  std::fprintf(stderr, "fdsim: internal error: rounding rate %.17g did not converge\n", rate);
  std::abort();
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
double region_quantile(const ExitChain& c, int64_t s0, double alpha) {
  if (c.hi - c.lo + 1 > TimeoutTable::kSpectralMaxStates && exit_reachable(c, s0)) {
    Eigen::VectorXd d, up, lo;
    region_diagonals(c, &d, &up, &lo);
    PoissonSurvival ps(d, up, lo, static_cast<Eigen::Index>(s0 - c.lo));
    const double q = ps.quantile(alpha);
    if (!std::isnan(q)) return q;
  }
  return spectral_quantile(c, s0, alpha);
}

}  // namespace

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

double TimeoutTable::quantile_s(const ExitChain& chain, int64_t s0, double alpha) {
  validate(chain);
  const Key key = key_of(chain, s0, alpha);
  if (const double* hit = cache_.find(key)) return *hit;
  const double q = region_quantile(rounded(chain), s0, alpha);
  cache_.put(key, q);
  return q;
}

Duration TimeoutTable::to_t_out(double q_s, Duration allowance) const {
  const double q_ns = std::ceil(q_s * 1e9);
  const double headroom_ns =
      static_cast<double>(Duration::max().count_ns() - allowance.count_ns());
  // Compare in double with a margin: anything near the int64 range is "never" anyway.
  if (!(q_ns < headroom_ns * 0.999)) return Duration::max();
  return Duration::ns(static_cast<int64_t>(q_ns)) + allowance;
}

Duration TimeoutTable::t_out(const ExitChain& chain, int64_t s0, double alpha,
                             Duration allowance) {
  if (allowance < Duration::zero()) {
    std::fprintf(stderr, "fdsim: internal error: negative delay allowance %s for chain %s\n",
                 to_string(allowance).c_str(), describe(chain).c_str());
    std::abort();
  }
  return to_t_out(quantile_s(chain, s0, alpha), allowance);
}

double TimeoutTable::quantile_s(const SilenceChain& chain, int64_t s0, double alpha) {
  if (chain.loss == 0) return quantile_s(region_chain_of(chain, s0), s0, alpha);
  validate(chain);
  const LossyKey key = key_of(chain, s0, alpha);
  if (const double* hit = lossy_cache_.find(key)) return *hit;
  const double q = silence_quantile(rounded(chain), s0, alpha);
  lossy_cache_.put(key, q);
  return q;
}

Duration TimeoutTable::t_out(const SilenceChain& chain, int64_t s0, double alpha,
                             Duration allowance) {
  if (allowance < Duration::zero()) {
    std::fprintf(stderr, "fdsim: internal error: negative delay allowance %s\n",
                 to_string(allowance).c_str());
    std::abort();
  }
  return to_t_out(quantile_s(chain, s0, alpha), allowance);
}

namespace {

// The window [a, b] of a tridiagonal chain given by its move rates (birth(i) to i+1, death(i)
// to i-1, both kept with weight keep_up(i) / keep_down(i) when they stay in the chain), with
// everything leaving [a, b] an exit. The quantile from s0, as a lower bound.
TimeoutTable::Bound window_bound(const std::vector<double>& birth, const std::vector<double>& death,
                                 const std::vector<double>& keep, int64_t s0, double alpha) {
  const int64_t n = static_cast<int64_t>(birth.size());
  const int64_t a = std::max<int64_t>(0, s0 - TimeoutTable::kWindow);
  const int64_t b = std::min<int64_t>(n - 1, s0 + TimeoutTable::kWindow);
  const Eigen::Index m = static_cast<Eigen::Index>(b - a + 1);
  Eigen::VectorXd d(m), up(m - 1), lo(m - 1);
  for (int64_t s = a; s <= b; ++s) {
    const Eigen::Index i = static_cast<Eigen::Index>(s - a);
    d(i) = -(birth[size_t(s)] + death[size_t(s)]);
    if (s < b) {
      up(i) = birth[size_t(s)] * keep[size_t(s)];
      lo(i) = death[size_t(s + 1)] * keep[size_t(s)];
    }
  }
  const double out = -d(static_cast<Eigen::Index>(s0 - a));
  PoissonSurvival ps(d, up, lo, static_cast<Eigen::Index>(s0 - a));
  // A bound needs no more than 3 digits: the lower end of a bracket of relative width 1e-3.
  const double q = ps.quantile_lower_bound(alpha, 1e-3);
  if (std::isfinite(q)) return {q * (1 - 1e-9), false};
  // Staying in s0 for t has probability exp(-out t) <= S(t).
  if (out <= 0) return {std::numeric_limits<double>::infinity(), false};
  return {std::log(1 / alpha) / out * (1 - 1e-9), false};
}

}  // namespace

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const ExitChain& chain, int64_t s0,
                                                         double alpha) {
  validate(chain);
  if (chain.hi - chain.lo <= 2 * kWindow) return {quantile_s(chain, s0, alpha), true};
  const Key key = key_of(chain, s0, alpha);
  if (const Bound* hit = bound_cache_.find(key)) return *hit;
  const ExitChain c = rounded(chain);
  const size_t n = size_t(c.hi - c.lo + 1);
  std::vector<double> birth(n), death(n), keep(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = c.lo + int64_t(i);
    birth[i] = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
    death[i] = s >= 1 ? c.mu : 0.0;
  }
  const Bound b = window_bound(birth, death, keep, s0 - c.lo, alpha);
  bound_cache_.put(key, b);
  return b;
}

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const SilenceChain& chain, int64_t s0,
                                                         double alpha) {
  if (chain.loss == 0) return quantile_lower_bound_s(region_chain_of(chain, s0), s0, alpha);
  validate(chain);
  const LossyKey key = key_of(chain, s0, alpha);
  if (const Bound* hit = lossy_bound_cache_.find(key)) return *hit;
  const ExitChain region = region_chain_of(chain, s0);
  Bound b;
  if (region.hi - region.lo + 1 <= kSpectralMaxStates) {
    // silence >= region exit time pathwise, so the region-exit quantile is below the silence's.
    const double q = quantile_s(region, s0, alpha);
    b = Bound{std::isfinite(q) ? q * (1 - 1e-9) : q, false};
  } else {
    // A large region (the top one): the window of the lossy chain around s0.
    const SilenceChain c = rounded(chain);
    const size_t n = size_t(c.top() + 1);
    std::vector<double> birth(n), death(n), keep(n, 1.0);
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = int64_t(i);
      birth[i] = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
      death[i] = s >= 1 ? c.mu : 0.0;
      if (s < c.top() && c.region_of(s) != c.region_of(s + 1)) keep[i] = c.loss;
    }
    b = window_bound(birth, death, keep, s0, alpha);
  }
  lossy_bound_cache_.put(key, b);
  return b;
}

}  // namespace fdsim::timeout
