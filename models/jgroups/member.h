#pragma once
// One JGroups 2.12.2 member: its detectors (FD, FD_ALL, FD_SOCK, any of them in the arm's stack
// order), VERIFY_SUSPECT and the part of pbcast.GMS that turns a confirmed suspicion into a view
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
// - FD_SOCK sees a crash through its TCP connection. crash_kind "process": the member watching
//   a host that crashes learns it one latency draw later (the kernel's FIN; none if a partition
//   cuts the link then), a connect to it is refused after a round trip. crash_kind "host": no
//   FIN ever, a connect times out after sock_conn_timeout. A connect across a partition times
//   out the same way; a paused host's kernel accepts connects and keeps its connections up (no
//   suspicion, ever).
// - MERGE2 (an arm with merge2): a coordinator runs the merge check every
//   min_interval + U[1, max - min] ms (first after max(5000 ms, another draw)); it asks every
//   node (TCPPING's initial hosts) for its view and waits for max(num_initial_members, view
//   size) answers or TCPPING.timeout; two or more views lead the smallest coordinator (address
//   order) to merge them (member_merge.cpp gives the steps and their sources).
// - Randomness after start(): the network, MERGE2's intervals (stream "jgroups.merge2" of
//   the member, drawn when it becomes coordinator), and, if are_you_dead_send_time is
//   configured, one draw per verifySuspect() call that sends ARE_YOU_DEAD while its detector's
//   loop has another suspect to pass up (stream "jgroups.verify_send" of the member). The
//   address hashes and order are drawn by the model before start().

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "models/jgroups/context.h"
#include "models/jgroups/java_hashtable_order.h"

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
  bool verify_thread_alive() const { return verify_thread_; }
  bool merge_task_running() const { return merge_task_; }
  Duration merge_period() const { return merge_period_; }

 private:
  enum class Handler : uint8_t { idle, bundling, casting };
  // FD.Broadcaster / FD_SOCK.BroadcastTask: one each (a stack with both has two).
  struct Broadcaster {
    std::vector<NodeId> suspects;
    uint64_t gen = 0;
    bool running = false;
  };
  bool has(Detector d) const { return s_.arm.has(d); }

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
  // The SUSPECT rebroadcast of FD and FD_SOCK (FD.Broadcaster, FD_SOCK.BroadcastTask); `fd`
  // picks FD's (its SUSPECT goes to FD on receipt) or FD_SOCK's.
  Broadcaster& bcast(bool fd) { return fd ? fd_bcast_ : sock_bcast_; }
  void bcast_add(bool fd, NodeId n, Duration first_delay, Duration period);
  void bcast_tick(bool fd, uint64_t gen, Duration period);
  void bcast_retain_view(bool fd);
  void bcast_remove(bool fd, NodeId n);

  // FD_ALL (member_fd_all.cpp).
  void fd_all_view_change();
  void fd_all_tick();
  void fd_all_suspect(const std::vector<NodeId>& suspects);

  // FD_SOCK (member_fd_sock.cpp).
  void sock_view_change();
  void sock_connect();
  void sock_closed(NodeId dest, uint64_t gen);
  void sock_receive_suspect(NodeId src, const std::vector<NodeId>& mbrs);
  void sock_broadcast_suspect(NodeId n);
  void sock_on_suspect_msg(const std::vector<NodeId>& mbrs);

  // A detector passes SUSPECT up (to VERIFY_SUSPECT: member_verify_suspect.cpp); true if
  // VERIFY_SUSPECT took it into its table and sent ARE_YOU_DEAD (false: me, or already there).
  bool detector_up_suspect(NodeId target, Detector by);
  // A detector's loop over the suspects of one event: step(targets[i]) for i = from, from + 1,
  // ...; after a step that sent ARE_YOU_DEAD the loop goes on one draw of
  // are_you_dead_send_time later (member_verify_suspect.cpp).
  void suspect_loop(std::vector<NodeId> targets, size_t from,
                    std::function<bool(NodeId)> step);
  void verify_on_i_am_not_dead(NodeId from);
  // One turn of VERIFY_SUSPECT's timer thread loop (run(), VERIFY_SUSPECT.java:146-176).
  void verify_thread_loop(uint64_t gen);
  // MERGE2's FindSubgroupsTask and GMS's Merger (member_merge.cpp).
  struct ViewInfo {
    uint64_t id = 0;
    std::vector<NodeId> members;  // members.front() created the view
  };
  void merge_task_update(bool at_start);
  void merge_task_run(uint64_t gen);
  void merge_on_discovery_rsp(uint64_t disc, NodeId from, const ViewInfo& v);
  void merge_discovery_done(uint64_t disc);
  void merge_start(const std::map<NodeId, std::vector<NodeId>>& asked);
  void merge_on_req(NodeId leader, uint64_t id, const std::vector<NodeId>& mbrs);
  void merge_send_rsp(uint64_t id);
  void merge_on_rsp(NodeId from, uint64_t id, bool rejected, const ViewInfo& v);
  void merge_leader_done(uint64_t id);
  void merge_on_install(uint64_t id, const ViewInfo& v);
  void merge_cancel(uint64_t id);
  Duration merge_interval();
  // GMS (member_gms.cpp).
  void gms_suspect(NodeId target);
  void handler_add(NodeId target);
  void handler_process();
  void handler_done(uint64_t gen);
  bool would_be_coordinator() const;
  void on_view(NodeId from, uint64_t id, const std::vector<NodeId>& members);
  void on_view_ack(NodeId from, uint64_t id);
  void merge_acked(NodeId m);
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
  Broadcaster fd_bcast_, sock_bcast_;
  // FD_ALL
  std::map<NodeId, SimTime> fd_all_stamps_;
  std::vector<NodeId> fd_all_suspected_;
  // FD_SOCK
  std::vector<NodeId> sock_pingable_;
  std::vector<NodeId> sock_suspected_;
  NodeId sock_dest_ = kNoNode;
  bool sock_connected_ = false;  // the connection to sock_dest_ is up (not being made)
  uint64_t sock_gen_ = 0;
  // VERIFY_SUSPECT: suspect -> start of its verification; the same keys in the JVM's
  // Hashtable order; whether the timer thread is alive (it exits when it wakes to an empty
  // table).
  std::map<NodeId, SimTime> verify_;
  JavaHashtableOrder verify_order_;
  bool verify_thread_ = false;
  uint64_t verify_gen_ = 0;
  // Draws of are_you_dead_send_time (stream "jgroups.verify_send"); only when it is configured.
  std::optional<Rng> verify_send_rng_;
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
  bool handler_suspended_ = false;  // ViewHandler.suspend() during a merge: requests are dropped
  // MERGE2
  Rng merge_rng_;
  bool merge_task_ = false;
  uint64_t merge_task_gen_ = 0;
  Duration merge_period_;
  uint64_t disc_gen_ = 0;
  bool disc_active_ = false;
  size_t disc_expected_ = 0;
  size_t max_found_members_ = 0;  // Discovery.max_found_members
  int merge_inconsistent_views_ = 0;  // MERGE2.num_inconsistent_views
  std::map<NodeId, ViewInfo> disc_rsps_;
  // Merger: the merge this member takes part in (0: none); as leader, the coordinators asked
  // and their answers (nullopt: rejected); as a coordinator asked, the leader, the members whose
  // digests it waits for; while casting the merged view, the members whose acks it waits for.
  uint64_t merge_id_ = 0;
  bool merge_leading_ = false;
  std::map<NodeId, std::vector<NodeId>> merge_coords_;
  std::map<NodeId, std::optional<ViewInfo>> merge_rsps_;
  NodeId merge_leader_ = kNoNode;
  std::vector<NodeId> merge_req_mbrs_;
  std::vector<NodeId> digest_wait_;
  bool digest_active_ = false;
  uint64_t merge_cast_view_ = 0;
  std::vector<NodeId> merge_awaiting_acks_;
};

}  // namespace fdsim::jgroups
