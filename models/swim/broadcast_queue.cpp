#include "models/swim/broadcast_queue.h"

#include "sim/engine/budget.h"

#include <algorithm>

namespace fdsim::swim {

void BroadcastQueue::push(const Update& u) {
  std::erase_if(items_, [&](const Item& i) { return i.update.node == u.node; });
  items_.push_back(Item{u, 0, next_id_++});
}

Updates BroadcastQueue::take(uint32_t overhead_bytes, int64_t limit_bytes,
                             int64_t transmit_limit) {
  Updates out;
  if (items_.empty()) return out;
  // Each pick walks the whole queue: a queue of thousands of updates (mass churn) is work
  // inside the event (sim/engine/budget.h), one unit per 64 items walked.
  if (items_.size() >= 64) charge_work(items_.size() / 64);
  std::vector<bool> taken(items_.size(), false);
  int64_t used = 0;
  for (;;) {
    const int64_t free = limit_bytes - used - int64_t(overhead_bytes);
    if (free <= 0) break;
    size_t best = items_.size();
    for (size_t i = 0; i < items_.size(); ++i) {
      if (taken[i] || int64_t(update_bytes(items_[i].update)) > free) continue;
      if (best == items_.size()) {
        best = i;
        continue;
      }
      const Item& a = items_[i];
      const Item& b = items_[best];
      const uint32_t sa = update_bytes(a.update), sb = update_bytes(b.update);
      if (a.transmits != b.transmits ? a.transmits < b.transmits
                                     : (sa != sb ? sa > sb : a.id > b.id))
        best = i;
    }
    if (best == items_.size()) break;
    if (items_.size() >= 64) charge_work(items_.size() / 64);
    taken[best] = true;
    used += int64_t(overhead_bytes) + int64_t(update_bytes(items_[best].update));
    out.push_back(items_[best].update);
  }
  // Reinsert with one more transmit, or finish.
  std::vector<Item> kept;
  kept.reserve(items_.size());
  for (size_t i = 0; i < items_.size(); ++i) {
    Item it = items_[i];
    if (taken[i]) {
      if (it.transmits + 1 >= transmit_limit) continue;
      ++it.transmits;
    }
    kept.push_back(it);
  }
  items_ = std::move(kept);
  return out;
}

}  // namespace fdsim::swim
