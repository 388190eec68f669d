// The lazy probe order (models/swim/probe_order.h) against the eager code it replaced: the
// vector 0 .. n-1 shuffled at start by a backward Fisher-Yates from "swim.shuffle", read in
// order by the probe loop and at uniform_int(0, n-1) positions from "swim.select". Every read,
// the materialized vector and the two streams' next draws must be the eager ones.
#include <numeric>

#include <gtest/gtest.h>

#include "models/swim/probe_order.h"
#include "models/swim/shuffle_draw.h"

namespace fdsim::swim {
namespace {

// The eager state, as member_probe.cpp kept it before probe_order.h.
struct EagerOrder {
  EagerOrder(const RngFactory& f, NodeId self, size_t n)
      : shuffle(f.stream(self, "swim.shuffle")), select(f.stream(self, "swim.select")) {
    order.resize(n);
    std::iota(order.begin(), order.end(), NodeId{0});
    for (size_t i = n; i > 1; --i)
      std::swap(order[i - 1], order[size_t(shuffle.uniform_int(0, int64_t(i) - 1))]);
  }
  NodeId random() { return order[size_t(select.uniform_int(0, int64_t(order.size()) - 1))]; }
  Rng shuffle, select;
  std::vector<NodeId> order;
};

// Interleaves probe reads and select draws (more than the hints, so passes refill), then
// materializes and compares the vector and both streams' continuations.
void check_against_eager(size_t n, NodeId self, size_t prefix_hint, size_t select_hint,
                         size_t reads, size_t selects) {
  const RngFactory f(11, 2);
  EagerOrder eager(f, self, n);
  ProbeOrder lazy(f, self);
  lazy.start(n, prefix_hint, select_hint);
  ASSERT_EQ(lazy.size(), n);
  size_t r = 0, s = 0;
  while (r < reads || s < selects) {
    if (r < reads) {
      ASSERT_EQ(lazy.at(r % n), eager.order[r % n]) << "n " << n << " read " << r;
      ++r;
    }
    for (int k = 0; k < 3 && s < selects; ++k, ++s)
      ASSERT_EQ(lazy.random(), eager.random()) << "n " << n << " select " << s;
  }
  std::vector<NodeId> visited;
  lazy.for_each([&](NodeId x) { visited.push_back(x); });
  EXPECT_EQ(visited, eager.order);
  EXPECT_TRUE(lazy.lazy());
  EXPECT_EQ(lazy.nodes(), eager.order);
  EXPECT_FALSE(lazy.lazy());
  for (int k = 0; k < 50; ++k) {
    EXPECT_EQ(lazy.shuffle_rng().uniform_int(0, 1000003), eager.shuffle.uniform_int(0, 1000003));
    EXPECT_EQ(lazy.select_rng().uniform_int(0, 77), eager.select.uniform_int(0, 77));
  }
  for (int k = 0; k < 20; ++k) EXPECT_EQ(lazy.random(), eager.random());
}

TEST(SwimProbeOrder, LazyReadsAndDrawsAreTheEagerOnes) {
  check_against_eager(1, 0, 1, 1, 3, 5);
  check_against_eager(2, 1, 1, 1, 5, 9);
  check_against_eager(7, 3, 2, 3, 20, 40);
  check_against_eager(100, 42, 4, 8, 250, 700);     // many refills, reads past a wrap
  check_against_eager(5000, 17, 64, 1024, 90, 1500);  // the hints of a 60 s run, exceeded
}

TEST(SwimProbeOrder, MaterializingBeforeAnyDrawGivesTheStartStreams) {
  const RngFactory f(3, 0);
  EagerOrder eager(f, 9, 300);
  ProbeOrder lazy(f, 9);
  lazy.start(300, 16, 16);
  EXPECT_EQ(lazy.nodes(), eager.order);
  EXPECT_EQ(lazy.select_rng().uniform_int(0, 299), eager.select.uniform_int(0, 299));
  EXPECT_EQ(lazy.shuffle_rng().uniform_int(0, 299), eager.shuffle.uniform_int(0, 299));
}

TEST(SwimProbeOrder, LazyOrderHoldsItsLookAheadNotTheCluster) {
  // 100 000 members: the eager order held 400 kB per member; the lazy one its hints.
  const RngFactory f(1, 0);
  ProbeOrder lazy(f, 5);
  lazy.start(100000, 64, 1024);
  for (size_t i = 0; i < 60; ++i) lazy.at(i);
  for (size_t k = 0; k < 900; ++k) lazy.random();
  EXPECT_EQ(lazy.passes(), 1u);
  EXPECT_LT(lazy.held_bytes(), 6000u);
  lazy.nodes();
  EXPECT_GE(lazy.held_bytes(), 400000u);
}

TEST(SwimShuffleDraw, QuotientIsExactAtEveryBucketEdge) {
  const uint64_t max = ~uint64_t{0};
  for (uint64_t r : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{7}, uint64_t{99},
                     uint64_t{1023}, uint64_t{1024}, uint64_t{9999}, uint64_t{99999},
                     (uint64_t{1} << 31) - 1, uint64_t{1} << 40, (uint64_t{1} << 61) + 12345}) {
    const UniformBelow u(r);
    // Boost's bucket: (2^64 - 1) / (r + 1), plus one when r + 1 divides 2^64.
    const uint64_t expected_bucket = max / (r + 1) + (max % (r + 1) == r ? 1 : 0);
    ASSERT_EQ(u.bucket, expected_bucket) << r;
    for (uint64_t k : {uint64_t{0}, uint64_t{1}, r / 2, r, r + 1, r + 2}) {
      const unsigned __int128 edge = (unsigned __int128)k * u.bucket;
      for (int d = -2; d <= 2; ++d) {
        const unsigned __int128 x128 = edge + d;
        if (x128 > max || (d < 0 && edge < unsigned(-d))) continue;
        const uint64_t x = uint64_t(x128);
        ASSERT_EQ(u.quotient(x), x / u.bucket) << "r " << r << " x " << x;
      }
    }
    ASSERT_EQ(u.quotient(max), max / u.bucket) << r;
  }
}

TEST(SwimShuffleDraw, DrawsAreBoostsUniformInt) {
  Rng boost_side(77), fast_side(77);
  for (uint64_t r = 1; r < 3000; ++r) {
    const UniformBelow u(r);
    for (int k = 0; k < 5; ++k)
      ASSERT_EQ(draw(fast_side.engine(), u), uint64_t(boost_side.uniform_int(0, int64_t(r))))
          << r;
  }
  for (uint64_t r : {uint64_t{1} << 20, (uint64_t{1} << 62) - 1, (uint64_t{1} << 61) + 3}) {
    const UniformBelow u(r);
    for (int k = 0; k < 1000; ++k)
      ASSERT_EQ(draw(fast_side.engine(), u), uint64_t(boost_side.uniform_int(0, int64_t(r))))
          << r;
  }
  // Same engine state afterwards.
  EXPECT_EQ(fast_side.engine()(), boost_side.engine()());
}

}  // namespace
}  // namespace fdsim::swim
