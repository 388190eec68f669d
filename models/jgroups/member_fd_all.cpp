// FD_ALL (src/org/jgroups/protocols/FD_ALL.java of JGroups 2.12.2).
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

// handleViewChange(): keep the suspects and timestamps of view members, stamp every member
// with now (a view change refreshes everyone), run both tasks while the view has > 1 members.
void Member::fd_all_view_change() {
  std::vector<NodeId> kept;
  for (NodeId n : fd_all_suspected_)
    if (in_view(n)) kept.push_back(n);
  fd_all_suspected_ = std::move(kept);
  for (auto it = fd_all_stamps_.begin(); it != fd_all_stamps_.end();)
    it = in_view(it->first) ? std::next(it) : fd_all_stamps_.erase(it);
  for (NodeId n : view_)
    if (n != self_) fd_all_stamps_[n] = s_.now();
}

// HeartbeatSender and TimeoutChecker: both scheduled with the same initial delay and period
// (interval) when the view first has two members, so they share a phase; one tick runs both.
// The checker suspects every member silent for more than timeout.
void Member::fd_all_tick() {
  if (!up_) return;
  if (view_.size() > 1) {
    multicast(Msg::fd_all_heartbeat, [from = self_](Member& m) {
      // up(): a heartbeat updates the sender's timestamp (not my own). On its way up it passed
      // any FD below FD_ALL, which counts a message without an FD header from its ping
      // destination (FD.java:229-231).
      if (m.s_.arm.below(Detector::fd, Detector::fd_all)) m.fd_heard_from(from);
      if (from != m.self_) m.fd_all_stamps_[from] = m.s_.now();
    });
    std::vector<NodeId> suspects;
    for (const auto& [n, stamp] : fd_all_stamps_)
      if (s_.now() - stamp > s_.config.fd_all_timeout) suspects.push_back(n);
    if (!suspects.empty()) fd_all_suspect(suspects);
  }
  s_.world.hosts.schedule_after(self_, s_.config.fd_all_interval, s_.kinds.fd_all_tick,
                                [this] { fd_all_tick(); });
}

// suspect(): add to the suspects; only the first member of (view minus suspects) passes
// SUSPECT up, for each member suspected by this check (again at every check while silent).
void Member::fd_all_suspect(const std::vector<NodeId>& suspects) {
  for (NodeId n : suspects)
    if (std::find(fd_all_suspected_.begin(), fd_all_suspected_.end(), n) == fd_all_suspected_.end())
      fd_all_suspected_.push_back(n);
  for (NodeId n : view_) {
    if (std::find(fd_all_suspected_.begin(), fd_all_suspected_.end(), n) != fd_all_suspected_.end())
      continue;
    if (n != self_) return;  // someone else is first in line
    // One up(SUSPECT) after another (suspect_loop: each waits for the previous one's
    // ARE_YOU_DEAD send).
    suspect_loop(suspects, 0, [this](NodeId s) { return detector_up_suspect(s, Detector::fd_all); });
    return;
  }
}

}  // namespace fdsim::jgroups
