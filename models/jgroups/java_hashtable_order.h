#pragma once
// The iteration order of a java.util.Hashtable (JDK 8 to 17, unchanged in between), for a
// table of member addresses: VERIFY_SUSPECT keeps its suspects in a Hashtable
// (VERIFY_SUSPECT.java:59) and its timer thread's sleep depends on which entry its loop visits
// last (VERIFY_SUSPECT.java:154-166), so the model needs the order the JVM has.
//
// Contract (java.util.Hashtable's code): a new table has 11 buckets and load factor 0.75
// (threshold 8); put() first rehashes when count >= threshold (new capacity 2c + 1, threshold
// (int)(0.75 c'); the old buckets are walked from the last to the first, each chain from its
// head, every entry pushed onto the head of its new bucket), then pushes the entry onto the
// head of bucket (hash & 0x7FFFFFFF) % capacity. keys() walks the buckets from the last to
// the first, each chain from its head. remove() unlinks the entry and keeps the rest in order.
// The table never shrinks. Keys are node ids; the hash is the address's hashCode() (random for
// JGroups' UUID addresses: the model draws one per member).

#include <cstdint>
#include <vector>

#include "sim/engine/ids.h"

namespace fdsim::jgroups {

class JavaHashtableOrder {
 public:
  JavaHashtableOrder() : buckets_(11) {}

  bool contains(NodeId key) const {
    for (const auto& b : buckets_)
      for (const Entry& e : b)
        if (e.key == key) return true;
    return false;
  }
  size_t size() const { return count_; }
  size_t capacity() const { return buckets_.size(); }

  // Hashtable.put of a key not in the table.
  void put(NodeId key, int32_t hash) {
    if (count_ >= threshold_) rehash();
    auto& b = buckets_[index(hash, buckets_.size())];
    b.insert(b.begin(), Entry{key, hash});
    ++count_;
  }

  void remove(NodeId key) {
    for (auto& b : buckets_)
      for (auto it = b.begin(); it != b.end(); ++it)
        if (it->key == key) {
          b.erase(it);
          --count_;
          return;
        }
  }

  void clear() {
    for (auto& b : buckets_) b.clear();
    count_ = 0;
  }

  // Hashtable.keys(): last bucket first, each chain from its head.
  std::vector<NodeId> keys() const {
    std::vector<NodeId> out;
    for (size_t i = buckets_.size(); i-- > 0;)
      for (const Entry& e : buckets_[i]) out.push_back(e.key);
    return out;
  }

 private:
  struct Entry {
    NodeId key;
    int32_t hash;
  };

  static size_t index(int32_t hash, size_t capacity) {
    return size_t(uint32_t(hash) & 0x7FFFFFFFu) % capacity;
  }

  void rehash() {
    const size_t cap = buckets_.size() * 2 + 1;
    std::vector<std::vector<Entry>> next(cap);
    for (size_t i = buckets_.size(); i-- > 0;)
      for (const Entry& e : buckets_[i]) {
        auto& b = next[index(e.hash, cap)];
        b.insert(b.begin(), e);
      }
    buckets_ = std::move(next);
    threshold_ = size_t(double(cap) * 0.75);
  }

  std::vector<std::vector<Entry>> buckets_;
  size_t count_ = 0;
  size_t threshold_ = 8;
};

}  // namespace fdsim::jgroups
