#pragma once
// The `jgroups` section: JGroups 2.12.2's failure detection and view change (FD, FD_ALL,
// FD_SOCK, VERIFY_SUSPECT, pbcast.GMS) as a ring/all-to-all heartbeat model
// (docs/models/jgroups.md; models/jgroups/README.md).
//
// Contract: parse_jgroups_config() reads every key below, writes every resolved value into the
// resolved config and reports problems through the reader's Diagnostics (it never throws).
// Every node of the scenario is a member of view 1 = [0, 1, ..., N-1] from t = 0 (node 0 is
// the coordinator; the FD / FD_SOCK ring follows the view order). Each arm picks one detector
// (the stacks the harness runs have exactly one).
//
// Keys: one object per protocol, named as in JGroups' stack XML, each attribute with its unit
// appended (JGroups attribute [default, source]):
//   FD.timeout_ms                   [timeout 3000, FD.java:47] heartbeat period and base of the suspicion rule
//   FD.max_tries                    [max_tries 2, FD.java:50] missed heartbeats counted before a suspicion, >= 0
//   FD_ALL.interval_ms              [interval 3000, FD_ALL.java:26] heartbeat and check period
//   FD_ALL.timeout_ms               [timeout 10000, FD_ALL.java:29] silence that raises a suspicion
//   FD_SOCK.suspect_msg_interval_ms [suspect_msg_interval 5000, FD_SOCK.java:59] SUSPECT rebroadcast
//   FD_SOCK.sock_conn_timeout_ms    [sock_conn_timeout 1000, FD_SOCK.java:77] longest connect to
//                                   the member watched (a dead host or a cut link: the SYN is lost)
//   VERIFY_SUSPECT.timeout_ms       [timeout 2000, VERIFY_SUSPECT.java:29] wait for I_AM_NOT_DEAD
//   VERIFY_SUSPECT.num_msgs         [num_msgs 1, VERIFY_SUSPECT.java:32] ARE_YOU_DEAD copies, >= 1
//   GMS.view_bundling               [view_bundling true, GMS.java:73]
//   GMS.max_bundling_time_ms        [max_bundling_time 50, GMS.java:76] collection of suspicions
//   GMS.view_ack_collection_timeout_ms [view_ack_collection_timeout 2000, GMS.java:82]
//   MERGE2.min_interval_ms          [min_interval 5000, MERGE2.java:51] merge check interval, low end
//   MERGE2.max_interval_ms          [max_interval 20000, MERGE2.java:54] high end (> min_interval)
//   GMS.merge_timeout_ms            [merge_timeout 5000, GMS.java:46] merge leader's wait for
//                                   the other coordinators' MERGE_RSP
//   TCPPING.timeout_ms              [timeout 3000, Discovery.java:50] MERGE2's discovery: longest
//                                   wait for responses
//   TCPPING.num_initial_members     [num_initial_members 2, Discovery.java:53] responses that end
//                                   the wait early (with the view size, whichever is larger)
//   PING.*                          the same two (udp.xml's discovery); at most one of the two
//   arms[].merge2                   MERGE2 in the arm's stack (default false)
//   arms   [{"name": "fd", "detector": "FD"}]: "detector" one of "FD", "FD_ALL", "FD_SOCK", or
//          "detectors": a list of them, bottom to top (e.g. ["FD_SOCK", "FD"] as tcp.xml)
//   crash_kind    "process" (default): a crash is a killed process, the host's kernel closes its
//                 sockets (FD_SOCK's watcher reads EOF one latency later; a connect is refused
//                 after a round trip); "host": the machine is gone (no EOF, ever; a connect
//                 times out after FD_SOCK.sock_conn_timeout)
//   start_phases  "random" (default): each member's FD monitor / FD_ALL tasks had run since an
//                 earlier instant, first tick uniform in (0, period]; "view": every member
//                 (re)started them when it installed view 1 at t = 0, first tick at one period
//                 (a group whose members all joined just before t = 0, as in the harness)
//   are_you_dead_send_time  a latency-model object (sim/net/config.h; absent: none, the old
//                 behaviour): how long one VERIFY_SUSPECT.verifySuspect() call takes to send its
//                 ARE_YOU_DEAD down the stack (VERIFY_SUSPECT.java:202-207, an OOB message the
//                 calling thread writes to the socket itself, TP.java:1167-1184). A detector
//                 that passes several SUSPECTs up in one loop (FD_ALL.suspect(), FD_SOCK.suspect(),
//                 FD's SUSPECT message) hands the next one to VERIFY_SUSPECT only after it, so
//                 the suspects enter the table one after another (one draw per call that sent,
//                 stream "jgroups.verify_send" of the member)

#include <memory>
#include <string>
#include <vector>

#include "sim/engine/time.h"
#include "sim/net/latency.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::jgroups {

enum class Detector : uint8_t { fd, fd_all, fd_sock };
const char* detector_name(Detector d);

struct JGroupsArm {
  std::string name = "fd";
  std::vector<Detector> detectors{Detector::fd};  // bottom to top, each at most once
  bool merge2 = false;                            // MERGE2 in the stack

  bool has(Detector d) const;
  // True if `lower` sits below `upper` in the stack (both present).
  bool below(Detector lower, Detector upper) const;
  std::string stack_name() const;  // "FD_SOCK+FD"
};

struct JGroupsConfig {
  Duration fd_timeout = Duration::ms(3000);
  int64_t fd_max_tries = 2;
  Duration fd_all_interval = Duration::ms(3000);
  Duration fd_all_timeout = Duration::ms(10000);
  Duration fd_sock_suspect_msg_interval = Duration::ms(5000);
  Duration fd_sock_conn_timeout = Duration::ms(1000);
  Duration verify_timeout = Duration::ms(2000);
  int64_t verify_num_msgs = 1;
  bool view_bundling = true;
  Duration max_bundling_time = Duration::ms(50);
  Duration view_ack_collection_timeout = Duration::ms(2000);
  Duration merge_min_interval = Duration::ms(5000);
  Duration merge_max_interval = Duration::ms(20000);
  Duration merge_timeout = Duration::ms(5000);
  Duration discovery_timeout = Duration::ms(3000);
  int64_t discovery_num_initial_members = 2;

  bool phases_from_view = false;  // start_phases "view"
  bool crash_is_host = false;     // crash_kind "host"
  // are_you_dead_send_time; null: none (every suspect of one loop enters at the same instant).
  std::shared_ptr<const net::LatencyModel> are_you_dead_send_time;

  size_t node_count = 0;
  std::vector<JGroupsArm> arms{JGroupsArm{}};

  std::vector<std::string> arm_names() const;
  // JGroups 2.12.2's defaults for `node_count` members and one arm "fd" (FD).
  static JGroupsConfig defaults(size_t node_count);
};

// FD's fixed allowance: a heartbeat counts as missing only when none was heard for more than
// timeout + 500 ms ("quick & dirty fix ... to allow for latency", FD.java:455-456).
inline constexpr Duration kFdLatencyAllowance = Duration::ns(500000000);
// GMS's ViewHandler thread exits when no request came for this long (INTERVAL, GMS.java:1245);
// the next request starts a new thread.
inline constexpr Duration kViewHandlerIdleExit = Duration::ns(5000000000);

// base_dir: the scenario file's directory (an empirical are_you_dead_send_time's relative file).
JGroupsConfig parse_jgroups_config(scenario::ObjectReader& r, const scenario::NodesConfig& nodes,
                                   const std::string& base_dir = "");

}  // namespace fdsim::jgroups
