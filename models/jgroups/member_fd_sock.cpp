// FD_SOCK (src/org/jgroups/protocols/FD_SOCK.java of JGroups 2.12.2): a ring of TCP
// connections; a connection that breaks (or cannot be made) is a suspicion.
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

namespace {
void erase(std::vector<NodeId>& v, NodeId n) { v.erase(std::remove(v.begin(), v.end(), n), v.end()); }
bool contains(const std::vector<NodeId>& v, NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}
}  // namespace

// down(VIEW_CHANGE): suspects and broadcaster keep view members, everyone is pingable again;
// a new ping destination closes the old connection (a regular close: no suspicion) and opens
// one to the new destination.
void Member::sock_view_change() {
  std::vector<NodeId> kept;
  for (NodeId n : sock_suspected_)
    if (in_view(n)) kept.push_back(n);
  sock_suspected_ = std::move(kept);
  bcast_retain_view();
  sock_pingable_ = view_;
  const NodeId dest = next_after_self(sock_pingable_);
  if (dest != sock_dest_) sock_connect();
}

// The pinger loop: determinePingDest(), then setupPingSocket(). A crashed destination refuses
// the connect (one round trip): broadcastSuspectMessage() and try the next one. Otherwise the
// connection is up until the destination's host crashes (on_peer_crash).
void Member::sock_connect() {
  const uint64_t gen = ++sock_gen_;
  sock_dest_ = next_after_self(sock_pingable_);
  if (sock_dest_ == kNoNode) return;
  const NodeId dest = sock_dest_;
  if (s_.world.hosts.is_crashed(dest)) {
    const Duration rtt = s_.world.net.draw_latency(self_, dest) + s_.world.net.draw_latency(dest, self_);
    s_.world.hosts.schedule_after(self_, rtt, s_.kinds.sock_closed,
                                  [this, dest, gen] { sock_closed(dest, gen); });
  }
}

void Member::on_peer_crash(NodeId n) {
  if (!up_ || s_.arm.detector != Detector::fd_sock || n != sock_dest_) return;
  const uint64_t gen = sock_gen_;
  const Duration fin = s_.world.net.draw_latency(n, self_);
  s_.world.hosts.schedule_after(self_, fin, s_.kinds.sock_closed, [this, n, gen] { sock_closed(n, gen); });
}

// handleSocketClose() (abnormal termination) or a refused connect: broadcast the suspicion,
// drop the destination from the pingable members, and watch the next one.
void Member::sock_closed(NodeId dest, uint64_t gen) {
  if (!up_ || gen != sock_gen_ || dest != sock_dest_) return;
  sock_broadcast_suspect(dest);
  erase(sock_pingable_, dest);
  sock_connect();
}

// broadcastSuspectMessage(): one SUSPECT multicast at once, then the broadcast task (first run
// after suspect_msg_interval) until a view drops the suspect.
void Member::sock_broadcast_suspect(NodeId n) {
  s_.trace(self_, "jgroups_fd_sock_suspect", {{"target", n}});
  multicast(Msg::suspect, [n](Member& m) { m.sock_on_suspect_msg({n}); });
  bcast_add(n, s_.config.fd_sock_suspect_msg_interval, s_.config.fd_sock_suspect_msg_interval);
}

// suspect(): add to the suspects; the first member of (view minus suspects) passes SUSPECT up.
void Member::sock_on_suspect_msg(const std::vector<NodeId>& mbrs) {
  for (NodeId n : mbrs)
    if (!contains(sock_suspected_, n)) sock_suspected_.push_back(n);
  for (NodeId n : view_) {
    if (contains(sock_suspected_, n)) continue;
    if (n != self_) return;
    for (NodeId s : mbrs) detector_up_suspect(s);
    return;
  }
}

}  // namespace fdsim::jgroups
