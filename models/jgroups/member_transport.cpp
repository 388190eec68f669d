// Sending (JGroups' TCP transport as the model sees it) and member start / crash.
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

Member::Member(Shared& shared, NodeId self)
    : s_(shared), self_(self), merge_rng_(shared.world.rng.stream(self, "jgroups.merge2")) {
  if (shared.config.are_you_dead_send_time)
    verify_send_rng_.emplace(shared.world.rng.stream(self, "jgroups.verify_send"));
}

void Member::send(NodeId to, Msg m, std::function<void(Member&)> on_receive) {
  s_.signals.message_sent(s_.now(), self_, m);
  Member& dst = s_.at(to);
  if (to == self_) {
    s_.world.hosts.schedule_after(self_, Duration::zero(), s_.kinds.loopback,
                                  [&dst, fn = std::move(on_receive)] {
                                    if (dst.up()) fn(dst);
                                  });
    return;
  }
  s_.world.net.send_unreliable(self_, to, s_.type(m), msg_bytes(m, view_.size()),
                               [&dst, fn = std::move(on_receive)] {
                                 if (dst.up()) fn(dst);
                               });
}

void Member::send_reliable(NodeId to, Msg m, std::function<void(Member&)> on_receive) {
  if (to == self_) {
    send(to, m, std::move(on_receive));
    return;
  }
  s_.signals.message_sent(s_.now(), self_, m);
  Member& dst = s_.at(to);
  s_.world.net.send_reliable(self_, to, s_.type(m), msg_bytes(m, view_.size()),
                             [&dst, fn = std::move(on_receive)] {
                               if (dst.up()) fn(dst);
                             });
}

void Member::multicast(Msg m, const std::function<void(Member&)>& on_receive, bool reliable) {
  const std::vector<NodeId> to = view_;
  for (NodeId n : to) {
    if (reliable) send_reliable(n, m, on_receive);
    else send(n, m, on_receive);
  }
}

bool Member::in_view(NodeId n) const {
  return std::find(view_.begin(), view_.end(), n) != view_.end();
}

NodeId Member::next_after_self(const std::vector<NodeId>& mbrs) const {
  // FD.getPingDest / FD_SOCK.determinePingDest: the member after me, wrapping; none if fewer
  // than two or I am not in the list.
  if (mbrs.size() < 2) return kNoNode;
  for (size_t i = 0; i < mbrs.size(); ++i)
    if (mbrs[i] == self_) return mbrs[(i + 1) % mbrs.size()];
  return kNoNode;
}

void Member::start(Rng& phase) {
  up_ = true;
  const size_t n = s_.config.node_count;
  view_.clear();
  for (NodeId i = 0; i < n; ++i) view_.push_back(i);
  view_id_ = 1;
  coord_ = view_.front() == self_;
  // The coordinator's ViewHandler processed the join that made view 1 at t = 0 and waits for
  // the next request since; the other members never ran one.
  if (coord_) handler_wait_since_ = s_.now();
  for (Detector d : s_.arm.detectors) {
    switch (d) {
      case Detector::fd: {
        fd_phase_ = Duration::ns(phase.uniform_int(1, s_.config.fd_timeout.count_ns()));
        if (s_.config.phases_from_view) fd_phase_ = s_.config.fd_timeout;
        fd_view_change();
        break;
      }
      case Detector::fd_all: {
        Duration first = Duration::ns(phase.uniform_int(1, s_.config.fd_all_interval.count_ns()));
        if (s_.config.phases_from_view) first = s_.config.fd_all_interval;
        fd_all_view_change();
        s_.world.hosts.schedule_after(self_, first, s_.kinds.fd_all_tick, [this] { fd_all_tick(); });
        break;
      }
      case Detector::fd_sock: sock_view_change(); break;
    }
  }
  merge_task_update(true);
}

void Member::on_crash() {
  up_ = false;
  ++fd_gen_;
  ++fd_bcast_.gen;
  ++sock_bcast_.gen;
  ++sock_gen_;
  ++handler_gen_;
  ++verify_gen_;
  verify_thread_ = false;
  ++merge_task_gen_;
  merge_task_ = false;
  disc_active_ = false;
  digest_active_ = false;
  merge_id_ = 0;
  verify_.clear();
  verify_order_.clear();
  pending_.clear();
}

}  // namespace fdsim::jgroups
