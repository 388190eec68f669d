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

// down(VIEW_CHANGE) (FD_SOCK.java:307-337): suspects and broadcaster keep view members, everyone
// is pingable again; a new ping destination closes the old connection (a regular close: no
// suspicion) and the pinger makes one to the new destination.
void Member::sock_view_change() {
  std::vector<NodeId> kept;
  for (NodeId n : sock_suspected_)
    if (in_view(n)) kept.push_back(n);
  sock_suspected_ = std::move(kept);
  bcast_retain_view(false);
  sock_pingable_ = view_;
  const NodeId dest = next_after_self(sock_pingable_);
  if (dest != sock_dest_) sock_connect();
}

// The pinger loop (run(), FD_SOCK.java:373-425): determinePingDest(), then setupPingSocket()
// (:578-613), a Socket.connect with sock_conn_timeout (:605). If the connect fails,
// broadcastSuspectMessage() and try the next member (:391-396):
// - the destination's process is dead but its host is up (crash_kind "process"): the kernel
//   refuses (RST) after one round trip;
// - the host is gone (crash_kind "host") or a partition cuts the link either way now: the SYN
//   or its answer is lost and connect() gives up after sock_conn_timeout;
// - otherwise (alive, or paused: its kernel still accepts) the connection is up until the
//   destination's process crashes (on_peer_crash).
void Member::sock_connect() {
  const uint64_t gen = ++sock_gen_;
  sock_connected_ = false;
  sock_dest_ = next_after_self(sock_pingable_);
  if (sock_dest_ == kNoNode) return;
  const NodeId dest = sock_dest_;
  const bool crashed = s_.world.hosts.is_crashed(dest);
  const bool cut = s_.world.net.cut(self_, dest) || s_.world.net.cut(dest, self_);
  if (cut || (crashed && s_.config.crash_is_host)) {
    s_.world.hosts.schedule_after(self_, s_.config.fd_sock_conn_timeout, s_.kinds.sock_closed,
                                  [this, dest, gen] { sock_closed(dest, gen); });
  } else if (crashed) {
    const Duration rtt = s_.world.net.draw_latency(self_, dest) + s_.world.net.draw_latency(dest, self_);
    s_.world.hosts.schedule_after(self_, rtt, s_.kinds.sock_closed,
                                  [this, dest, gen] { sock_closed(dest, gen); });
  } else {
    sock_connected_ = true;
  }
}

// The watched process died and its kernel closed the connection (crash_kind "process"): the
// pinger's read() returns EOF one latency later (:411-413). A partition cutting the link at the
// crash keeps the FIN from arriving (not retried in the model). A host crash sends nothing.
void Member::on_peer_crash(NodeId n) {
  if (!up_ || !has(Detector::fd_sock) || n != sock_dest_ || !sock_connected_) return;
  if (s_.config.crash_is_host || s_.world.net.cut(n, self_)) return;
  const uint64_t gen = sock_gen_;
  const Duration fin = s_.world.net.draw_latency(n, self_);
  s_.world.hosts.schedule_after(self_, fin, s_.kinds.sock_closed, [this, n, gen] { sock_closed(n, gen); });
}

// handleSocketClose() (abnormal termination, :468-480) or a failed connect: broadcast the
// suspicion, drop the destination from the pingable members, and watch the next one.
void Member::sock_closed(NodeId dest, uint64_t gen) {
  if (!up_ || gen != sock_gen_ || dest != sock_dest_) return;
  sock_broadcast_suspect(dest);
  erase(sock_pingable_, dest);
  sock_connect();
}

// broadcastSuspectMessage() (:677-701): one SUSPECT multicast at once, then the broadcast task
// (first run after suspect_msg_interval) until a view drops the suspect or UNSUSPECT removes it.
void Member::sock_broadcast_suspect(NodeId n) {
  s_.trace(self_, "jgroups_fd_sock_suspect", {{"target", n}});
  multicast(Msg::suspect, [src = self_, n](Member& m) { m.sock_receive_suspect(src, {n}); });
  bcast_add(false, n, s_.config.fd_sock_suspect_msg_interval, s_.config.fd_sock_suspect_msg_interval);
}

// An FD_SOCK SUSPECT message arrives; FD_SOCK consumes it (:201-207, it goes no higher). An FD
// below FD_SOCK (not a shipped order) would have counted it as traffic from its sender.
void Member::sock_receive_suspect(NodeId src, const std::vector<NodeId>& mbrs) {
  if (s_.arm.below(Detector::fd, Detector::fd_sock)) fd_heard_from(src);
  sock_on_suspect_msg(mbrs);
}

// suspect() (:439-465): add to the suspects; the first member of (view minus suspects) passes
// SUSPECT up (through any FD or FD_ALL above, which pass it on unchanged: FD.java:275).
void Member::sock_on_suspect_msg(const std::vector<NodeId>& mbrs) {
  for (NodeId n : mbrs)
    if (!contains(sock_suspected_, n)) sock_suspected_.push_back(n);
  for (NodeId n : view_) {
    if (contains(sock_suspected_, n)) continue;
    if (n != self_) return;
    suspect_loop(mbrs, 0, [this](NodeId s) { return detector_up_suspect(s, Detector::fd_sock); });
    return;
  }
}

}  // namespace fdsim::jgroups
