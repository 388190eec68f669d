// FD (src/org/jgroups/protocols/FD.java of JGroups 2.12.2; line numbers in
// docs/models/jgroups.md) and the SUSPECT broadcaster FD shares with FD_SOCK.
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

namespace {
void erase(std::vector<NodeId>& v, NodeId n) { v.erase(std::remove(v.begin(), v.end(), n), v.end()); }
bool contains(const std::vector<NodeId>& v, NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}
}  // namespace

// down(VIEW_CHANGE): members, the broadcaster keeps only view members, every member is
// pingable again, restartMonitor().
void Member::fd_view_change() {
  bcast_retain_view(true);
  fd_pingable_ = view_;
  fd_restart_monitor();
}

// restartMonitor(): a new ping destination restarts the monitor from scratch (last_ack = now,
// num_tries = 0, first tick one timeout later; scheduleWithFixedDelay). Same destination: no-op.
void Member::fd_restart_monitor() {
  const NodeId dest = next_after_self(fd_pingable_);
  const bool restart = dest == kNoNode || fd_dest_ == kNoNode || dest != fd_dest_;
  if (!restart) return;
  fd_dest_ = dest;
  const uint64_t gen = ++fd_gen_;
  if (dest == kNoNode) return;
  fd_last_ack_ = s_.now();
  fd_num_tries_ = 0;
  // The first monitor of view 1 has been running since before t = 0: its phase stands in for
  // the instant the member installed the view.
  const Duration first = fd_started_ ? s_.config.fd_timeout : fd_phase_;
  fd_started_ = true;
  s_.world.hosts.schedule_after(self_, first, s_.kinds.fd_tick, [this, gen] { fd_tick(gen); });
}

// Monitor.run(): send are-you-alive to ping_dest; if nothing was heard for more than timeout +
// 500 ms, count a missed heartbeat, and after max_tries counted ones suspect ping_dest (the
// broadcaster multicasts SUSPECT at once) and start counting again.
void Member::fd_tick(uint64_t gen) {
  if (!up_ || gen != fd_gen_ || fd_dest_ == kNoNode) return;
  const NodeId dest = fd_dest_;
  send(dest, Msg::fd_heartbeat, [from = self_](Member& m) {
    // up(HEARTBEAT): answer with HEARTBEAT_ACK carrying my address.
    m.send(from, Msg::fd_heartbeat_ack, [acker = m.self_](Member& x) { x.fd_heard_from(acker); });
  });
  const Duration not_heard = s_.now() - fd_last_ack_;
  if (not_heard > s_.config.fd_timeout + kFdLatencyAllowance) {
    if (fd_num_tries_ >= s_.config.fd_max_tries) {
      s_.trace(self_, "jgroups_fd_suspect", {{"target", dest}, {"not_heard_ms", not_heard.millis()}});
      bcast_add(true, dest, Duration::zero(), s_.config.fd_timeout);
      fd_num_tries_ = 0;
    } else {
      ++fd_num_tries_;
    }
  }
  s_.world.hosts.schedule_after(self_, s_.config.fd_timeout, s_.kinds.fd_tick,
                                [this, gen] { fd_tick(gen); });
}

// updateTimestamp(): a HEARTBEAT_ACK, or any message without an FD header, from ping_dest.
void Member::fd_heard_from(NodeId src) {
  if (!has(Detector::fd) || src != fd_dest_) return;
  fd_last_ack_ = s_.now();
  fd_num_tries_ = 0;
}

// up(SUSPECT message): for each suspect other than me, drop it from the pingable members,
// restartMonitor(), and pass SUSPECT up; a SUSPECT of myself is answered with a HEARTBEAT_ACK.
// One member after another (suspect_loop: each waits for the previous one's ARE_YOU_DEAD send).
void Member::fd_on_suspect_msg(NodeId src, const std::vector<NodeId>& mbrs) {
  suspect_loop(mbrs, 0, [this, src](NodeId mbr) {
    if (mbr == self_) {
      send(src, Msg::fd_heartbeat_ack, [acker = self_](Member& x) { x.fd_heard_from(acker); });
      return false;
    }
    erase(fd_pingable_, mbr);
    fd_restart_monitor();
    return detector_up_suspect(mbr, Detector::fd);
  });
}

// down(UNSUSPECT) from VERIFY_SUSPECT: stop rebroadcasting it, pingable = members minus the
// broadcaster's suspects, restartMonitor().
void Member::fd_unsuspect(NodeId n) {
  bcast_remove(true, n);
  fd_pingable_.clear();
  for (NodeId m : view_)
    if (!contains(fd_bcast_.suspects, m)) fd_pingable_.push_back(m);
  fd_restart_monitor();
}

void Member::bcast_add(bool fd, NodeId n, Duration first_delay, Duration period) {
  Broadcaster& b = bcast(fd);
  if (contains(b.suspects, n)) return;
  b.suspects.push_back(n);
  if (b.running) return;
  b.running = true;
  const uint64_t gen = ++b.gen;
  s_.world.hosts.schedule_after(self_, first_delay, s_.kinds.bcast_tick,
                                [this, fd, gen, period] { bcast_tick(fd, gen, period); });
}

// BroadcastTask.run(): multicast SUSPECT(all suspects) to the group, until the view drops them.
// FD's goes to FD at each member (FD.java:246-268), FD_SOCK's to FD_SOCK (FD_SOCK.java:201-207).
void Member::bcast_tick(bool fd, uint64_t gen, Duration period) {
  Broadcaster& b = bcast(fd);
  if (!up_ || gen != b.gen) return;
  if (b.suspects.empty()) {
    b.running = false;
    return;
  }
  const std::vector<NodeId> mbrs = b.suspects;
  multicast(Msg::suspect, [src = self_, mbrs, fd](Member& m) {
    if (fd) m.fd_on_suspect_msg(src, mbrs);
    else m.sock_receive_suspect(src, mbrs);
  });
  s_.world.hosts.schedule_after(self_, period, s_.kinds.bcast_tick,
                                [this, fd, gen, period] { bcast_tick(fd, gen, period); });
}

void Member::bcast_retain_view(bool fd) {
  Broadcaster& b = bcast(fd);
  std::vector<NodeId> kept;
  for (NodeId n : b.suspects)
    if (in_view(n)) kept.push_back(n);
  b.suspects = std::move(kept);
  if (b.suspects.empty() && b.running) {
    b.running = false;
    ++b.gen;
  }
}

void Member::bcast_remove(bool fd, NodeId n) {
  Broadcaster& b = bcast(fd);
  erase(b.suspects, n);
  if (b.suspects.empty() && b.running) {
    b.running = false;
    ++b.gen;
  }
}

}  // namespace fdsim::jgroups
