// EventQueue against a reference binary heap: on randomized schedules (millions of pushes,
// pops and cancels, delays from zero to years, bursts of identical times, phases that force the
// calendar to re-tune) both must dispatch the identical (time, seq) sequence, agree on every
// cancel() result and on pending().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"

namespace fdsim {
namespace {

// The reference: std::push_heap/pop_heap on (time, seq), cancellation by a per-seq flag.
class ReferenceHeap {
 public:
  struct E {
    int64_t t;
    uint64_t seq;
  };
  uint64_t push(int64_t t) {
    const uint64_t seq = state_.size();
    state_.push_back(kPending);
    heap_.push_back({t, seq});
    std::push_heap(heap_.begin(), heap_.end(), later);
    ++live_;
    return seq;
  }
  bool cancel(uint64_t seq) {
    if (!pending(seq)) return false;
    state_[seq] = kCancelled;
    --live_;
    return true;
  }
  bool pending(uint64_t seq) const { return seq < state_.size() && state_[seq] == kPending; }
  bool pop(E* out) {
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const E e = heap_.back();
      heap_.pop_back();
      if (state_[e.seq] != kPending) continue;
      state_[e.seq] = kDone;
      --live_;
      *out = e;
      return true;
    }
    return false;
  }
  size_t size() const { return live_; }
  uint64_t next_seq() const { return state_.size(); }

 private:
  enum : uint8_t { kPending, kCancelled, kDone };
  static bool later(const E& a, const E& b) { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
  std::vector<E> heap_;
  std::vector<uint8_t> state_{kDone};  // seq 0 is never used
  size_t live_ = 0;
};

struct Mix {
  double p_push;       // else pop (or cancel)
  double p_cancel;     // of the non-push operations
  double p_same_time;  // delay 0
  double p_burst;      // the next 50 pushes share one instant
  double p_far;        // delay up to ~3 simulated years
  double short_mean_ns;
  double period_ns;    // exact periodic re-arm, like heartbeat timers
};

struct Counts {
  uint64_t pushes = 0, pops = 0, cancels = 0;
};

// Runs `ops` random operations with the given mix on both queues, in lock step.
void run_phase(EventQueue<uint32_t>& q, ReferenceHeap& ref, Rng& rng, const Mix& m, int ops,
               int64_t& now, std::vector<std::pair<uint32_t, uint64_t>>& handles, Counts& c) {
  constexpr uint32_t kNone = UINT32_MAX;
  uint32_t held = kNone;
  int burst_left = 0;
  int64_t burst_t = 0;
  for (int k = 0; k < ops; ++k) {
    const double u = rng.uniform01();
    if (u < m.p_push || ref.size() == 0) {
      int64_t t;
      if (burst_left > 0) {
        --burst_left;
        t = std::max(burst_t, now);  // pops may have moved past it: never schedule in the past
      } else {
        const double v = rng.uniform01();
        if (v < m.p_same_time) {
          t = now;
        } else if (v < m.p_same_time + m.p_burst) {
          burst_left = 50;
          t = burst_t = now + int64_t(rng.exponential(1 / m.short_mean_ns));
        } else if (v < m.p_same_time + m.p_burst + m.p_far) {
          t = now + rng.uniform_int(0, int64_t(1e17));
        } else if (v < 0.5) {
          t = now + int64_t(m.period_ns);
        } else {
          t = now + int64_t(rng.exponential(1 / m.short_mean_ns));
        }
      }
      uint64_t seq = 0;
      uint32_t slot = 0;
      q.push(t, &slot, &seq) = uint32_t(ref.next_seq());  // payload = seq
      ASSERT_EQ(seq, ref.push(t));
      ASSERT_NE(slot, held);  // a held slot is never handed out again before its release
      handles.push_back({slot, seq});
      ++c.pushes;
    } else if (rng.uniform01() < m.p_cancel && !handles.empty()) {
      // Cancel a random recent handle: pending, already dispatched or already cancelled.
      const size_t back = size_t(rng.uniform_int(0, int64_t(std::min<size_t>(handles.size(), 4096)) - 1));
      const auto h = handles[handles.size() - 1 - back];
      ASSERT_EQ(q.pending(h.first, h.second), ref.pending(h.second));
      const bool cancelled = ref.cancel(h.second);
      ASSERT_EQ(q.cancel(h.first, h.second), cancelled) << "seq " << h.second;
      c.cancels += cancelled;
    } else {
      ReferenceHeap::E e{};
      const bool any = ref.pop(&e);
      const auto* top = q.top();
      ASSERT_EQ(top != nullptr, any);
      if (!any) continue;
      ASSERT_EQ(top->seq, e.seq) << "after " << c.pops << " pops";
      ASSERT_EQ(top->time_ns, e.t);
      ASSERT_EQ(q.payload(top->slot), uint32_t(e.seq));  // the payload travelled with the event
      // Like the simulator, hold the slot while "the callback runs" (the next operations).
      if (held != kNone) q.release_held(held);
      held = q.pop_hold();
      ASSERT_FALSE(q.pending(held, e.seq));
      ASSERT_GE(e.t, now);
      now = e.t;
      ++c.pops;
    }
    ASSERT_EQ(q.size(), ref.size());
    if (handles.size() > 1 << 16) handles.erase(handles.begin(), handles.begin() + (1 << 15));
  }
  if (held != kNone) q.release_held(held);
}

void drain(EventQueue<uint32_t>& q, ReferenceHeap& ref, Counts& c) {
  ReferenceHeap::E e{};
  while (ref.pop(&e)) {
    const auto* top = q.top();
    ASSERT_NE(top, nullptr);
    ASSERT_EQ(top->seq, e.seq);
    ASSERT_EQ(top->time_ns, e.t);
    q.pop();
    ++c.pops;
  }
  EXPECT_EQ(q.top(), nullptr);
  EXPECT_EQ(q.size(), 0u);
}

TEST(EventQueue, MatchesReferenceHeapOnRandomSchedules) {
  const Mix timers{0.5, 0.2, 0.05, 0.01, 0.001, 5e5, 1e9};       // heartbeat-like
  const Mix dense{0.5, 0.05, 0.2, 0.05, 0.0, 1e3, 1e4};          // microsecond scale
  const Mix cancels{0.6, 0.6, 0.02, 0.0, 0.01, 1e8, 5e9};        // timeouts re-armed often
  const Mix wide{0.5, 0.3, 0.01, 0.01, 0.05, 1e10, 1e12};        // seconds to years
  Counts c;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    EventQueue<uint32_t> q;
    ReferenceHeap ref;
    Rng rng(seed);
    int64_t now = 0;
    std::vector<std::pair<uint32_t, uint64_t>> handles;
    // Grow to a large population, then change regime so the calendar must re-tune.
    Mix grow = timers;
    grow.p_push = 0.9;
    run_phase(q, ref, rng, grow, 150000, now, handles, c);
    for (const Mix& m : {timers, dense, cancels, wide, timers}) {
      run_phase(q, ref, rng, m, 150000, now, handles, c);
      if (HasFatalFailure()) return;
    }
    drain(q, ref, c);
  }
  // The test must actually have exercised all three operations at scale.
  EXPECT_GT(c.pushes, 1400000u);
  EXPECT_GT(c.pops, 1000000u);
  EXPECT_GT(c.cancels, 50000u);
}

TEST(EventQueue, SameTimeEventsComeOutInPushOrderAcrossRebuilds) {
  EventQueue<uint32_t> q;
  std::vector<uint64_t> seqs;
  for (uint32_t i = 0; i < 100000; ++i) {  // pushes alone trigger several rebuilds
    uint64_t s = 0;
    uint32_t slot = 0;
    q.push(i % 2 == 0 ? 1000 : 500, &slot, &s) = i;
    seqs.push_back(s);
  }
  uint32_t expect_odd = 1, expect_even = 0;
  for (size_t k = 0; k < 100000; ++k) {
    const auto* top = q.top();
    ASSERT_NE(top, nullptr);
    const uint32_t want = k < 50000 ? expect_odd : expect_even;
    ASSERT_EQ(q.payload(top->slot), want);
    ASSERT_EQ(top->seq, seqs[want]);
    (k < 50000 ? expect_odd : expect_even) += 2;
    q.pop();
  }
  EXPECT_EQ(q.top(), nullptr);
}

TEST(EventQueue, CancelledSlotIsReusedAndStaleHandleStaysDead) {
  EventQueue<uint32_t> q;
  uint64_t a = 0, b = 0;
  uint32_t sa = 0, sb = 0;
  q.push(1'000'000, &sa, &a) = 1;
  EXPECT_TRUE(q.cancel(sa, a));
  q.push(1'000'000, &sb, &b) = 2;
  EXPECT_EQ(sa, sb);
  EXPECT_FALSE(q.pending(sa, a));
  EXPECT_FALSE(q.cancel(sa, a));
  EXPECT_TRUE(q.pending(sb, b));
  ASSERT_NE(q.top(), nullptr);
  EXPECT_EQ(q.payload(q.top()->slot), 2u);
}

}  // namespace
}  // namespace fdsim
