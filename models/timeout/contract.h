#pragma once
// What the numerical code of models/timeout shares: how it reports a broken contract, the
// precision every exact quantile is computed to, and the safeguarded Newton search that finds
// it (spectral_exit.cpp, poisson_survival.cpp).
//
// A broken contract here (a negative rate, alpha outside (0, 1), a start state outside the
// chain) is a programmer error: the loaders reject bad scenario input long before, so the
// process aborts with one line naming the component, the problem and the offending value.

#include <algorithm>
#include <cmath>

namespace fdsim::timeout {

// Prints "fdsim: internal error: <component>: <what> (<value>)" to stderr and aborts.
[[noreturn]] void contract_failure(const char* component, const char* what, double value);

// Every exact quantile is the upper end of a bracket of this relative width (timeout_table.h:
// the paths agree to about 1e-10 relative).
inline constexpr double kQuantileRelWidth = 1e-12;

// Narrows a bracket [*a, *b] with S(*a) > alpha >= S(*b) around inf { t : S(t) <= alpha } by
// Newton's method on S(t) - alpha from t (moved to the middle if outside), bisecting whenever a
// step leaves the bracket; once a step is below rel_width / 4 of t, it closes the bracket with
// two evaluations at t -/+ rel_width t / 2. Stops when *b - *a <= rel_width * *b (or after 200
// steps). eval(t, &s, &f) gives S(t) and the density f(t) = -S'(t) and returns false when it
// cannot (then this returns false). Every caller's quantile is the final *b.
template <class Eval>
bool newton_bracket(double alpha, double rel_width, double t, double* a, double* b, Eval eval) {
  if (!(t > *a && t < *b)) t = 0.5 * (*a + *b);
  for (int iter = 0; iter < 200 && *b - *a > rel_width * *b; ++iter) {
    double s, f;
    if (!eval(t, &s, &f)) return false;
    if (s > alpha)
      *a = t;
    else
      *b = t;
    double next = f > 0 ? t + (s - alpha) / f : 0.5 * (*a + *b);
    if (!(next > *a && next < *b)) next = 0.5 * (*a + *b);
    // Newton converged: close the bracket around the root on the side it has not reached.
    if (std::abs(next - t) <= 0.25 * rel_width * t) {
      const double h = 0.5 * rel_width * t;
      const double lo = std::max(*a, t - h), hi = std::min(*b, t + h);
      double sl, fl, sh, fh;
      if (!eval(lo, &sl, &fl) || !eval(hi, &sh, &fh)) return false;
      if (sl > alpha) *a = lo;
      if (sh <= alpha) *b = hi;
      next = 0.5 * (*a + *b);
    }
    t = next;
  }
  return true;
}

}  // namespace fdsim::timeout
