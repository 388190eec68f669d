#include "models/swim/probe_order.h"

#include <algorithm>
#include <numeric>

#include "models/swim/shuffle_draw.h"

namespace fdsim::swim {

namespace {
// One scratch order per thread, reused by every member's pass (a pass runs to completion
// before another starts on the thread; replications on other threads have their own).
std::vector<NodeId>& scratch() {
  thread_local std::vector<NodeId> s;
  return s;
}

// UniformBelow(r) for r = 0 .. n - 1 (entry 0 unused), per thread, grown on demand.
const std::vector<UniformBelow>& draw_table(size_t n) {
  thread_local std::vector<UniformBelow> t{UniformBelow(1)};
  while (t.size() < n) t.emplace_back(uint64_t(t.size()));
  return t;
}
}  // namespace

LookaheadHint lookahead_hint(int64_t left_ns, int64_t probe_interval_ns, int64_t gossip_interval_ns,
                             int64_t gossip_nodes, int64_t indirect_checks) {
  left_ns = std::max<int64_t>(left_ns, 0);
  const int64_t ticks = left_ns / std::max<int64_t>(probe_interval_ns, 1) + 1;
  const int64_t gossips =
      gossip_nodes > 0 ? (left_ns / std::max<int64_t>(gossip_interval_ns, 1) + 1) * gossip_nodes
                       : 0;
  const int64_t selects = gossips + ticks * indirect_checks / 4 + 64;
  const auto cap = [](int64_t v) { return size_t(std::min<int64_t>(v, int64_t(kMaxLookahead))); };
  return {cap(ticks + ticks / 4 + 16), cap(selects + selects / 4)};
}

void ProbeOrder::start(size_t n, size_t prefix_hint, size_t select_hint) {
  lazy_ = true;
  n_ = n;
  prefix_.clear();
  ahead_.clear();
  ahead_pos_ = 0;
  consumed_ = 0;
  vec_.clear();
  shuffle_rng_.reset();
  select_rng_.reset();
  refill(std::min(std::max<size_t>(prefix_hint, 1), n), std::max<size_t>(select_hint, 1));
}

std::vector<NodeId>& ProbeOrder::replay(std::unique_ptr<Rng>* keep_shuffle) {
  std::vector<NodeId>& a = scratch();
  a.resize(n_);
  std::iota(a.begin(), a.end(), NodeId{0});
  Rng sh = rng_->stream(self_, "swim.shuffle");
  // Fisher-Yates, as Go's rand.Shuffle: the draws sh.uniform_int(0, i - 1) that
  // member_probe.cpp made eagerly before, computed as shuffle_draw.h does.
  const std::vector<UniformBelow>& table = draw_table(n_);
  for (size_t i = n_; i > 1; --i)
    std::swap(a[i - 1], a[size_t(draw(sh.engine(), table[i - 1]))]);
  if (keep_shuffle != nullptr) *keep_shuffle = std::make_unique<Rng>(sh);
  ++passes_;
  return a;
}

Rng ProbeOrder::select_at_consumed() const {
  Rng sel = rng_->stream(self_, "swim.select");
  if (n_ > 1) {
    const UniformBelow u(n_ - 1);
    for (uint64_t k = 0; k < consumed_; ++k) draw(sel.engine(), u);
  }  // n = 1: uniform_int(0, 0) draws nothing
  return sel;
}

void ProbeOrder::refill(size_t prefix_need, size_t select_need) {
  const std::vector<NodeId>& a = replay(nullptr);
  prefix_.assign(a.begin(), a.begin() + std::ptrdiff_t(std::min(prefix_need, n_)));
  ahead_.clear();
  ahead_pos_ = 0;
  if (n_ == 0) return;
  Rng sel = select_at_consumed();
  ahead_.reserve(select_need);
  if (n_ == 1) {
    ahead_.assign(select_need, a[0]);
    return;
  }
  const UniformBelow u(n_ - 1);
  for (size_t k = 0; k < select_need; ++k) ahead_.push_back(a[size_t(draw(sel.engine(), u))]);
}

NodeId ProbeOrder::at(size_t i) {
  if (!lazy_) return vec_[i];
  if (i >= prefix_.size())
    refill(std::max(i + 1, 2 * prefix_.size()), std::max<size_t>(ahead_.size() - ahead_pos_, 1));
  return prefix_[i];
}

NodeId ProbeOrder::random() {
  if (!lazy_) return vec_[size_t(select_rng_->uniform_int(0, int64_t(vec_.size()) - 1))];
  if (ahead_pos_ >= ahead_.size())
    refill(prefix_.size(), std::clamp<size_t>(2 * ahead_.size(), 1, kMaxLookahead));
  ++consumed_;
  return ahead_[ahead_pos_++];
}

void ProbeOrder::materialize() {
  if (!lazy_) return;
  const std::vector<NodeId>& a = replay(&shuffle_rng_);
  vec_ = a;
  select_rng_ = std::make_unique<Rng>(select_at_consumed());
  lazy_ = false;
  prefix_ = {};
  ahead_ = {};
  ahead_pos_ = 0;
}

std::vector<NodeId>& ProbeOrder::nodes() {
  materialize();
  return vec_;
}

Rng& ProbeOrder::shuffle_rng() {
  materialize();
  return *shuffle_rng_;
}

Rng& ProbeOrder::select_rng() {
  materialize();
  return *select_rng_;
}

void ProbeOrder::for_each(const std::function<void(NodeId)>& f) {
  if (!lazy_) {
    for (NodeId n : vec_) f(n);
    return;
  }
  for (NodeId n : replay(nullptr)) f(n);
}

size_t ProbeOrder::held_bytes() const {
  return sizeof(*this) + (prefix_.capacity() + ahead_.capacity() + vec_.capacity()) * sizeof(NodeId);
}

}  // namespace fdsim::swim
