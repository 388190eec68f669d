#pragma once
// One-way latency distributions. Contract: draw() returns a non-negative Duration using only
// the given stream; mean() and quantile() are the exact values of the same distribution (used
// by tests and by models that need, e.g., the delay allowance = q99 - minimum).
// Where they can be wrong: a draw is rounded to the nanosecond and capped at 1e11 ms (about
// three simulated years, so a heavy tail cannot overflow time); for a Pareto with alpha close
// to 1 the cap makes the realised mean smaller than mean_ms(). Deterministic models
// (deterministic() == true) ignore the stream, so the network never creates one for them.
// The factories abort on parameters outside their domain (programmer error); user input is
// validated by parse_network_config() first.

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
  virtual Duration draw(CompactRng& rng) const = 0;  // the same law from a small-state stream
  virtual double mean_ms() const = 0;
  virtual double quantile_ms(double p) const = 0;  // p in (0, 1)
  virtual double min_ms() const = 0;
  virtual bool deterministic() const { return false; }
};

std::shared_ptr<const LatencyModel> constant_latency(double ms);
std::shared_ptr<const LatencyModel> uniform_latency(double min_ms, double max_ms);
// min_ms + Exp(mean_ms - min_ms)
std::shared_ptr<const LatencyModel> exponential_latency(double min_ms, double mean_ms);
// min_ms + exp(N(mu, sigma)) in ms, with mu = ln(median_ms - min_ms): median_ms is the median
// of the whole delay (so median_ms > min_ms), sigma the standard deviation of the log.
std::shared_ptr<const LatencyModel> lognormal_latency(double min_ms, double median_ms,
                                                      double sigma);
// Pareto with shape alpha > 1 (finite mean) and scale (minimum) min_ms > 0.
std::shared_ptr<const LatencyModel> pareto_latency(double min_ms, double alpha);
// Draws uniformly from measured samples (ms, at least one, each >= 0); quantile_ms(p) is the
// smallest sample x with F_n(x) >= p (inverse of the empirical CDF), mean_ms() the sample mean.
std::shared_ptr<const LatencyModel> empirical_latency(std::vector<double> samples_ms);

}  // namespace fdsim::net
