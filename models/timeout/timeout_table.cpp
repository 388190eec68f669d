#include "models/timeout/timeout_table.h"

#include "models/timeout/spectral_exit.h"

#include <vector>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

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

double TimeoutTable::quantile_s(const ExitChain& chain, int64_t s0, double alpha) {
  validate(chain);
  const Key key{chain.lo,
                chain.hi,
                chain.reflecting_top,
                s0,
                round_4_significant(chain.lambda),
                round_4_significant(chain.mu),
                std::bit_cast<uint64_t>(alpha)};
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  const ExitChain c = rounded(chain);
  const double q = spectral_quantile(c, s0, alpha);
  cache_.emplace(key, q);
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
  const LossyKey key{chain.th_u,
                     chain.th_f,
                     s0,
                     round_4_significant(chain.lambda[0]),
                     round_4_significant(chain.lambda[1]),
                     round_4_significant(chain.lambda[2]),
                     round_4_significant(chain.mu),
                     std::bit_cast<uint64_t>(chain.loss),
                     std::bit_cast<uint64_t>(alpha)};
  auto it = lossy_cache_.find(key);
  if (it != lossy_cache_.end()) return it->second;
  SilenceChain c = chain;
  c.lambda = {key.lambda_u.value(), key.lambda_m.value(), key.lambda_o.value()};
  c.mu = key.mu.value();
  const double q = silence_quantile(c, s0, alpha);
  lossy_cache_.emplace(key, q);
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
  const SpectralExit e(d, up, lo, static_cast<Eigen::Index>(s0 - a));
  if (e.accurate()) {
    const double q = e.quantile(alpha);
    if (std::isfinite(q)) return {q * (1 - 1e-9), false};
  }
  // Staying in s0 for t has probability exp(-out t) <= S(t).
  if (out <= 0) return {std::numeric_limits<double>::infinity(), false};
  return {std::log(1 / alpha) / out * (1 - 1e-9), false};
}

}  // namespace

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const ExitChain& chain, int64_t s0,
                                                         double alpha) {
  validate(chain);
  if (chain.hi - chain.lo <= 2 * kWindow) return {quantile_s(chain, s0, alpha), true};
  const Key key{chain.lo,
                chain.hi,
                chain.reflecting_top,
                s0,
                round_4_significant(chain.lambda),
                round_4_significant(chain.mu),
                std::bit_cast<uint64_t>(alpha)};
  auto it = bound_cache_.find(key);
  if (it != bound_cache_.end()) return it->second;
  const ExitChain c = rounded(chain);
  const size_t n = size_t(c.hi - c.lo + 1);
  std::vector<double> birth(n), death(n), keep(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = c.lo + int64_t(i);
    birth[i] = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
    death[i] = s >= 1 ? c.mu : 0.0;
  }
  const Bound b = window_bound(birth, death, keep, s0 - c.lo, alpha);
  bound_cache_.emplace(key, b);
  return b;
}

TimeoutTable::Bound TimeoutTable::quantile_lower_bound_s(const SilenceChain& chain, int64_t s0,
                                                         double alpha) {
  if (chain.loss == 0) return quantile_lower_bound_s(region_chain_of(chain, s0), s0, alpha);
  validate(chain);
  const LossyKey key{chain.th_u,
                     chain.th_f,
                     s0,
                     round_4_significant(chain.lambda[0]),
                     round_4_significant(chain.lambda[1]),
                     round_4_significant(chain.lambda[2]),
                     round_4_significant(chain.mu),
                     std::bit_cast<uint64_t>(chain.loss),
                     std::bit_cast<uint64_t>(alpha)};
  auto it = lossy_bound_cache_.find(key);
  if (it != lossy_bound_cache_.end()) return it->second;
  SilenceChain c = chain;
  c.lambda = {key.lambda_u.value(), key.lambda_m.value(), key.lambda_o.value()};
  c.mu = key.mu.value();
  const size_t n = size_t(c.top() + 1);
  std::vector<double> birth(n), death(n), keep(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = int64_t(i);
    birth[i] = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
    death[i] = s >= 1 ? c.mu : 0.0;
    if (s < c.top() && c.region_of(s) != c.region_of(s + 1)) keep[i] = c.loss;
  }
  const Bound b = window_bound(birth, death, keep, s0, alpha);
  lossy_bound_cache_.emplace(key, b);
  return b;
}

}  // namespace fdsim::timeout
