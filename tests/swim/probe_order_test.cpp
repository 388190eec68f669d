// The lazy probe order (models/swim/probe_order.h) against the eager code it replaced: the
// vector 0 .. n-1 shuffled at start by a backward Fisher-Yates from "swim.shuffle", read in
// order by the probe loop and at uniform_int(0, n-1) positions from "swim.select". Every read,
// the materialized vector and the two streams' next draws must be the eager ones.
#include <numeric>

#include <gtest/gtest.h>

#include "models/swim/probe_order.h"

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

}  // namespace
}  // namespace fdsim::swim
