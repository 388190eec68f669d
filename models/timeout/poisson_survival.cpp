#include "models/timeout/poisson_survival.h"
#include "models/timeout/uniformization.h"
#include "models/timeout/contract.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const char* what, double v) {
  contract_failure("poisson survival", what, v);
}

constexpr double kRelWidth = kQuantileRelWidth;

// ln(n!) for n >= 100 by Stirling's series (the next term, 1 / (1680 n^7), is below 1e-17):
// unlike std::lgamma it writes no global (signgam), so simulations may run in threads.
double log_factorial(double n) {
  const double n2 = n * n;
  return n * std::log(n) - n + 0.5 * std::log(2 * 3.14159265358979323846 * n) +
         1.0 / (12 * n) - 1.0 / (360 * n * n2) + 1.0 / (1260 * n * n2 * n2);
}

// ln Pois(k; x) for k >= 100 in Loader's saddle-point form (C. Loader, "Fast and accurate
// computation of binomial probabilities", 2000): -bd0(k, x) - stirlerr(k) - ln(2 pi k) / 2,
// with bd0(k, x) = k ln(k / x) + x - k summed as a series in v = (k - x) / (k + x) when k is
// near x, so that no large terms cancel. Its error is a few ulps of bd0 (tens at most near the
// series' cut), against about x ulps for -x + k ln x - ln k! (1e-10 relative at x = 1e6): the
// weights beyond kMaxMass (quantile_within) use it; those up to kMaxMass keep the direct form,
// which the committed results were computed with.
double log_poisson_mass(double k, double x) {
  double bd0;
  if (std::fabs(k - x) < 0.1 * (k + x)) {
    const double v = (k - x) / (k + x);
    const double v2 = v * v;
    double s = (k - x) * v;
    double ej = 2 * k * v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v2;
      const double next = s + ej / (2 * j + 1);
      if (next == s) break;
      s = next;
    }
    bd0 = s;
  } else {
    bd0 = k * std::log(k / x) + x - k;
  }
  const double k2 = k * k;
  const double stirlerr = 1.0 / (12 * k) - 1.0 / (360 * k * k2) + 1.0 / (1260 * k * k2 * k2);
  return -bd0 - stirlerr - 0.5 * std::log(2 * 3.14159265358979323846 * k);
}

}  // namespace

PoissonSurvival::PoissonSurvival(const Eigen::VectorXd& diag, const Eigen::VectorXd& upper,
                                 const Eigen::VectorXd& lower, Eigen::Index start) {
  if (diag.size() == 0 || upper.size() != diag.size() - 1 || lower.size() != diag.size() - 1)
    fail("diagonals of inconsistent sizes", double(diag.size()));
  reset(diag.data(), upper.data(), lower.data(), diag.size(), start);
}

void PoissonSurvival::reset(const double* diag, const double* upper, const double* lower,
                            Eigen::Index n_states, Eigen::Index start) {
  n_ = n_states;
  rate_ = 0;
  if (n_ <= 0) fail("no states", double(n_));
  if (start < 0 || start >= n_) fail("start state out of range", double(start));
  for (Eigen::Index i = 0; i < n_; ++i) {
    if (!(diag[i] <= 0) || !std::isfinite(diag[i]))
      fail("diagonal must be finite and <= 0", diag[i]);
    rate_ = std::max(rate_, -diag[i]);
    if (i + 1 < n_ && !(upper[i] >= 0 && lower[i] >= 0 && std::isfinite(upper[i]) &&
                        std::isfinite(lower[i])))
      fail("off-diagonal rates must be finite and >= 0", double(i));
  }
  const size_t n = size_t(n_);
  // pu_[j] = P(j-1, j) (pu_[0] = 0), pd_[j] = P(j, j), pl_[j] = P(j+1, j) (pl_[n-1] = 0).
  pd_.assign(n, 1.0);
  pu_.assign(n + 1, 0.0);
  pl_.assign(n, 0.0);
  if (rate_ > 0) {
    for (size_t i = 0; i < n; ++i) {
      pd_[i] = 1.0 + diag[i] / rate_;
      if (i + 1 < n) {
        pu_[i + 1] = upper[i] / rate_;
        pl_[i] = lower[i] / rate_;
      }
    }
  }
  row_.assign(n + 2, 0.0);
  next_.assign(n + 2, 0.0);
  row_[size_t(start) + 1] = 1.0;
  lo_ = hi_ = start;
  v_.assign(1, 1.0);
  max_mass_ = kMaxMass;
}

void PoissonSurvival::count_work(uint64_t operations) {
  uncharged_ += operations;
  if (uncharged_ < 64) return;
  charge_chain_work(int64_t(n_), uncharged_ / 64);
  uncharged_ %= 64;
}

void PoissonSurvival::extend_to(size_t k) {
  // row_ and next_ are padded with one zero at each end (index j + 1 holds state j), and
  // pu_(-1) = pl_(n-1) = 0, so the product needs no bounds tests.
  while (v_.size() <= k) {
    // next = row P on the support grown by one state each side.
    const Eigen::Index lo = std::max<Eigen::Index>(0, lo_ - 1);
    const Eigen::Index hi = std::min<Eigen::Index>(n_ - 1, hi_ + 1);
    const double* r = row_.data() + 1;
    double* out = next_.data() + 1;
    const double* pd = pd_.data();
    const double* pu = pu_.data() + 1;  // pu[j - 1] = P(j-1, j), pu[-1] = 0
    const double* pl = pl_.data();      // pl[j] = P(j+1, j), pl[n-1] = 0
    double sum = 0;
    for (Eigen::Index j = lo; j <= hi; ++j) {
      const double x = r[j] * pd[j] + r[j - 1] * pu[j - 1] + r[j + 1] * pl[j];
      out[j] = x;
      sum += x;
    }
    row_.swap(next_);
    lo_ = lo;
    hi_ = hi;
    v_.push_back(sum);
    count_work(uint64_t(hi - lo + 1));
  }
}

bool PoissonSurvival::evaluate(double t_s, double* s, double* f) {
  if (!(t_s >= 0) || !std::isfinite(t_s)) fail("time must be finite and >= 0", t_s);
  const double x = rate_ * t_s;
  if (x > max_mass_) return false;
  // Terms below k0 are left out when x > kDirectMass (the Poisson lower tail below
  // x - 10 sqrt(x) is at most e^-50); p_k0 from the log of the Poisson mass.
  size_t k0 = 0;
  double p;
  if (x <= kDirectMass) {
    p = std::exp(-x);
  } else {
    k0 = size_t(std::floor(x - 10.0 * std::sqrt(x)));  // >= 355 since x > 600
    p = x <= kMaxMass ? std::exp(-x + double(k0) * std::log(x) - log_factorial(double(k0)))
                      : std::exp(log_poisson_mass(double(k0), x));
  }
  double sum_s = 0, sum_f = 0;
  for (size_t k = k0;; ++k) {
    if (k + 1 >= v_.size()) extend_to(k + 1);
    while (inv_.size() <= k) inv_.push_back(1.0 / double(inv_.size() + 1));
    sum_s += p * v_[k];
    sum_f += p * (v_[k] - v_[k + 1]);
    const double next = p * x * inv_[k];  // p_{k+1} = p_k x / (k + 1)
    // Tail after terms 0..k: at most p_{k+1} / (1 - x / (k + 2)) once k + 2 > x
    // (uniformization.h); v and v_k - v_{k+1} are in [0, 1].
    const double k2 = double(k) + 2;
    if (k2 > x && next * k2 < kTail * (k2 - x)) {
      count_work(k + 1 - k0);
      break;
    }
    p = next;
  }
  *s = sum_s;
  *f = rate_ * sum_f;
  return true;
}

double PoissonSurvival::survival(double t_s) {
  double s, f;
  if (!evaluate(t_s, &s, &f)) return std::numeric_limits<double>::quiet_NaN();
  return s;
}

double PoissonSurvival::density(double t_s) {
  double s, f;
  if (!evaluate(t_s, &s, &f)) return std::numeric_limits<double>::quiet_NaN();
  return f;
}

bool PoissonSurvival::bracket(double alpha, double rel_width, double* lo_s, double* hi_s,
                              double cap_s) {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  // A first guess from the k-step survivals: S(t) is an average of v_k over k ~ Poisson(Lambda
  // t), so it crosses alpha near t = k* / Lambda where v_k* <= alpha (found while extending v,
  // which evaluations near the root need anyway). Then a bracket [a, b] with S(a) > alpha >=
  // S(b) around it, widened by doubling if needed.
  // With a cap (quantile_within: S(cap_s) <= alpha is known), b never exceeds it, and where
  // no such k* exists among the terms evaluated at the cap the bracket is [0, cap_s].
  size_t k_star = 0;
  bool guessed = true;
  while (v_[k_star] > alpha) {
    if (double(k_star) > max_mass_) {
      if (!std::isfinite(cap_s)) return false;
      guessed = false;
      break;
    }
    ++k_star;
    extend_to(k_star);
  }
  const double spread = 3.0 * std::sqrt(double(k_star)) + 2.0;
  double a = guessed ? std::min(std::max(0.0, (double(k_star) - spread) / rate_), cap_s) : 0.0;
  double b = guessed ? std::min((double(k_star) + spread) / rate_, cap_s) : cap_s;
  double sa = 1, sb, f;
  if (a > 0) {
    if (!evaluate(a, &sa, &f)) return false;
    if (!(sa > alpha)) {  // the guess was late: [0, a] brackets the root
      b = a;
      a = 0;
      sa = 1;
    }
  }
  for (;;) {
    if (!evaluate(b, &sb, &f)) return false;
    if (sb <= alpha) break;
    a = b;
    sa = sb;
    b = std::min(b * 2, cap_s);
  }
  // Start inside the bracket where log S, interpolated linearly, meets log alpha.
  double t = 0.5 * (a + b);
  if (sb > 0 && sa > sb) t = a + (b - a) * std::log(sa / alpha) / std::log(sa / sb);
  if (!newton_bracket(alpha, rel_width, t, &a, &b,
                      [this](double t_s, double* s, double* f) { return evaluate(t_s, s, f); }))
    return false;
  *lo_s = a;
  *hi_s = b;
  return true;
}

double PoissonSurvival::quantile(double alpha) {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  if (rate_ == 0) return std::numeric_limits<double>::infinity();
  double a, b;
  if (!bracket(alpha, kRelWidth, &a, &b)) return std::numeric_limits<double>::quiet_NaN();
  return b;
}

double PoissonSurvival::quantile_within(double alpha, double cap_s) {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  if (!(cap_s > 0) || !std::isfinite(cap_s)) fail("cap must be finite and > 0", cap_s);
  if (rate_ == 0) return std::numeric_limits<double>::infinity();
  max_mass_ = std::max(kMaxMass, rate_ * cap_s);
  // The terms an evaluation at the cap reaches (x + 10 sqrt(x) and the tail), reserved at once:
  // growth by doubling would hold up to twice them (the cost estimate counts 16 B per term).
  const size_t terms = size_t(max_mass_ + 10.0 * std::sqrt(max_mass_) + 128.0);
  if (v_.capacity() < terms) v_.reserve(terms);
  if (inv_.capacity() < terms) inv_.reserve(terms);
  double s, f;
  // S is non-increasing: the quantile is beyond the cap exactly when S(cap) > alpha.
  if (!evaluate(cap_s, &s, &f)) fail("mass beyond the raised limit", rate_ * cap_s);
  if (s > alpha) return std::numeric_limits<double>::infinity();
  double a, b;
  if (!bracket(alpha, kRelWidth, &a, &b, cap_s)) fail("no bracket below the cap", cap_s);
  return b;
}

double PoissonSurvival::quantile_lower_bound(double alpha, double rel_width) {
  if (!(alpha > 0 && alpha < 1)) fail("alpha must be in (0, 1)", alpha);
  if (!(rel_width >= kRelWidth && rel_width < 1)) fail("relative width out of range", rel_width);
  if (rate_ == 0) return std::numeric_limits<double>::infinity();
  // Shortcut: the first k with v_k <= alpha, k*, puts the quantile near k* / Lambda (a little
  // above it when v decays geometrically, since E[rho^N] >= rho^E[N]); t = (k* - 1) / Lambda
  // with S(t) > alpha (one evaluation) is a lower bound already.
  size_t k_star = 0;
  while (v_[k_star] > alpha) {
    if (double(k_star) > kMaxMass) return std::numeric_limits<double>::quiet_NaN();
    ++k_star;
    extend_to(k_star);
  }
  const double t = (double(k_star) - 1.0) / rate_;
  double st, ft;
  if (t > 0 && evaluate(t, &st, &ft) && st > alpha) return t;
  double a, b;
  if (!bracket(alpha, rel_width, &a, &b)) return std::numeric_limits<double>::quiet_NaN();
  return a;
}

}  // namespace fdsim::timeout
