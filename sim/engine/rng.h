#pragma once
// Keyed random-number streams.
//
// Contract: a stream is identified by (run seed, replication, node id, purpose name) and its
// draws depend on nothing else: adding a node, a detector, a metric or another stream never
// changes the draws of an existing stream, which is what gives common random numbers across the
// arms of a comparison. The key is hashed (SplitMix64 + FNV-1a, hash.h) into the seed of a
// Boost mt19937_64, and every variate comes from a Boost.Random distribution, so the numbers are
// the same with any standard library. Never use std:: distributions, rand() or the wall clock
// in the simulation.

#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

#include "sim/engine/ids.h"

namespace fdsim {

uint64_t stream_seed(uint64_t run_seed, uint64_t replication, NodeId node,
                     std::string_view purpose);

class Rng {
 public:
  using Engine = boost::random::mt19937_64;
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform on [0, 1).
  double uniform01();
  double uniform(double lo, double hi);
  // Uniform integer in [lo, hi] (inclusive).
  int64_t uniform_int(int64_t lo, int64_t hi);
  bool bernoulli(double p);
  double exponential(double rate);
  double normal(double mean, double sd);
  // exp(N(mu, sigma)).
  double lognormal(double mu, double sigma);
  // Pareto with shape alpha and scale (minimum) x_m, by inversion.
  double pareto(double alpha, double x_m);
  double gamma(double shape, double rate);
  int64_t poisson(double mean);

  Engine& engine() { return engine_; }

 private:
  Engine engine_;
};

// Hands out streams for one run.
class RngFactory {
 public:
  RngFactory(uint64_t run_seed, uint64_t replication) : seed_(run_seed), rep_(replication) {}
  Rng stream(NodeId node, std::string_view purpose) const {
    return Rng(stream_seed(seed_, rep_, node, purpose));
  }
  uint64_t run_seed() const { return seed_; }
  uint64_t replication() const { return rep_; }

 private:
  uint64_t seed_;
  uint64_t rep_;
};

}  // namespace fdsim
