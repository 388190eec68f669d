#include "models/loadsharing/estimators.h"

namespace fdsim::loadsharing {

namespace {
timeout::GammaRateEstimator arrival_prior(const EstimationConfig& c) {
  return timeout::GammaRateEstimator(c.arrival_prior_shape, c.arrival_prior_exposure_s,
                                     c.forgetting_per_s);
}
}  // namespace

NodeEstimators::NodeEstimators(const EstimationConfig& c, SimTime now, Region region)
    : lambda_(arrival_prior(c)),
      mu_(c.execution_prior_shape, c.execution_prior_exposure_s, c.forgetting_per_s),
      by_region_{arrival_prior(c), arrival_prior(c), arrival_prior(c)},
      lambda_since_(now),
      region_since_(now),
      current_(region) {}

void NodeEstimators::on_arrival(SimTime now) {
  lambda_.observe(1.0, (now - lambda_since_).seconds());
  lambda_since_ = now;
}

void NodeEstimators::on_join(SimTime now) {
  by_region_[size_t(current_)].observe(1.0, (now - region_since_).seconds());
  region_since_ = now;
}

void NodeEstimators::on_completion(Duration exec) { mu_.observe(1.0, exec.seconds()); }

// Exponential service: an unfinished service of length `served` is exposure without an event.
void NodeEstimators::on_abort(Duration served) { mu_.observe_exposure(served.seconds()); }

void NodeEstimators::on_region_change(SimTime now, Region region) {
  by_region_[size_t(current_)].observe_exposure((now - region_since_).seconds());
  region_since_ = now;
  current_ = region;
}

Estimates NodeEstimators::snapshot(SimTime now) {
  lambda_.observe_exposure((now - lambda_since_).seconds());
  lambda_since_ = now;
  by_region_[size_t(current_)].observe_exposure((now - region_since_).seconds());
  region_since_ = now;
  Estimates e;
  e.lambda_per_s = lambda_.mean();
  e.mu_per_s = mu_.mean();
  for (size_t r = 0; r < kRegionCount; ++r) e.region_input_per_s[r] = by_region_[r].mean();
  return e;
}

}  // namespace fdsim::loadsharing
