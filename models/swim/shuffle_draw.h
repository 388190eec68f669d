#pragma once
// Boost's uniform_int_distribution<int64_t>(0, r) on a mt19937_64, draw for draw, without its
// three 64-bit divisions per call (the probe order replays n - 1 such draws per member; at
// 10 000 members they were a third of the run's CPU).
//
// Contract: for every 1 <= r < 2^62 and every engine state, draw(engine, UniformBelow(r)) returns the
// value Rng::uniform_int(0, r) returns and leaves the engine in the same state. Boost 1.74
// (uniform_int_distribution.hpp, generate_uniform_int, case brange > range) computes
//   bucket = (2^64 - 1) / (r + 1), plus 1 when (2^64 - 1) % (r + 1) == r,
// then repeats x = engine() until x / bucket <= r and returns x / bucket. Here bucket is
// computed once per r and x / bucket is a multiply-high by floor(2^64 / bucket) (which is at
// most 2 below the quotient, since bucket >= 2) followed by at most two exact corrections.
// Tests: tests/swim/probe_order_test.cpp (quotients at bucket edges, draws against Boost).

#include <cstdint>

#include <boost/random/mersenne_twister.hpp>

namespace fdsim::swim {

struct UniformBelow {
  explicit UniformBelow(uint64_t r) : range(r) {
    const uint64_t brange = ~uint64_t{0};
    bucket = brange / (r + 1);
    if (brange % (r + 1) == r) ++bucket;
    reciprocal = uint64_t(((unsigned __int128)1 << 64) / bucket);
  }
  // floor(x / bucket), exactly.
  uint64_t quotient(uint64_t x) const {
    uint64_t q = uint64_t(((unsigned __int128)x * reciprocal) >> 64);
    while ((unsigned __int128)(q + 1) * bucket <= x) ++q;
    return q;
  }
  uint64_t range = 0, bucket = 0, reciprocal = 0;
};

inline uint64_t draw(boost::random::mt19937_64& engine, const UniformBelow& u) {
  for (;;) {
    const uint64_t q = u.quotient(engine());
    if (q <= u.range) return q;
  }
}

}  // namespace fdsim::swim
