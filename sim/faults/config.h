#pragma once
// The `faults` section of a scenario: an array of fault entries, each scheduled at a fixed time
// or a per-node random process. Times are "<name>_s" or "<name>_ms" (exactly one of the two
// where required, at most one where optional); every time and duration is >= 0.
//
// Scheduled faults ("nodes", "a", "from", "to" are node sets, see sim/scenario/nodes.h):
//   {"kind": "crash",       "at_s", "nodes"}                 crash-stop (left alone if crashed)
//   {"kind": "recover",     "at_s", "nodes"}                 new incarnation (no-op if not crashed)
//   {"kind": "pause",       "at_s", "duration_ms", "nodes"}  GC stall; duration > 0
//   {"kind": "sick",        "at_s", ["duration_s"], "nodes"} absent duration = until the end
//   {"kind": "play_dead",   "at_s", ["duration_s"], "nodes"} absent duration = until the end
//   {"kind": "partition",   "at_s", ["heal_at_s"], "a", ["b"], ["one_way": false]}
//        cuts a <-> b (one_way: only a -> b); b absent = every node not in a; a and b must be
//        disjoint; heal_at after at; absent heal = until the end
//   {"kind": "loss_burst",  "at_s", "duration_s", ["from"], ["to"], "loss"}
//        extra loss probability in (0, 1] on links from -> to (absent set = any node)
//   {"kind": "delay_spike", "at_s", "duration_s", ["from"], ["to"], "extra_ms"}
//        extra one-way delay > 0 on links from -> to
// Processes (each node its own keyed stream, so adding a node or a fault never changes
// another node's draws; draws do not depend on the node's state either):
//   {"kind": "crash_process", "nodes", "mean_up_s", ["mean_down_s"], ["start_s"], ["stop_s"]}
//        exponential up times (from start, default 0) then exponential down times; absent
//        mean_down_s = crash-stop (no recovery); no crash at or after stop (default: never stop)
//        Instead of mean_up_s / mean_down_s: "up" / "down", a lifetime object
//        (sim/faults/lifetime.h: exponential, weibull, lognormal, empirical file).
//   {"kind": "group_crash_process", "nodes", "mean_up_s" | "up", ["mean_down_s" | "down"],
//        ["start_s"], ["stop_s"]}
//        correlated failures: the whole node set (e.g. a rack, a named group) goes down at one
//        instant and comes back at one instant, by one process of its own, on top of any
//        per-node process
//   {"kind": "crash_storm", "nodes", "mean_interval_s", "size", ["window_s" | "window_ms"],
//        ["mean_down_s" | "down"], ["start_s"], ["stop_s"]}
//        storm starts form a Poisson process; at each one `size` distinct nodes of the set,
//        chosen uniformly, crash at independent uniform offsets in [0, window) (window 0 =
//        all at the start instant); each victim recovers after its own down draw (absent =
//        never)
//   A node held down by several processes at once comes back only when the last of them
//   recovers it (a count of holds per node; scheduled crash / recover act directly).
//   {"kind": "churn", "nodes", ["spare_nodes"], ["mean_session_s" | "session"],
//        ["leave": "graceful"], ["mean_join_interval_s" | "join"], ["start_s"], ["stop_s"]}
//        permanent leaves and fresh joins (sim/faults/churn.h; only models with joins accept
//        it, the loader rejects it elsewhere): every identity on a slot of nodes or
//        spare_nodes lives one session draw from its start (t = start for `nodes`, its join
//        instant for a joiner) and then leaves for good, gracefully (the model's leave
//        protocol, then the host goes down) or by a crash ("leave": "crash"); spare_nodes
//        are absent from t = 0; joins form a renewal process of the join law and take the
//        lowest-numbered free slot (a spare, or a slot whose identity left) with a fresh
//        identity (a new host incarnation); a join with no free slot is skipped. At least
//        one of the session and join laws; at most one churn entry; its slots may not be
//        named by another crash / recover fault or process.
//   {"kind": "pause_process", "nodes", "mean_interval_s", "duration_ms" | "duration_s" |
//        "duration": <latency-model object, sim/net/config.h>, ["start_s"], ["stop_s"]}
//        pause starts form a Poisson process of the given mean interval; each pause lasts a
//        draw of the duration distribution; overlapping pauses merge (the latest end wins)
// Stream purposes: "faults.crash_process" / "faults.pause_process" for the first process of its
// kind, "faults.crash_process#k" for the k-th (k >= 1, counting entries of that kind in order);
// likewise "faults.group_crash_process" and "faults.crash_storm", keyed on no node (one
// stream per entry).
// Contract: never throws; every problem is reported at its JSON path ("$.faults[2].at_s:
// expected a number >= 0, got -1"); unknown kinds list the allowed ones.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/time.h"
#include "sim/faults/lifetime.h"
#include "sim/net/latency.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::faults {

enum class FaultKind : uint8_t {
  crash,
  recover,
  pause,
  sick,
  play_dead,
  partition,
  loss_burst,
  delay_spike
};
const char* to_string(FaultKind k);

struct ScheduledFault {
  FaultKind kind = FaultKind::crash;
  SimTime at;
  // pause, loss_burst, delay_spike: at + duration; sick, play_dead: at + duration if given;
  // partition: the heal time if given. nullopt = lasts until the end of the run.
  std::optional<SimTime> end;
  std::vector<NodeId> nodes;  // crash, recover, pause, sick, play_dead
  std::vector<NodeId> a, b;   // partition: the groups; loss_burst, delay_spike: from, to
  bool one_way = false;       // partition
  double loss = 0;            // loss_burst
  Duration extra;             // delay_spike
};

struct CrashProcess {
  std::vector<NodeId> nodes;
  double mean_up_s = 0;               // up->mean_s()
  std::optional<double> mean_down_s;  // down->mean_s(); nullopt = never recovers
  std::shared_ptr<const Lifetime> up;
  std::shared_ptr<const Lifetime> down;  // null = never recovers
  SimTime start;
  std::optional<SimTime> stop;
  std::string stream;  // RNG purpose
};

struct PauseProcess {
  std::vector<NodeId> nodes;
  double mean_interval_s = 0;
  std::shared_ptr<const net::LatencyModel> duration;  // pause length distribution (ms)
  SimTime start;
  std::optional<SimTime> stop;
  std::string stream;  // RNG purpose
};

struct CrashStorm {
  std::vector<NodeId> nodes;
  double mean_interval_s = 0;  // between storm starts (Poisson)
  size_t size = 1;             // victims per storm, <= nodes.size()
  Duration window;             // victims crash at uniform offsets in [0, window)
  std::shared_ptr<const Lifetime> down;  // null = never recovers
  SimTime start;
  std::optional<SimTime> stop;
  std::string stream;  // RNG purpose
};

// Churn (sim/faults/churn.h): slots `nodes` start present, `spare` start absent.
struct ChurnProcess {
  std::vector<NodeId> nodes;
  std::vector<NodeId> spare;                // disjoint from nodes
  std::shared_ptr<const Lifetime> session;  // null = no leaves
  std::shared_ptr<const Lifetime> join;     // inter-join law; null = no joins
  bool graceful = true;                     // "leave": "graceful" | "crash"
  SimTime start;
  std::optional<SimTime> stop;
  std::string stream;  // RNG purpose: per slot (sessions) and keyed on no node (joins)
};

struct FaultsConfig {
  std::vector<ScheduledFault> scheduled;  // in file order
  std::vector<CrashProcess> crash_processes;
  std::vector<PauseProcess> pause_processes;
  std::vector<CrashProcess> group_crash_processes;  // `nodes` crash and recover together
  std::vector<CrashStorm> crash_storms;
  std::optional<ChurnProcess> churn;
  // The $.faults[k] index of the churn entry (for the loader's "model has no joins" error).
  size_t churn_entry = 0;
  bool empty() const {
    return scheduled.empty() && crash_processes.empty() && pause_processes.empty() &&
           group_crash_processes.empty() && crash_storms.empty() && !churn;
  }
};

// Reads root["faults"] (an array; absent = no faults). `base_dir` resolves empirical pause
// duration files (as for the network section).
FaultsConfig parse_faults_config(scenario::ObjectReader& root, const scenario::NodesConfig& nodes,
                                 const std::string& base_dir = "");

}  // namespace fdsim::faults
