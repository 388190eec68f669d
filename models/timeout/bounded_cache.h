#pragma once
// A bounded memo from fixed-size integer keys to values, for TimeoutTable.
//
// Contract: find() returns the value stored for the key or nullptr; put() stores it. Open
// addressing (linear probing) over kSlots slots with a fixed hash (splitmix64 of the key words,
// no per-process seed); when kMaxEntries are stored, the next put() first empties the whole
// memo. So memory is bounded by kSlots * sizeof(Slot) whatever the run, and the contents are a
// deterministic function of the sequence of put() calls. The callers store only values that
// are functions of the key alone, so whether a query hits or misses never changes a result,
// only its cost. Not thread-safe.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fdsim::timeout {

template <size_t N, class V>
class BoundedCache {
 public:
  using Key = std::array<uint64_t, N>;
  static constexpr size_t kSlots = 2048;             // a power of two
  static constexpr size_t kMaxEntries = kSlots / 2;  // load factor <= 1/2

  const V* find(const Key& k) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = index(k);; i = (i + 1) & (kSlots - 1)) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == k) return &s.value;
    }
  }
  void put(const Key& k, const V& v) {
    if (slots_.empty()) slots_.resize(kSlots);
    if (count_ >= kMaxEntries) clear();
    for (size_t i = index(k);; i = (i + 1) & (kSlots - 1)) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = Slot{k, v, true};
        ++count_;
        return;
      }
      if (s.key == k) {
        s.value = v;
        return;
      }
    }
  }
  size_t size() const { return count_; }
  void clear() {
    for (Slot& s : slots_) s.used = false;
    count_ = 0;
  }
  // The most memory the memo ever holds (bytes of its slot array).
  static constexpr size_t max_bytes() { return kSlots * sizeof(Slot); }

 private:
  struct Slot {
    Key key{};
    V value{};
    bool used = false;
  };
  static size_t index(const Key& k) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint64_t w : k) {
      h ^= w + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h ^= h >> 30;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 27;
      h *= 0x94D049BB133111EBull;
      h ^= h >> 31;
    }
    return size_t(h) & (kSlots - 1);
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace fdsim::timeout
