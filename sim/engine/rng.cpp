#include "sim/engine/rng.h"

#include <cmath>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "sim/engine/hash.h"

namespace fdsim {

uint64_t stream_seed(uint64_t run_seed, uint64_t replication, NodeId node,
                     std::string_view purpose) {
  uint64_t h = mix64(run_seed);
  h = hash_combine(h, replication);
  h = hash_combine(h, node);
  h = hash_combine(h, fnv1a64(purpose));
  return h;
}

double Rng::uniform01() { return boost::random::uniform_01<double>()(engine_); }

double Rng::uniform(double lo, double hi) {
  if (!(hi > lo)) return lo;
  return boost::random::uniform_real_distribution<double>(lo, hi)(engine_);
}

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  return boost::random::uniform_int_distribution<int64_t>(lo, hi)(engine_);
}

bool Rng::bernoulli(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return boost::random::bernoulli_distribution<double>(p)(engine_);
}

double Rng::exponential(double rate) {
  return boost::random::exponential_distribution<double>(rate)(engine_);
}

double Rng::normal(double mean, double sd) {
  if (sd <= 0) return mean;
  return boost::random::normal_distribution<double>(mean, sd)(engine_);
}

double Rng::lognormal(double mu, double sigma) {
  if (sigma <= 0) return std::exp(mu);
  // boost's lognormal_distribution takes (m, s) of the underlying normal.
  return boost::random::lognormal_distribution<double>(mu, sigma)(engine_);
}

double Rng::pareto(double alpha, double x_m) {
  const double u = 1.0 - uniform01();  // (0, 1]
  return x_m / std::pow(u, 1.0 / alpha);
}

double Rng::gamma(double shape, double rate) {
  return boost::random::gamma_distribution<double>(shape, 1.0 / rate)(engine_);
}

int64_t Rng::poisson(double mean) {
  if (mean <= 0) return 0;
  return boost::random::poisson_distribution<int64_t, double>(mean)(engine_);
}

}  // namespace fdsim
