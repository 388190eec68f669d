#pragma once
// The pending-event set of the simulator: a calendar of time buckets in front of a heap.
//
// Contract (what the simulator relies on; tests/engine/event_queue_test.cpp checks it against a
// plain binary heap on millions of random operations):
// - push() assigns the next sequence number (1, 2, 3, ...); top()/pop() yield the live event
//   with the smallest (time, seq), so same-time events come out in push order. Nothing else
//   (addresses, slot numbers, bucket layout, rebuilds) influences the order.
// - cancel() is O(1) and never moves other events; a cancelled event is never yielded.
// - A handle (slot, seq) stays unambiguous after its slot is reused: seq never repeats.
// - Every operation is amortised O(1) for workloads whose events lie within a few "typical
//   look-aheads" of the current time (periodic timers, message deliveries); anything else still
//   works at heap cost (O(log n)).
//
// Layout (three tiers, partitioned by bucket number a = time >> shift_):
// - the front: events with a < next_abs_, consumed in order: `run_`, one bucket's content
//   sorted when the bucket is reached (latest first, consumed from the end), and `front_`, a
//   4-ary heap for events pushed into the already-reached range afterwards; the earlier of the
//   two heads wins;
// - the calendar: B = heads_.size() buckets for a in [next_abs_, next_abs_ + B), each an
//   unsorted singly linked list threaded through the nodes (push is one store to the head);
// - the far heap: a 4-ary heap of everything later, pulled into the calendar as it slides.
// Events sit in nodes held in fixed-size chunks (never reallocated, so the peak memory is not
// doubled by a vector growing). Cancelling an event in a heap frees its node at once and leaves
// a tombstone entry (skipped by sequence number); cancelling one in a calendar bucket unlinks
// and frees it if it is among the first 32 entries of its list (at most 32 steps, so still
// O(1)), else leaves it linked, marked dead, until its bucket is reached. When dead entries
// outnumber live events (and an eighth of all nodes) everything is rebuilt in O(nodes), which
// is amortised O(1) per cancel.
// Bucket width and count adapt: every 2n operations (n = live events) the width is set from
// the mean time between recently dispatched events and the count from n, and the structure is
// rebuilt in O(n) if either is off by more than a factor (hysteresis against flapping).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace fdsim {

template <class Payload>
class EventQueue {
 public:
  struct Entry {
    int64_t time_ns;
    uint64_t seq;
    uint32_t slot;
  };

  EventQueue() { heads_.assign(kMinBuckets, kNil); }
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Adds an event at time_ns; returns its payload, which is empty (default or as left by
  // release_held/cancel) for the caller to fill in, and its slot and sequence number.
  [[gnu::always_inline]] Payload& push(int64_t time_ns, uint32_t* slot_out, uint64_t* seq_out) {
    if (free_head_ == kNil) grow();
    const uint32_t i = free_head_;
    Node& n = node(i);
    free_head_ = n.next;
    n.time_ns = time_ns;
    n.seq = next_seq_++;
    place(i, n);
    ++live_;
    *slot_out = i;
    *seq_out = n.seq;
    if (++ops_ >= next_check_) [[unlikely]]
      adapt();
    return n.payload;
  }

  bool pending(uint32_t slot, uint64_t seq) const {
    return seq != 0 && slot < capacity_ && node(slot).seq == seq;
  }

  // Cancels a pending event (payload reset to Payload{}); false if not pending.
  bool cancel(uint32_t slot, uint64_t seq) {
    if (!pending(slot, seq)) return false;
    Node& n = node(slot);
    n.seq = 0;
    n.payload = Payload{};
    --live_;
    if (n.where == kInBucket) {
      if (unlink(slot, n)) return true;
      n.where = kDeadInBucket;  // stays linked; freed when its bucket is reached
    } else {
      release(slot, n);  // the heap/run entry becomes a tombstone
    }
    ++dead_;
    if (dead_ > kMinRebuild && dead_ > live_ && dead_ > capacity_ / 8) rebuild(shift_, heads_.size());
    return true;
  }

  // The earliest live event, or nullptr if there is none. May reorganise internals (never the
  // order); the pointer is valid until the next push/pop/cancel.
  [[gnu::always_inline]] const Entry* top() {
    if (run_len_ > 0) {  // the common case: both heads alive, no bucket to reach
      const Entry& e = run_[run_len_ - 1];
      if (!dead(e)) {
        if (front_.empty() || earlier(e, front_[0])) {
          top_in_run_ = true;
          return &e;
        }
        if (!dead(front_[0])) {
          top_in_run_ = false;
          return &front_[0];
        }
      }
    }
    return top_slow();
  }
  [[gnu::noinline]] const Entry* top_slow() {
    for (;;) {
      while (run_len_ > 0 && dead(run_[run_len_ - 1])) {
        --run_len_;
        --dead_;
      }
      while (!front_.empty() && dead(front_[0])) {
        heap_pop(front_);
        --dead_;
      }
      const bool has_run = run_len_ > 0;
      if (has_run || !front_.empty()) {
        top_in_run_ = has_run && (front_.empty() || earlier(run_[run_len_ - 1], front_[0]));
        return top_in_run_ ? &run_[run_len_ - 1] : &front_[0];
      }
      if (!advance()) return nullptr;
    }
  }

  Payload& payload(uint32_t slot) { return node(slot).payload; }

  // Removes the entry returned by the immediately preceding top() and returns its slot, which
  // stays allocated (its payload in place, the event no longer pending) until release_held():
  // the simulator runs the callback where it lies, and nothing pushed meanwhile can reuse it.
  uint32_t pop_hold() {
    Entry e;
    if (top_in_run_) {
      e = run_[--run_len_];
    } else {
      e = front_[0];
      heap_pop(front_);
    }
    Node& n = node(e.slot);
    n.seq = 0;
    n.where = kHeld;
    --live_;
    ++ops_;
    ++pops_;
    last_pop_ns_ = e.time_ns;
    return e.slot;
  }
  // Frees a slot returned by pop_hold(); its payload must have been emptied by the caller.
  void release_held(uint32_t slot) { release(slot, node(slot)); }
  // pop_hold() and release_held() in one.
  void pop() { release_held(pop_hold()); }

  size_t size() const { return live_; }
  // Bytes held by the structure itself (nodes, calendar, heaps), for memory reports.
  size_t bytes() const {
    return chunks_.size() * kChunkSize * sizeof(Node) + heads_.capacity() * sizeof(uint32_t) +
           (run_.capacity() + front_.capacity() + far_.capacity()) * sizeof(Entry);
  }

 private:
  static constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
  static constexpr unsigned kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr size_t kMinBuckets = 256;
  static constexpr size_t kMaxBuckets = size_t(1) << 24;
  static constexpr size_t kMinRebuild = 1024;
  static constexpr int kUnlinkSteps = 32;
  static constexpr unsigned kInitialShift = 20;  // about 1 ms buckets until measured
  enum Where : uint8_t { kFree, kInHeap, kInBucket, kDeadInBucket, kHeld };

  struct Node {
    int64_t time_ns = 0;
    uint64_t seq = 0;  // 0 = free or cancelled
    uint32_t next = kNil;  // calendar list or free list
    Where where = kFree;
    Payload payload{};
  };

  static bool earlier(const Entry& a, const Entry& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.seq < b.seq;
  }
  bool dead(const Entry& e) const { return node(e.slot).seq != e.seq; }

  Node& node(uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const Node& node(uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }

  [[gnu::noinline]] void grow() {
    chunks_.push_back(std::make_unique<Node[]>(kChunkSize));
    const uint32_t base = capacity_;
    capacity_ += kChunkSize;
    for (uint32_t k = kChunkSize; k-- > 0;) {
      Node& n = node(base + k);
      n.next = free_head_;
      free_head_ = base + k;
    }
  }
  void release(uint32_t i, Node& n) {
    n.where = kFree;
    n.next = free_head_;
    free_head_ = i;
  }

  // Puts live node i into the tier its time belongs to.
  [[gnu::always_inline]] void place(uint32_t i, Node& n) {
    const int64_t a = n.time_ns >> shift_;
    if (a < next_abs_) {
      n.where = kInHeap;
      heap_push(front_, {n.time_ns, n.seq, i});
    } else if (uint64_t(a - next_abs_) < heads_.size()) {
      uint32_t& head = heads_[size_t(a) & (heads_.size() - 1)];
      n.where = kInBucket;
      n.next = head;
      head = i;
      ++in_buckets_;
    } else {
      n.where = kInHeap;
      heap_push(far_, {n.time_ns, n.seq, i});
    }
  }

  // Removes node i from its calendar list if it is among the first kUnlinkSteps entries (the
  // usual case: buckets hold a few events) and frees it; otherwise leaves it to be marked dead.
  bool unlink(uint32_t i, Node& n) {
    uint32_t* link = &heads_[size_t(n.time_ns >> shift_) & (heads_.size() - 1)];
    for (int steps = 0; steps < kUnlinkSteps && *link != kNil; ++steps) {
      if (*link == i) {
        *link = n.next;
        --in_buckets_;
        release(i, n);
        return true;
      }
      link = &node(*link).next;
    }
    return false;
  }

  // Moves far events that the calendar now covers into it.
  void pull_far() {
    const int64_t end = next_abs_ + int64_t(heads_.size());
    while (!far_.empty() && (far_[0].time_ns >> shift_) < end) {
      const Entry e = far_[0];
      heap_pop(far_);
      if (dead(e)) {
        --dead_;
        continue;
      }
      place(e.slot, node(e.slot));
    }
  }

  // The front is empty: refills run_ from the next non-empty bucket. False if nothing is left.
  bool advance() {
    for (;;) {
      if (in_buckets_ == 0) {
        while (!far_.empty() && dead(far_[0])) {
          heap_pop(far_);
          --dead_;
        }
        if (far_.empty()) return false;
        next_abs_ = std::max(next_abs_, far_[0].time_ns >> shift_);  // skip empty buckets
        pull_far();
        continue;
      }
      uint32_t& head = heads_[size_t(next_abs_) & (heads_.size() - 1)];
      if (head != kNil) {
        collect(head);
        head = kNil;
      }
      ++next_abs_;
      if (!far_.empty()) pull_far();
      if (run_len_ > 0) return true;
    }
  }

  // Moves the list starting at `first` into run_, sorted latest first by insertion from the
  // end: a list is in reverse push order, which is nearly latest first already (but for a
  // delivery pushed after a later timer, say), so this costs about one comparison per event.
  // If the moves exceed 64 + 4 per entry, the rest is appended as is and std::sort finishes.
  // Locals instead of members in the loop: stores through Entry might alias them.
  void collect(uint32_t first) {
    size_t len = run_len_, budget = 64, linked = 0, freed = 0;
    for (uint32_t i = first; i != kNil;) {
      Node& n = node(i);
      const uint32_t next = n.next;
      ++linked;
      if (n.where == kDeadInBucket) {
        ++freed;
        release(i, n);
      } else {
        n.where = kInHeap;
        const Entry e{n.time_ns, n.seq, i};
        if (len == run_.size()) run_.resize(std::max<size_t>(64, 2 * run_.size()));
        Entry* r = run_.data();
        size_t j = len++;
        if (budget > 0) {
          budget += 4;
          for (; j > 0 && earlier(r[j - 1], e); --j) {
            r[j] = r[j - 1];
            if (--budget == 0) break;
          }
        }
        r[j] = e;
      }
      i = next;
    }
    in_buckets_ -= linked;
    dead_ -= freed;
    run_len_ = len;
    if (budget == 0)
      std::sort(run_.begin(), run_.begin() + ptrdiff_t(len),
                [](const Entry& a, const Entry& b) { return earlier(b, a); });
  }

  // Re-tunes the calendar from recent traffic; rebuilds only when it is clearly off.
  void adapt() {
    next_check_ = ops_ + std::max<uint64_t>(4096, 2 * uint64_t(live_));
    size_t buckets = heads_.size();
    const size_t want_buckets = std::clamp(std::bit_ceil(live_), kMinBuckets, kMaxBuckets);
    if (want_buckets >= 2 * buckets || 4 * want_buckets <= buckets) buckets = want_buckets;
    unsigned shift = shift_;
    if (pops_ >= 64 && last_pop_ns_ > check_pop_ns_) {
      // Width about twice the mean gap between dispatched events, so that the calendar spans
      // about 2 n gaps: by Little's law twice the mean look-ahead of a pending event.
      const double gap = double(last_pop_ns_ - check_pop_ns_) / double(pops_);
      const double l = std::log2(std::max(gap, 1.0)) + 1.0;
      if (l > shift_ + 0.5 || l < double(shift_) - 2.0)
        shift = std::clamp(unsigned(std::ceil(l)), 1u, 40u);
    }
    pops_ = 0;
    check_pop_ns_ = last_pop_ns_;
    if (buckets != heads_.size() || shift != shift_) rebuild(shift, buckets);
  }

  // Re-places every live event with the given geometry; frees every dead node and tombstone.
  void rebuild(unsigned shift, size_t buckets) {
    run_len_ = 0;
    front_.clear();
    far_.clear();
    heads_.assign(buckets, kNil);
    shift_ = shift;
    in_buckets_ = 0;
    dead_ = 0;
    int64_t min_ns = std::numeric_limits<int64_t>::max();
    for (uint32_t i = 0; i < capacity_; ++i) {
      const Node& n = node(i);
      if (n.where == kInHeap || n.where == kInBucket) min_ns = std::min(min_ns, n.time_ns);
    }
    next_abs_ = (live_ > 0 ? min_ns : last_pop_ns_) >> shift_;
    for (uint32_t i = 0; i < capacity_; ++i) {
      Node& n = node(i);
      if (n.where == kDeadInBucket)
        release(i, n);
      else if (n.where == kInHeap || n.where == kInBucket)
        place(i, n);
    }
  }

  // 4-ary min-heaps with hole-based sifting.
  static constexpr size_t kArity = 4;
  static void heap_push(std::vector<Entry>& h, Entry e) {
    size_t hole = h.size();
    h.push_back(e);
    while (hole > 0) {
      const size_t parent = (hole - 1) / kArity;
      if (!earlier(e, h[parent])) break;
      h[hole] = h[parent];
      hole = parent;
    }
    h[hole] = e;
  }
  static void heap_pop(std::vector<Entry>& h) {
    const Entry e = h.back();
    h.pop_back();
    const size_t n = h.size();
    if (n == 0) return;
    size_t hole = 0;
    for (;;) {
      const size_t first = kArity * hole + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t last = std::min(first + kArity, n);
      for (size_t c = first + 1; c < last; ++c)
        if (earlier(h[c], h[best])) best = c;
      if (!earlier(h[best], e)) break;
      h[hole] = h[best];
      hole = best;
    }
    h[hole] = e;
  }

  std::vector<std::unique_ptr<Node[]>> chunks_;
  uint32_t capacity_ = 0;
  uint32_t free_head_ = kNil;
  uint64_t next_seq_ = 1;

  std::vector<Entry> run_;  // [0, run_len_) sorted latest first: the next is run_[run_len_ - 1]
  size_t run_len_ = 0;
  std::vector<Entry> front_;
  std::vector<uint32_t> heads_;
  std::vector<Entry> far_;
  int64_t next_abs_ = 0;
  unsigned shift_ = kInitialShift;
  bool top_in_run_ = false;

  size_t live_ = 0;
  size_t in_buckets_ = 0;  // linked nodes, dead ones included
  size_t dead_ = 0;        // tombstone entries plus dead linked nodes

  uint64_t ops_ = 0;
  uint64_t next_check_ = 4096;
  uint64_t pops_ = 0;
  int64_t last_pop_ns_ = 0;
  int64_t check_pop_ns_ = 0;
};

}  // namespace fdsim
