#pragma once
// One member's probe order (memberlist's m.nodes) without n entries per member until it is
// needed whole.
//
// What it must reproduce (member_probe.cpp, and every result before this class existed): at
// start the order is 0 .. n-1 shuffled by a backward Fisher-Yates (Go's rand.Shuffle: for i = n
// down to 2, swap positions i-1 and uniform_int(0, i-1)) drawn from the member's stream
// "swim.shuffle"; kRandomNodes reads order[uniform_int(0, n-1)] drawn from "swim.select"; the
// probe loop reads order[0], order[1], ...; resetNodes filters and reshuffles it in place.
//
// Why it cannot simply be computed on demand: the backward shuffle fixes position n-1 first
// and position 0 last, so order[0] depends on every one of the n-1 draws. Storing the order
// costs 4 B x n per member (40 GB for 100 000 members); any exact representation of n
// independent random permutations needs at least log2(n!) bits each (19 GB at 100 000).
//
// Contract:
// - start(n): the order is lazy. It holds only the positions read so far (a prefix for the
//   probe loop) and the nodes behind the next select draws (draws of uniform_int(0, n-1) from
//   "swim.select", resolved ahead of use: while the order is lazy every select draw has that
//   range, so the stream's next values are known in advance). When either runs out, one pass
//   replays the start shuffle from the key into a per-thread scratch array (O(n) draws, the
//   same ones) and resolves a larger prefix and batch. The streams are re-created from their
//   keys, which is exact because start() runs once per member on fresh streams.
// - nodes(), shuffle_rng(), select_rng(): materialize. The order becomes today's explicit vector
//   (n entries) and both streams stand exactly where the eager code would have left them (the
//   full shuffle drawn, the select stream advanced by the draws consumed, unused look-ahead
//   draws given back). It stays materialized. The probe loop's wrap (resetNodes) and a
//   forgotten member's return (aliveNode) materialize, so members of a large cluster stay lazy
//   for about n probe intervals.
// - The look-ahead sizes (hints) change only how often a pass runs, never a value.
// - for_each(f) visits the whole order in order without materializing (push-pull).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/engine/ids.h"
#include "sim/engine/rng.h"

namespace fdsim::swim {

// Look-ahead entries (probe positions, select draws) a pass resolves at most: 64 kB each per
// member; a longer run replays again when they run out.
inline constexpr size_t kMaxLookahead = 16384;

// The first pass's sizes for a member that starts `left_ns` before the horizon: the probe ticks
// and kRandomNodes draws (gossip rounds x gossip_nodes, indirect checks of a quarter of the
// probes, push-pull and spare) up to the horizon, with a quarter to spare, capped at
// kMaxLookahead. Used by Member::start and by the memory estimate (memory_bound.h).
struct LookaheadHint {
  size_t prefix = 0, select = 0;
};
LookaheadHint lookahead_hint(int64_t left_ns, int64_t probe_interval_ns, int64_t gossip_interval_ns,
                             int64_t gossip_nodes, int64_t indirect_checks);

class ProbeOrder {
 public:
  ProbeOrder(const RngFactory& rng, NodeId self) : rng_(&rng), self_(self) {}

  // The order of nodes 0 .. n-1, lazy. prefix_hint / select_hint: how many probe positions and
  // select draws to resolve in the first pass.
  void start(size_t n, size_t prefix_hint, size_t select_hint);

  size_t size() const { return lazy_ ? n_ : vec_.size(); }
  // order[i], i < size().
  NodeId at(size_t i);
  // order[uniform_int(0, size() - 1)] from "swim.select" (util.go kRandomNodes); size() > 0.
  NodeId random();
  // The explicit order (materializes); valid until the next call on this object.
  std::vector<NodeId>& nodes();
  Rng& shuffle_rng();
  Rng& select_rng();
  // f must not use any ProbeOrder (the lazy order is visited in the shared scratch).
  void for_each(const std::function<void(NodeId)>& f);

  bool lazy() const { return lazy_; }
  // Shuffle replays run by this order (tests, benchmarks).
  uint64_t passes() const { return passes_; }
  // Bytes this order holds (not counting the shared scratch).
  size_t held_bytes() const;

 private:
  // Replays the start shuffle into the scratch array; returns it (n entries).
  std::vector<NodeId>& replay(std::unique_ptr<Rng>* keep_shuffle);
  // The select stream advanced past the draws consumed so far.
  Rng select_at_consumed() const;
  // One pass: at least prefix_need probe positions and select_need look-ahead draws.
  void refill(size_t prefix_need, size_t select_need);
  void materialize();

  const RngFactory* rng_;
  NodeId self_;
  bool lazy_ = true;
  size_t n_ = 0;
  // Lazy state.
  std::vector<NodeId> prefix_;     // order[0 .. prefix_.size())
  std::vector<NodeId> ahead_;      // order[q] for the select draws consumed_ .. consumed_ + size
  size_t ahead_pos_ = 0;           // next entry of ahead_
  uint64_t consumed_ = 0;          // select draws consumed since start (all of range n - 1)
  uint64_t passes_ = 0;
  // Materialized state.
  std::vector<NodeId> vec_;
  // Heap-held: a lazy member does not carry two 2.5 kB mt19937_64 states.
  std::unique_ptr<Rng> shuffle_rng_, select_rng_;
};

}  // namespace fdsim::swim
