#include "models/timeout/closed_form_exit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdsim::timeout {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two states lo, lo+1: exit rates e0 (down from lo, if lo >= 1) and e1 (up from lo+1, unless
// reflecting), in-region moves lambda (lo -> lo+1) and mu (lo+1 -> lo).
ExpSum two_states(const ExitChain& c, int64_t s0) {
  ExpSum s;
  const double e0 = c.lo >= 1 ? c.mu : 0.0;
  const double e1 = c.reflecting_top ? 0.0 : c.lambda;
  const double a0 = c.lambda + e0, a1 = c.mu + e1;  // total rates out of lo and lo+1
  // det = a0 a1 - lambda mu = lambda e1 + e0 mu + e0 e1, summed without cancellation.
  const double det = c.lambda * e1 + e0 * c.mu + e0 * e1;
  if (!(det > 0)) return s;  // the exit is unreachable
  const double big = 0.5 * ((a0 + a1) + std::sqrt((a0 - a1) * (a0 - a1) + 4 * c.lambda * c.mu));
  const double small = det / big;
  const double out = s0 == c.lo ? e0 : e1;  // -S'(0)
  if (!(big > small)) return s;
  s.n = 2;
  s.r = {small, big};
  // w0 + w1 = 1, w0 small + w1 big = out.
  s.w[0] = (big - out) / (big - small);
  s.w[1] = (out - small) / (big - small);
  return s;
}

// sin(k pi / (n + 1)) for k = 0 .. 2n + 1 and sin(j pi / (2 (n + 1))) for j = 1 .. n, for
// every n up to kClosedFormMaxStates (computed once; the initialisation of a function-local
// static is thread-safe).
struct SineTables {
  std::array<std::array<double, 2 * kClosedFormMaxStates + 2>, kClosedFormMaxStates + 1> full{};
  std::array<std::array<double, kClosedFormMaxStates + 1>, kClosedFormMaxStates + 1> half{};
};

const SineTables& sine_tables() {
  static const SineTables t = [] {
    SineTables s;
    for (int n = 1; n <= kClosedFormMaxStates; ++n) {
      for (int k = 0; k < 2 * n + 2; ++k)
        s.full[size_t(n)][size_t(k)] = std::sin(k * kPi / (n + 1));
      for (int j = 1; j <= n; ++j)
        s.half[size_t(n)][size_t(j)] = std::sin(j * kPi / (2.0 * (n + 1)));
    }
    return s;
  }();
  return t;
}

// n >= 1 states, birth lambda and death mu in each, exits at both ends.
ExpSum toeplitz(const ExitChain& c, int64_t s0) {
  ExpSum s;
  const int n = int(c.hi - c.lo + 1);
  const double g = std::sqrt(c.lambda / c.mu);  // d_{i+1} / d_i of the symmetrizer
  // |weights| grow like g^(n-1): keep them far from overflow (the cancellation test at the
  // root rejects what is still too ill-conditioned).
  if (!(std::abs(std::log(g)) * n < 200)) return s;
  const double sl = std::sqrt(c.lambda), sm = std::sqrt(c.mu);
  const double base = (sl - sm) * (sl - sm);
  const double off = 4 * sl * sm;
  const int i0 = int(s0 - c.lo) + 1;  // 1-based index of s0
  const SineTables& tab = sine_tables();
  const auto& full = tab.full[size_t(n)];  // sin(k pi / (n+1)), k mod 2(n+1)
  const size_t period = size_t(2 * n + 2);
  std::array<double, kClosedFormMaxStates + 1> gp{};  // g^(i - i0)
  gp[size_t(i0)] = 1;
  for (int i = i0 + 1; i <= n; ++i) gp[size_t(i)] = gp[size_t(i - 1)] * g;
  for (int i = i0 - 1; i >= 1; --i) gp[size_t(i)] = gp[size_t(i + 1)] / g;
  s.n = n;
  for (int j = 1; j <= n; ++j) {
    const double h = tab.half[size_t(n)][size_t(j)];
    s.r[size_t(j - 1)] = base + off * h * h;
    // w_j = u_j(i0) sum_i u_j(i) g^(i - i0), u_j(i) = sqrt(2/(n+1)) sin(i j pi/(n+1)).
    double sum = 0;
    for (int i = 1; i <= n; ++i) sum += full[size_t(i * j) % period] * gp[size_t(i)];
    s.w[size_t(j - 1)] = 2.0 / (n + 1) * full[size_t(i0 * j) % period] * sum;
  }
  return s;
}

}  // namespace

ExpSum closed_form_survival(const ExitChain& c, int64_t s0) {
  const int64_t n = c.hi - c.lo + 1;
  if (n > kClosedFormMaxStates || !(c.lambda > 0) || !(c.mu > 0)) return ExpSum{};
  if (n == 2) return two_states(c, s0);
  if (c.lo >= 1 && !c.reflecting_top) return toeplitz(c, s0);
  return ExpSum{};
}

double closed_form_quantile(const ExpSum& s, double alpha) {
  if (s.n == 0 || !(alpha > 0 && alpha < 1)) return kNaN;
  int slow = 0;  // the slowest mode
  for (int j = 0; j < s.n; ++j) {
    if (!(s.r[size_t(j)] > 0) || !std::isfinite(s.r[size_t(j)]) ||
        !std::isfinite(s.w[size_t(j)]))
      return kNaN;
    if (s.r[size_t(j)] < s.r[size_t(slow)]) slow = j;
  }
  const double rmin = s.r[size_t(slow)];
  // S(t), -S'(t) and sum |terms| at t.
  auto eval = [&s](double t, double* f, double* abs_sum) {
    double sum = 0, dens = 0, a = 0;
    for (int j = 0; j < s.n; ++j) {
      const double term = s.w[size_t(j)] * std::exp(-s.r[size_t(j)] * t);
      sum += term;
      dens += term * s.r[size_t(j)];
      a += std::abs(term);
    }
    *f = dens;
    *abs_sum = a;
    return sum;
  };
  // Newton on log S(t) = log alpha from the slowest mode's asymptote (S ~ w e^(-r t), where
  // it is nearly exact), safeguarded by the bracket [a, b] the evaluations establish; then a
  // = the root less 1e-10 relative, checked to have S(a) > alpha.
  const double log_alpha = std::log(alpha);
  double t = std::log(1 / alpha) / rmin;
  if (s.w[size_t(slow)] > alpha) t = std::log(s.w[size_t(slow)] / alpha) / rmin;
  double a = 0, b = std::numeric_limits<double>::infinity(), f, abs_sum;
  bool converged = false;
  for (int iter = 0; iter < 100; ++iter) {
    const double st = eval(t, &f, &abs_sum);
    if (st > alpha)
      a = std::max(a, t);
    else
      b = std::min(b, t);
    double next;
    if (st > 0 && f > 0) {
      next = t + (std::log(st) - log_alpha) * st / f;
    } else {
      next = std::isfinite(b) ? 0.5 * (a + b) : 2 * t;
    }
    // Converged (the step is at the rounding level): t is the root to about 1e-13.
    if (std::abs(next - t) <= 1e-13 * t) {
      converged = true;
      break;
    }
    if (!(next > a && next < b)) next = std::isfinite(b) ? 0.5 * (a + b) : 2 * std::max(t, a);
    t = next;
  }
  if (!converged || !(t > 0)) return kNaN;
  a = t * (1 - 1e-10);
  const double sa = eval(a, &f, &abs_sum);
  if (!(sa > alpha) || abs_sum > kMaxCancellation * sa) return kNaN;
  return a;
}

}  // namespace fdsim::timeout
