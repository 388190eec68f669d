#include "models/timeout/exit_chain.h"
#include "models/timeout/uniformization.h"
#include "sim/engine/internal_error.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace fdsim::timeout {

namespace {

[[noreturn]] void fail(const ExitChain& c, const std::string& what) {
  fdsim::internal_error("fdsim: internal error: exit chain %s: %s\n", describe(c).c_str(),
               what.c_str());
}

// Rates of the three moves out of state s (birth, death; each either in-region or an exit).
struct Moves {
  double birth = 0;  // to s + 1 (an exit if s == hi)
  double death = 0;  // to s - 1 (an exit if s == lo)
};

Moves moves(const ExitChain& c, int64_t s) {
  Moves m;
  m.birth = (s == c.hi && c.reflecting_top) ? 0.0 : c.lambda;
  m.death = s >= 1 ? c.mu : 0.0;
  return m;
}

}  // namespace

ExitChain region_chain(int64_t lo, int64_t hi, double lambda, double mu) {
  ExitChain c{lo, hi, lambda, mu, false};
  validate(c);
  return c;
}

ExitChain top_region_chain(int64_t th_f, double lambda, double mu) {
  ExitChain c{th_f + 1, th_f + kTopRegionStates, lambda, mu, true};
  validate(c);
  return c;
}

std::string describe(const ExitChain& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "{%" PRId64 "..%" PRId64 "%s} lambda=%.17g mu=%.17g", c.lo, c.hi,
                c.reflecting_top ? ", reflecting top" : "", c.lambda, c.mu);
  return buf;
}

void validate(const ExitChain& c) {
  if (c.lo < 0) fail(c, "lo must be >= 0");
  if (c.hi < c.lo) fail(c, "hi must be >= lo");
  if (c.hi - c.lo > 100000) fail(c, "region too large for a dense generator");
  if (!(c.lambda >= 0) || !std::isfinite(c.lambda)) fail(c, "lambda must be finite and >= 0");
  if (!(c.mu >= 0) || !std::isfinite(c.mu)) fail(c, "mu must be finite and >= 0");
}

Eigen::MatrixXd sub_generator(const ExitChain& c) {
  validate(c);
  const Eigen::Index n = static_cast<Eigen::Index>(c.hi - c.lo + 1);
  // Work (sim/engine/budget.h): n^2 entries, one unit per 64.
  charge_chain_work(n, uint64_t(n) * uint64_t(n) / 64);
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Moves m = moves(c, c.lo + i);
    if (i + 1 < n) q(i, i + 1) = m.birth;
    if (i > 0) q(i, i - 1) = m.death;
    q(i, i) = -(m.birth + m.death);
  }
  return q;
}

bool exit_reachable(const ExitChain& c, int64_t s0) {
  validate(c);
  if (s0 < c.lo || s0 > c.hi) fail(c, "s0 = " + std::to_string(s0) + " is outside the region");
  // In a birth-death chain the states reachable from s0 form an interval around s0: walk up
  // while births are possible, down while deaths are possible, and look for an exit move.
  for (int64_t s = s0;; ++s) {
    const Moves m = moves(c, s);
    if (m.birth > 0 && s == c.hi) return true;
    if (m.death > 0 && s == c.lo) return true;
    if (m.birth == 0 || s == c.hi) break;
  }
  for (int64_t s = s0;; --s) {
    const Moves m = moves(c, s);
    if (m.birth > 0 && s == c.hi) return true;
    if (m.death > 0 && s == c.lo) return true;
    if (m.death == 0 || s == c.lo) break;
  }
  return false;
}

double mean_exit_time(const ExitChain& c, int64_t s0) {
  if (!exit_reachable(c, s0)) return std::numeric_limits<double>::infinity();
  // Exit reachable from s0 implies reachable from every state (see the header), so Q is
  // nonsingular: solve Q m = -1.
  const Eigen::MatrixXd q = sub_generator(c);
  // Work (sim/engine/budget.h): a dense LU, about n^3 / 3 multiply-adds, one unit per 64.
  charge_chain_work(q.rows(), uint64_t(q.rows()) * uint64_t(q.rows()) * uint64_t(q.rows()) / 192);
  const Eigen::VectorXd m = q.partialPivLu().solve(-Eigen::VectorXd::Ones(q.rows()));
  return m(static_cast<Eigen::Index>(s0 - c.lo));
}

}  // namespace fdsim::timeout
