#pragma once
// One node's on-line Bayesian estimators (docs/models/load-sharing.md, "On-line estimators"): the external arrival
// rate lambda, the execution rate mu, and the region input rates lambda_r (tasks joining the
// local queue per second while the node is in region r; transfers in count, tasks transferred
// out or dropped do not).
//
// Contract: every estimator is a timeout::GammaRateEstimator (Gamma prior, forgetting factor
// per second). Exposure is fed in pieces that end at events (an arrival, a join, a region
// change, a snapshot), each piece no longer than the time since the previous event, so with
// forgetting the estimate is as accurate as the event rate makes the pieces short. The region
// estimators only accumulate exposure while the node is in their region. A recovered node
// starts again from the priors (a new incarnation has no memory). snapshot() brings the
// exposures up to `now` and returns the posterior means that a broadcast carries.

#include <array>

#include "models/loadsharing/broadcast.h"
#include "models/loadsharing/config.h"
#include "models/timeout/gamma_estimator.h"

namespace fdsim::loadsharing {

class NodeEstimators {
 public:
  NodeEstimators(const EstimationConfig& config, SimTime now, Region region);

  void on_arrival(SimTime now);       // an external arrival at the node
  void on_join(SimTime now);          // a task joined the local queue in the current region
  void on_completion(Duration exec);  // a task finished after `exec` of service
  void on_abort(Duration served);     // a task's service stopped unfinished after `served`
  void on_region_change(SimTime now, Region region);
  Estimates snapshot(SimTime now);
  // The current posterior mean of mu (no exposure update needed: mu's exposure is service time).
  double mu_mean_per_s() const { return mu_.mean(); }

 private:
  timeout::GammaRateEstimator lambda_;
  timeout::GammaRateEstimator mu_;
  std::array<timeout::GammaRateEstimator, kRegionCount> by_region_;
  SimTime lambda_since_;
  SimTime region_since_;
  Region current_;
};

}  // namespace fdsim::loadsharing
