#include "models/swim/handoff_queue.h"

namespace fdsim::swim {

void HandoffQueue::admit(net::ServiceItem&& item, std::vector<net::ServiceItem>& /*dropped*/) {
  // Arrival order, except that a timer goes ahead of the packets that arrived at its own
  // instant (a resume's batch; see the header). Items only ever arrive at or after the back's
  // instant, so the scan stops at the first item of an earlier instant or of the timer kind.
  const bool timer = item.tag < 0;
  auto pos = work_.end();
  if (timer) {
    while (pos != work_.begin()) {
      const net::ServiceItem& prev = *(pos - 1);
      if (prev.arrived != item.arrived || prev.tag < 0) break;
      --pos;
    }
  }
  work_.insert(pos, std::move(item));
}

bool HandoffQueue::hand_off(net::ServiceItem&& item, bool high_priority) {
  std::deque<net::ServiceItem>& list = high_priority ? high_ : low_;
  if (list.size() >= depth_) {  // net.go: queue.Len() >= HandoffQueueDepth: drop
    ++dropped_;
    return false;
  }
  list.push_back(std::move(item));
  ++handed_off_;
  handler_turn_ = true;  // handoffCh woke the packet handler: it runs next
  return true;
}

net::ServiceItem HandoffQueue::next() {
  const bool handoff_waiting = !high_.empty() || !low_.empty();
  const bool from_handoff = handoff_waiting && (work_.empty() || handler_turn_);
  net::ServiceItem it;
  if (from_handoff) {
    // getNextMessage: the back (newest) of the high list, else the back of the low list.
    std::deque<net::ServiceItem>& list = !high_.empty() ? high_ : low_;
    it = std::move(list.back());
    list.pop_back();
    handler_turn_ = false;
  } else {
    it = std::move(work_.front());
    work_.pop_front();
    handler_turn_ = true;
  }
  return it;
}

void HandoffQueue::clear() {
  work_.clear();
  high_.clear();
  low_.clear();
  handler_turn_ = false;
}

}  // namespace fdsim::swim
