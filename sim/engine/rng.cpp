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

namespace {
void seed_engine(boost::random::mt19937_64& e, uint64_t seed) { e.seed(seed); }
void seed_engine(CompactEngine& e, uint64_t seed) {
  const uint32_t words[3] = {uint32_t(seed), uint32_t(seed >> 32), uint32_t(mix64(seed))};
  const uint32_t* first = words;
  e.seed(first, words + 3);
}
}  // namespace

template <class E>
BasicRng<E>::BasicRng(uint64_t seed) {
  seed_engine(engine_, seed);
}

template <class E>
double BasicRng<E>::uniform01() { return boost::random::uniform_01<double>()(engine_); }

template <class E>
double BasicRng<E>::uniform(double lo, double hi) {
  if (!(hi > lo)) return lo;
  return boost::random::uniform_real_distribution<double>(lo, hi)(engine_);
}

template <class E>
int64_t BasicRng<E>::uniform_int(int64_t lo, int64_t hi) {
  return boost::random::uniform_int_distribution<int64_t>(lo, hi)(engine_);
}

template <class E>
bool BasicRng<E>::bernoulli(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return boost::random::bernoulli_distribution<double>(p)(engine_);
}

template <class E>
double BasicRng<E>::exponential(double rate) {
  return boost::random::exponential_distribution<double>(rate)(engine_);
}

template <class E>
double BasicRng<E>::normal(double mean, double sd) {
  if (sd <= 0) return mean;
  return boost::random::normal_distribution<double>(mean, sd)(engine_);
}

template <class E>
double BasicRng<E>::lognormal(double mu, double sigma) {
  if (sigma <= 0) return std::exp(mu);
  // boost's lognormal_distribution takes (m, s) of the underlying normal.
  return boost::random::lognormal_distribution<double>(mu, sigma)(engine_);
}

template <class E>
double BasicRng<E>::pareto(double alpha, double x_m) {
  const double u = 1.0 - uniform01();  // (0, 1]
  return x_m / std::pow(u, 1.0 / alpha);
}

template <class E>
double BasicRng<E>::gamma(double shape, double rate) {
  return boost::random::gamma_distribution<double>(shape, 1.0 / rate)(engine_);
}

template <class E>
int64_t BasicRng<E>::poisson(double mean) {
  if (mean <= 0) return 0;
  return boost::random::poisson_distribution<int64_t, double>(mean)(engine_);
}

template class BasicRng<boost::random::mt19937_64>;
template class BasicRng<CompactEngine>;

}  // namespace fdsim
