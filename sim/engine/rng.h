#pragma once
// Keyed random-number streams.
//
// Contract: a stream is identified by (run seed, replication, node id, purpose name) and its
// draws depend on nothing else: adding a node, a detector, a metric or another stream never
// changes the draws of an existing stream, which is what gives common random numbers across the
// arms of a comparison. The key is hashed (SplitMix64 + FNV-1a, hash.h) into the seed of a
// Boost mt19937_64 (Rng) or, for streams that exist once per node where memory matters, of the
// 12-byte taus88 engine (CompactRng); every variate comes from a Boost.Random distribution, so
// the numbers are the same with any standard library. Which engine a stream uses is part of its
// definition (sim/engine/README.md lists them). Never use std:: distributions, rand() or the
// wall clock in the simulation.

#include <cstdint>
#include <string_view>

#include <boost/random/independent_bits.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/taus88.hpp>

#include "sim/engine/ids.h"

namespace fdsim {

uint64_t stream_seed(uint64_t run_seed, uint64_t replication, NodeId node,
                     std::string_view purpose);

// The small-state engine: L'Ecuyer's three-component Tausworthe generator (Boost taus88,
// 12 bytes of state, period about 2^88), two 32-bit outputs per 64-bit word. It is seeded
// with all 64 bits of the stream seed (three 32-bit words: low half, high half, low half of
// mix64(seed)), so distinct keys give distinct streams.
using CompactEngine = boost::random::independent_bits_engine<boost::random::taus88, 64, uint64_t>;

// A stream: one engine plus the Boost.Random distributions. Rng (mt19937_64, 2.5 KB of state)
// is the engine of every stream unless a caller asks for a CompactRng (CompactEngine, 12
// bytes), which is what per-node streams use when a scenario opts into compact streams (the
// draws differ from Rng's for the same key, the keying and independence contract is the same).
template <class EngineT>
class BasicRng {
 public:
  using Engine = EngineT;
  explicit BasicRng(uint64_t seed);

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

using Rng = BasicRng<boost::random::mt19937_64>;
using CompactRng = BasicRng<CompactEngine>;
extern template class BasicRng<boost::random::mt19937_64>;
extern template class BasicRng<CompactEngine>;

// Hands out streams for one run.
class RngFactory {
 public:
  RngFactory(uint64_t run_seed, uint64_t replication) : seed_(run_seed), rep_(replication) {}
  Rng stream(NodeId node, std::string_view purpose) const {
    return Rng(stream_seed(seed_, rep_, node, purpose));
  }
  // The same key with the small-state engine (different draws from stream()).
  CompactRng compact_stream(NodeId node, std::string_view purpose) const {
    return CompactRng(stream_seed(seed_, rep_, node, purpose));
  }
  uint64_t run_seed() const { return seed_; }
  uint64_t replication() const { return rep_; }

 private:
  uint64_t seed_;
  uint64_t rep_;
};

}  // namespace fdsim
