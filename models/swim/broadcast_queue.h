#pragma once
// memberlist's TransmitLimitedQueue (queue.go) for one member: the updates it still has to
// piggyback or gossip.
//
// Contract:
// - push(u): a new update about member u.node replaces every queued update about the same
//   member (memberlist's named-broadcast invalidation) and enters with 0 transmits; it gets the
//   next id (newer = larger id).
// - take(overhead, limit_bytes, transmit_limit): as GetBroadcasts: repeatedly picks, among the
//   queued updates not yet taken in this call whose size fits the free space
//   (limit - used - overhead), the one with the fewest transmits, then the largest size, then
//   the newest; each pick uses overhead + size bytes. Every picked update has its transmits
//   raised by one and is dropped once transmits reaches transmit_limit. Returns the picks in
//   order. An empty queue (or no fitting update) returns nothing.
// Cost: O(q) per pick; queues hold a few updates per member.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/swim/messages.h"

namespace fdsim::swim {

class BroadcastQueue {
 public:
  void push(const Update& u);
  Updates take(uint32_t overhead_bytes, int64_t limit_bytes, int64_t transmit_limit);
  size_t size() const { return items_.size(); }
  void clear() { items_.clear(); }

 private:
  struct Item {
    Update update;
    int64_t transmits = 0;
    uint64_t id = 0;
  };
  std::vector<Item> items_;
  uint64_t next_id_ = 1;
};

}  // namespace fdsim::swim
