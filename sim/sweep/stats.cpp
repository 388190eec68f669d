#include "sim/sweep/stats.h"
#include "sim/engine/internal_error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fdsim::sweep {

namespace {

// Continued fraction for the regularised incomplete beta (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double ln_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(ln_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

[[noreturn]] void bad_argument(const char* what, double p, double df) {
  fdsim::internal_error("fdsim: internal error: %s (p=%g, df=%g)\n", what, p, df);
}

}  // namespace

double student_t_cdf(double t, double df) {
  if (!(df > 0.0)) bad_argument("student_t_cdf needs df > 0", t, df);
  const double x = df / (df + t * t);
  const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, x);  // P(T > |t|)
  return t >= 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p >= 0.5 && p < 1.0) || !(df >= 1.0)) bad_argument("student_t_quantile", p, df);
  if (p == 0.5) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (student_t_cdf(hi, df) < p) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (student_t_cdf(mid, df) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.n = values.size();
  if (s.n == 0) return s;
  double sum = 0.0;
  for (double v : values) sum += v;
  const double mean = sum / double(s.n);
  s.mean = mean;
  if (s.n < 2) return s;
  double ss = 0.0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / double(s.n - 1));
  s.sd = sd;
  s.ci95_half_width = student_t_quantile(0.975, double(s.n - 1)) * sd / std::sqrt(double(s.n));
  return s;
}

}  // namespace fdsim::sweep
