#include "models/loadsharing/hou_shin_timeout.h"

#include <algorithm>
#include <cmath>

#include "models/timeout/cet_mapping.h"

namespace fdsim::loadsharing {

namespace {
// Under load_index "cet" the thresholds map to round(th x mu) queue lengths (cet_mapping.h). A
// large th_f with a large estimated mu made a region of millions of states (th_f 1e4 s at
// mu 1e3 per s: 1e7), and one T_out took minutes (issue 24). The rate used for the mapping is
// clamped so that th_f maps to at most kMaxCetChainStates, as the ql chain's th_f is bounded
// at validation (docs/scenario-format.md, "Bounds of the load-sharing model"); below the clamp
// nothing changes.
constexpr double kMaxCetChainStates = 1000;

double cet_mapping_mu(double mu, const RegionThresholds& thresholds) {
  if (thresholds.th_f > 0 && mu * thresholds.th_f > kMaxCetChainStates)
    return kMaxCetChainStates / thresholds.th_f;
  return mu;
}
}  // namespace

double t_out_run_span_s(const LoadSharingConfig& cfg, double horizon_s) {
  return horizon_s + (cfg.send_margin ? cfg.send_margin->seconds() : 0.0) + 1.0;
}

timeout::ExitChain exit_chain_for(const Broadcast& b, const RegionThresholds& thresholds,
                                  LoadIndex index, int64_t* s0) {
  const double mu = b.estimates.mu_per_s;
  const double lambda = b.estimates.region_input_per_s[size_t(b.region)];
  int64_t th_u, th_f;
  if (index == LoadIndex::ql) {
    th_u = int64_t(std::llround(thresholds.th_u));
    th_f = int64_t(std::llround(thresholds.th_f));
  } else {
    const timeout::QueueLengthThresholds q =
        timeout::map_cet_thresholds(thresholds.th_u, thresholds.th_f, cet_mapping_mu(mu, thresholds));
    th_u = q.th_u;
    th_f = q.th_f;
  }
  timeout::ExitChain chain;
  switch (b.region) {
    case Region::U:
      chain = timeout::region_chain(0, th_u, lambda, mu);
      break;
    case Region::M:
      chain = timeout::region_chain(th_u + 1, th_f, lambda, mu);
      break;
    case Region::O:
      chain = timeout::top_region_chain(th_f, lambda, mu);
      break;
  }
  if (index == LoadIndex::ql)
    *s0 = std::clamp(b.queue_length, chain.lo, chain.hi);
  else
    *s0 = timeout::cet_state_in_region(b.load, cet_mapping_mu(mu, thresholds), chain.lo, chain.hi);
  return chain;
}

timeout::SilenceChain silence_chain_for(const Broadcast& b, const RegionThresholds& thresholds,
                                        LoadIndex index, double loss, int64_t* s0) {
  const timeout::ExitChain region = exit_chain_for(b, thresholds, index, s0);
  timeout::SilenceChain c;
  if (index == LoadIndex::ql) {
    c.th_u = int64_t(std::llround(thresholds.th_u));
    c.th_f = int64_t(std::llround(thresholds.th_f));
  } else {
    const timeout::QueueLengthThresholds q =
        timeout::map_cet_thresholds(thresholds.th_u, thresholds.th_f,
                                    cet_mapping_mu(b.estimates.mu_per_s, thresholds));
    c.th_u = q.th_u;
    c.th_f = q.th_f;
  }
  for (size_t r = 0; r < kRegionCount; ++r) c.lambda[r] = b.estimates.region_input_per_s[r];
  c.mu = region.mu;
  c.loss = loss;
  return c;
}

Duration hou_shin_timeout(timeout::TimeoutTable& table, const Broadcast& b,
                          const RegionThresholds& thresholds, LoadIndex index, double alpha,
                          Duration allowance, double loss) {
  int64_t s0 = 0;
  if (loss > 0) {
    const timeout::SilenceChain c = silence_chain_for(b, thresholds, index, loss, &s0);
    return table.t_out(c, s0, alpha, allowance);
  }
  const timeout::ExitChain chain = exit_chain_for(b, thresholds, index, &s0);
  return table.t_out(chain, s0, alpha, allowance);
}

Duration hou_shin_timeout_needed(timeout::TimeoutTable& table, const Broadcast& b,
                                 const RegionThresholds& thresholds, LoadIndex index,
                                 double alpha, Duration allowance, double loss, Duration need,
                                 bool* exact) {
  int64_t s0 = 0;
  if (loss > 0) {
    const timeout::SilenceChain c = silence_chain_for(b, thresholds, index, loss, &s0);
    return table.t_out_needed(c, s0, alpha, allowance, need, exact);
  }
  const timeout::ExitChain chain = exit_chain_for(b, thresholds, index, &s0);
  return table.t_out_needed(chain, s0, alpha, allowance, need, exact);
}

Duration hou_shin_timeout_lower_bound(timeout::TimeoutTable& table, const Broadcast& b,
                                      const RegionThresholds& thresholds, LoadIndex index,
                                      double alpha, Duration allowance, double loss, bool* exact) {
  int64_t s0 = 0;
  timeout::TimeoutTable::Bound bound;
  if (loss > 0) {
    const timeout::SilenceChain c = silence_chain_for(b, thresholds, index, loss, &s0);
    bound = table.quantile_lower_bound_s(c, s0, alpha);
  } else {
    const timeout::ExitChain chain = exit_chain_for(b, thresholds, index, &s0);
    bound = table.quantile_lower_bound_s(chain, s0, alpha);
  }
  *exact = bound.exact;
  if (bound.exact)
    return hou_shin_timeout(table, b, thresholds, index, alpha, allowance, loss);
  const double q_ns = std::floor(bound.q_s * 1e9);
  if (!(q_ns < 9e18 - double(allowance.count_ns()))) return Duration::max();
  return Duration::ns(int64_t(std::max(0.0, q_ns))) + allowance;
}

}  // namespace fdsim::loadsharing
