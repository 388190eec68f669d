#include "models/timeout/silence_chain.h"
#include "models/timeout/capped_quantile.h"
#include "models/timeout/far_exit.h"
#include "models/timeout/uniformization.h"
#include "sim/engine/internal_error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "models/timeout/poisson_survival.h"
#include "models/timeout/spectral_exit.h"
#include "models/timeout/uniformization.h"

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const SilenceChain& c, const char* what) {
  fdsim::internal_error("fdsim: internal error: silence chain th_u=%lld th_f=%lld lambda=(%.17g, %.17g, "
               "%.17g) mu=%.17g loss=%.17g: %s\n",
               (long long)c.th_u, (long long)c.th_f, c.lambda[0], c.lambda[1], c.lambda[2], c.mu,
               c.loss, what);
}

// The diagonals of Q~ (see the header).
void diagonals(const SilenceChain& c, Eigen::VectorXd* d, Eigen::VectorXd* up,
               Eigen::VectorXd* lo) {
  const Eigen::Index n = static_cast<Eigen::Index>(c.top() + 1);
  *d = Eigen::VectorXd::Zero(n);
  *up = Eigen::VectorXd::Zero(n - 1);
  *lo = Eigen::VectorXd::Zero(n - 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int64_t s = i;
    const double birth = s == c.top() ? 0.0 : c.lambda[size_t(c.region_of(s))];
    const double death = s >= 1 ? c.mu : 0.0;
    (*d)(i) = -(birth + death);
    if (i + 1 < n) {
      const double keep = c.region_of(s) == c.region_of(s + 1) ? 1.0 : c.loss;
      (*up)(i) = birth * keep;
      (*lo)(i) = c.mu * keep;  // death from s + 1 to s
    }
  }
}

// The slow, always accurate path (uniformization.h): survival, and the quantile by doubling
// then bisection to 1e-12 relative (upper end of the bracket).
double uniformized_survival(UniformizedExp& u, int64_t s0, double t) {
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(u.states()));
  return u.apply(ones, t)(static_cast<Eigen::Index>(s0));
}

double uniformized_quantile(UniformizedExp& u, int64_t s0, double alpha) {
  double a = 0, b = u.step();
  while (uniformized_survival(u, s0, b) > alpha) {
    a = b;
    b *= 2;
    if (b * u.uniformization_rate() > 1e18) return std::numeric_limits<double>::infinity();
  }
  while (b - a > 1e-12 * b) {
    const double m = 0.5 * (a + b);
    if (uniformized_survival(u, s0, m) > alpha)
      a = m;
    else
      b = m;
  }
  return b;
}

}  // namespace

void validate(const SilenceChain& c) {
  if (c.th_u < 0 || c.th_f <= c.th_u) fail(c, "need 0 <= th_u < th_f");
  for (double l : c.lambda)
    if (!(l >= 0) || !std::isfinite(l)) fail(c, "rates must be finite and >= 0");
  if (!(c.mu >= 0) || !std::isfinite(c.mu)) fail(c, "rates must be finite and >= 0");
  if (!(c.loss >= 0 && c.loss < 1)) fail(c, "loss must be in [0, 1)");
}

ExitChain region_chain_of(const SilenceChain& c, int64_t s0) {
  validate(c);
  if (s0 < 0 || s0 > c.top()) fail(c, "s0 outside the chain");
  switch (c.region_of(s0)) {
    case 0:
      return region_chain(0, c.th_u, c.lambda[0], c.mu);
    case 1:
      return region_chain(c.th_u + 1, c.th_f, c.lambda[1], c.mu);
    default:
      return top_region_chain(c.th_f, c.lambda[2], c.mu);
  }
}

double silence_survival(const SilenceChain& c, int64_t s0, double t_s) {
  const ExitChain r = region_chain_of(c, s0);
  if (c.loss == 0) return survival(r, s0, t_s);
  Eigen::VectorXd d, up, lo;
  diagonals(c, &d, &up, &lo);
  PoissonSurvival ps(d, up, lo, static_cast<Eigen::Index>(s0));
  const double s = ps.survival(t_s);
  if (!std::isnan(s)) return s;
  const SpectralExit e(d, up, lo, static_cast<Eigen::Index>(s0));
  if (e.accurate()) return e.survival(t_s);
  UniformizedExp u(dense_generator(d, up, lo));
  return uniformized_survival(u, s0, t_s);
}

double silence_quantile(const SilenceChain& c, int64_t s0, double alpha, const QuantileCap& cap,
                        double* beyond_cap_s) {
  if (beyond_cap_s) *beyond_cap_s = std::numeric_limits<double>::quiet_NaN();
  const ExitChain r = region_chain_of(c, s0);
  if (c.loss == 0) return spectral_quantile(r, s0, alpha);
  Eigen::VectorXd d, up, lo;
  diagonals(c, &d, &up, &lo);
  PoissonSurvival ps(d, up, lo, static_cast<Eigen::Index>(s0));
  const double q = ps.quantile(alpha);
  if (!std::isnan(q)) return q;
  // Beyond the Poisson path's mass: if the first crossing of s0's region boundary is provably
  // later than any Duration (far_exit.h), so is the silence, and T_out is "never" whatever
  // the slow paths below would compute (they would gallop to a value mapped to it).
  if (exit_later_than(r, s0, alpha, kBeyondDurationS))
    return std::numeric_limits<double>::infinity();
  const SpectralExit e(d, up, lo, static_cast<Eigen::Index>(s0));
  if (e.accurate()) return e.quantile(alpha);
  // With a run span (a timeout beyond it is never reached: TimeoutTable), a chain of
  // kMinChargedChainStates states or more takes the exact path whose work the cap bounds and
  // the cost estimate counts (capped_quantile.h).
  if (d.size() >= kMinChargedChainStates && std::isfinite(cap.span_s)) {
    const double cap_s = effective_cap_s(cap, ps.rate());
    const double q = capped_quantile(d, up, lo, static_cast<Eigen::Index>(s0), alpha, cap_s, ps);
    if (std::isinf(q) && beyond_cap_s) *beyond_cap_s = cap_s;
    return q;
  }
  UniformizedExp u(dense_generator(d, up, lo));
  // A chain of kMinChargedChainStates states or more (a CET chain mapped to hundreds of states)
  // steps one row vector forward and bisects with half-steps (uniformization.h) instead of
  // walking from t = 0 at every bisection step (uniformized_quantile): the same quantile to the
  // same 1e-12, twice as fast on the near-critical CET family. Smaller chains keep the walk,
  // which the committed results were computed with (the two can differ in the last bits).
  if (u.states() >= size_t(kMinChargedChainStates))
    return uniformized_row_quantile(u, static_cast<Eigen::Index>(s0), alpha, 1e-12);
  return uniformized_quantile(u, s0, alpha);
}

}  // namespace fdsim::timeout
