#pragma once
// One-way latency distributions. Contract: draw() returns a non-negative Duration using only
// the given stream; mean() and quantile() are the exact values of the same distribution (used
// by tests and by models that need, e.g., the delay allowance = q99 - minimum).

#include <memory>
#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/engine/time.h"

namespace fdsim::net {

class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  virtual Duration draw(Rng& rng) const = 0;
  virtual double mean_ms() const = 0;
  virtual double quantile_ms(double p) const = 0;  // p in (0, 1)
  virtual double min_ms() const = 0;
  virtual bool deterministic() const { return false; }
};

std::shared_ptr<const LatencyModel> constant_latency(double ms);
std::shared_ptr<const LatencyModel> uniform_latency(double min_ms, double max_ms);
// min_ms + Exp(mean_ms - min_ms)
std::shared_ptr<const LatencyModel> exponential_latency(double min_ms, double mean_ms);
// min_ms + exp(N(mu, sigma)) in ms, parameterised by the median and sigma of the log.
std::shared_ptr<const LatencyModel> lognormal_latency(double min_ms, double median_ms,
                                                      double sigma);
// Pareto with shape alpha and scale (minimum) min_ms.
std::shared_ptr<const LatencyModel> pareto_latency(double min_ms, double alpha);
// Draws uniformly from measured samples (ms); quantiles by the empirical CDF.
std::shared_ptr<const LatencyModel> empirical_latency(std::vector<double> samples_ms);

}  // namespace fdsim::net
