#pragma once
// One JGroups 2.12.2 member: its detector (FD, FD_ALL or FD_SOCK, per the arm), VERIFY_SUSPECT
// and the part of pbcast.GMS that turns a confirmed suspicion into a view
// (docs/models/jgroups.md gives the source lines of every rule; departures are listed there).
//
// Contract:
// - start(phase) at t = 0: view 1 = all nodes in order (node 0 the coordinator), every member
//   alive. FD's monitor and FD_ALL's two tasks run every period from a random phase in
//   (0, period] (stream "jgroups.phase", one draw per member), as members that installed the
//   view at different instants; FD_SOCK's ring of connections is up.
// - Everything runs on the member's host (timers through Hosts, messages through Network), so
//   a crash silences it for good and a pause defers its timers and deliveries to the resume
//   (a SIGSTOP: the kernel keeps its sockets and buffers their data). A recovered host is not a
//   member again (no join).
// - FD_SOCK sees a crash through its TCP connection: the member watching a host that crashes
//   learns it one latency draw later (the kernel's FIN); a connect to a crashed host is refused
//   after a round trip; a paused host's connections stay up (no suspicion, ever).
// - Nothing draws randomness after start(), except the network.

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "models/jgroups/context.h"

namespace fdsim::jgroups {

class Member {
 public:
  Member(Shared& shared, NodeId self);

  void start(Rng& phase);
  void on_crash();
  // Another host crashed (FD_SOCK's connection to it breaks).
  void on_peer_crash(NodeId n);

  bool up() const { return up_; }
  NodeId id() const { return self_; }
  uint64_t view_id() const { return view_id_; }
  const std::vector<NodeId>& view() const { return view_; }
  NodeId fd_ping_dest() const { return fd_dest_; }
  int64_t fd_num_tries() const { return fd_num_tries_; }
  NodeId sock_ping_dest() const { return sock_dest_; }
  bool verifying(NodeId n) const { return verify_.count(n) != 0; }

 private:
  enum class Handler : uint8_t { idle, bundling, casting };

  // Transport (member_transport.cpp): unreliable and reliable sends; a message to oneself is
  // delivered by loopback, at once, through the member's host.
  void send(NodeId to, Msg m, std::function<void(Member&)> on_receive);
  void send_reliable(NodeId to, Msg m, std::function<void(Member&)> on_receive);
  // To every member of the current view, oneself included (TCP's multicast: one copy each).
  void multicast(Msg m, const std::function<void(Member&)>& on_receive, bool reliable = false);

  // FD (member_fd.cpp).
  void fd_view_change();
  void fd_restart_monitor();
  void fd_tick(uint64_t gen);
  void fd_heard_from(NodeId src);
  void fd_on_suspect_msg(NodeId src, const std::vector<NodeId>& mbrs);
  void fd_unsuspect(NodeId n);
  NodeId next_after_self(const std::vector<NodeId>& mbrs) const;
  // The SUSPECT rebroadcast of FD and FD_SOCK (FD.Broadcaster, FD_SOCK.BroadcastTask).
  void bcast_add(NodeId n, Duration first_delay, Duration period);
  void bcast_tick(uint64_t gen, Duration period);
  void bcast_retain_view();
  void bcast_remove(NodeId n);

  // FD_ALL (member_fd_all.cpp).
  void fd_all_view_change();
  void fd_all_tick();
  void fd_all_suspect(const std::vector<NodeId>& suspects);

  // FD_SOCK (member_fd_sock.cpp).
  void sock_view_change();
  void sock_connect();
  void sock_closed(NodeId dest, uint64_t gen);
  void sock_broadcast_suspect(NodeId n);
  void sock_on_suspect_msg(const std::vector<NodeId>& mbrs);

  // The detector passes SUSPECT up (to VERIFY_SUSPECT; member_gms.cpp from here on).
  void detector_up_suspect(NodeId target);
  void verify_on_i_am_not_dead(NodeId from);
  void verify_timeout(NodeId target, SimTime started);
  // GMS.
  void gms_suspect(NodeId target);
  void handler_add(NodeId target);
  void handler_process();
  void handler_done(uint64_t gen);
  bool would_be_coordinator() const;
  void on_view(NodeId from, uint64_t id, const std::vector<NodeId>& members);
  void on_view_ack(NodeId from, uint64_t id);
  void install(uint64_t id, const std::vector<NodeId>& members);
  bool in_view(NodeId n) const;

  Shared& s_;
  const NodeId self_;
  bool up_ = false;
  uint64_t view_id_ = 0;
  std::vector<NodeId> view_;

  // FD
  std::vector<NodeId> fd_pingable_;
  NodeId fd_dest_ = kNoNode;
  SimTime fd_last_ack_;
  int64_t fd_num_tries_ = 0;
  uint64_t fd_gen_ = 0;
  Duration fd_phase_;  // delay of the first tick at t = 0
  bool fd_started_ = false;
  // Broadcaster
  std::vector<NodeId> bcast_;
  uint64_t bcast_gen_ = 0;
  bool bcast_running_ = false;
  // FD_ALL
  std::map<NodeId, SimTime> fd_all_stamps_;
  std::vector<NodeId> fd_all_suspected_;
  // FD_SOCK
  std::vector<NodeId> sock_pingable_;
  std::vector<NodeId> sock_suspected_;
  NodeId sock_dest_ = kNoNode;
  uint64_t sock_gen_ = 0;
  // VERIFY_SUSPECT: suspect -> start of its verification
  std::map<NodeId, SimTime> verify_;
  // GMS
  bool coord_ = false;
  std::vector<NodeId> gms_suspected_;  // ParticipantGmsImpl.suspected_mbrs
  Handler handler_ = Handler::idle;
  std::vector<NodeId> pending_;        // the ViewHandler queue
  uint64_t handler_gen_ = 0;
  // When the ViewHandler thread began waiting for a request (its loop sets end_time = this +
  // max_bundling_time before it blocks); none: no thread (never started, or exited).
  std::optional<SimTime> handler_wait_since_;
  uint64_t casting_view_ = 0;
  std::vector<NodeId> awaiting_acks_;
};

}  // namespace fdsim::jgroups
