#pragma once
// Hou-Shin load sharing with deadlines and failure diagnosis (docs/models/load-sharing.md), one arm.
//
// What it promises:
// - Every task arriving at a live node gets exactly one fate (task_ledger.h); the conservation
//   identity arrived = on time + missed + lost + still present is checked per origin node at
//   finish(), and a violation aborts the process (a bug, not a result). At finish(), a task
//   still held whose deadline has passed is counted as missed (late_unfinished): a task
//   starving behind others under overload is a miss, not "still queued".
// - Arms differ only in diagnosis: tasks (workload.h), network draws and faults come from keyed
//   streams that do not depend on the arm, so arms of one replication see the same arrivals and
//   crashes (common random numbers). Everything that differs (transfers, broadcasts, suspicions)
//   is a consequence of the diagnosis. (Latency and loss draws are per sending node in the
//   order of its sends, so they stay aligned only until the arms' message sequences diverge.)
// - Task semantics (issue 13): with known execution times a task whose execution time exceeds
//   its relative deadline fails at arrival (infeasible) and is never queued or transferred.
//   Under late_tasks = abort (default) a task that can no longer meet its deadline is never
//   started (removed as expired when it reaches the head of the queue) and a task running at
//   its deadline is aborted there; late_tasks = finish runs every task to completion.
// - Protocol (docs/models/load-sharing.md; extra broadcasts: docs/models/hou-shin-timeout.md): the guarantee test at arrival and at receipt of a transfer; a
//   task not guaranteed goes to the first buddy of the preferred list that is not suspected,
//   last reported U, is neither the task's origin nor the node it came from, and where the
//   task could still meet its deadline after the link's minimum delay; at most
//   max_hops transfers; a task neither guaranteed nor transferred follows the `unplaced` policy
//   (background by default: behind every guaranteed task). Region changes are broadcast over
//   unreliable datagrams to the node's observers (buddies.h). Transfers use the reliable
//   channel by default (TCP-like: loss only delays them; option: unreliable datagrams, a lost
//   datagram loses the task). A task is lost when its destination is dead at the send or dies
//   before the delivery, or when the network does not deliver it within transfer_give_up_s
//   (partitions, play-dead, source crash).
// - Diagnosis: suspicion of buddy i by observer n is cleared by any broadcast from i (except
//   under oracle and geode_ring, which follow the truth and the membership view). fixed and
//   hou_shin time the silence from the receipt of i's last broadcast; hou_shin's limit is
//   T_out[i] (hou_shin_timeout.h) with the delay allowance q99 - min of the latency of the link
//   i -> n (or delay_allowance_ms). hou_shin_extra adds the sender's extra broadcasts at
//   T_out - send_margin after its last send (T_out computed with the largest allowance over its
//   observers' links; at least 1 ms).
// - Crashes lose every task held by the node (queued, in service, or awaiting a paused node).
//   A recovered node is a new incarnation: empty queue, estimators back to their priors, and it
//   broadcasts its (U) state at once. At t = 0 every observer knows the initial configuration:
//   each buddy empty (region U, prior estimates), as if broadcast at t = 0 and received after
//   the link's minimum delay. A recovered observer knows nothing: a buddy is no transfer target,
//   and is not timed, until a broadcast from it arrives (the oracle still knows who is down).
// - Silence timers suspect when the silence strictly exceeds the limit: a broadcast arriving
//   exactly at the limit is in time.
//
// Where it can be wrong (modelling simplifications):
// - A pause (GC stall) freezes the node's handlers, so a completion due during a pause happens
//   at the resume: the pause is not added to the service time of a task that ends after it.
// - Under the CET load index, regions are re-evaluated only at arrivals and completions, not
//   continuously as work drains.
// - geode_ring: transfer decisions ask the membership view at decision time (exact), but the
//   suspicion metrics of that arm sample the view every geode_poll_ms.
// - The Hou-Shin chain assumes Poisson input at the estimated region rate and exponential
//   service; with other execution laws, changing load or broadcast_on = enter_u_or_o, T_out is
//   an approximation of the alpha-quantile it stands for.

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "models/loadsharing/broadcast.h"
#include "models/loadsharing/buddies.h"
#include "models/loadsharing/config.h"
#include "models/loadsharing/estimators.h"
#include "models/loadsharing/local_queue.h"
#include "models/loadsharing/suspicion_recorder.h"
#include "models/loadsharing/task_ledger.h"
#include "models/loadsharing/workload.h"
#include "models/timeout/timeout_table.h"
#include "sim/engine/watchdog.h"
#include "sim/net/world.h"

namespace fdsim::loadsharing {

class LoadSharingModel : public Model, private net::HostListener {
 public:
  // `membership_failed(observer, target)` is the Geode view (non-null only for geode_ring).
  LoadSharingModel(World& world, const LoadSharingConfig& config, size_t arm,
                   std::function<bool(NodeId observer, NodeId target)> membership_failed);
  ~LoadSharingModel() override;

  void start() override;
  void finish() override;
  nlohmann::json metrics() const override;

  // Observation for tests and checkers.
  const TaskLedger& ledger() const { return ledger_; }
  const SuspicionRecorder& suspicions() const { return recorder_; }
  const BuddyGraph& buddies() const { return graph_; }
  size_t queue_length(NodeId n) const { return nodes_[n].queue.length(); }
  Region region(NodeId n) const { return nodes_[n].region; }
  bool suspects(NodeId observer, NodeId target) const;

 private:
  // An extra-broadcast interval promised by a broadcast `b`: exact, or a lower bound where the
  // run span's fallback has not reached the T_out yet (refined when the wait reaches it).
  struct Promise {
    Duration interval;
    bool exact = true;
    Broadcast b;
  };
  struct NodeRuntime {
    LocalQueue queue;
    Region region = Region::U;
    std::optional<NodeEstimators> est;
    std::map<uint64_t, Task> inbox;  // arrivals awaiting the end of a pause, by task id
    Broadcast last_sent;
    EventId extra_timer;
    uint64_t extra_generation =
        0;  // a replayed (post-pause) extra timer of an older arming is void
    // Extra-broadcast intervals promised by the last k broadcasts (newest last): the next
    // broadcast is due within the smallest of them (loss tolerance, loss_tolerance.h).
    std::vector<Promise> promises;
    uint64_t periodic_generation = 0;  // fixed_periodic: the heartbeat of this incarnation
    // Little's law bookkeeping (from the warm-up on).
    size_t ql_last = 0;
    SimTime ql_since;
    double ql_area = 0;    // task-seconds
    uint64_t entered = 0;  // tasks that joined the queue
    uint64_t left = 0;     // tasks that left it (completed or crashed) having joined after warm-up
    double sojourn_sum_s = 0;  // their time in the queue
    explicit NodeRuntime(const LoadSharingConfig& c) : queue(c.scheduling, c.exec_knowledge) {}
  };
  struct View {
    Broadcast last;
    SimTime received;
    bool known = false;  // false: nothing heard since the observer (re)started
  };
  struct InFlight {
    Task task;
    NodeId dst;
    EventId guard;
  };
  struct Counters {
    uint64_t guarantee_failures = 0;
    uint64_t unplaced_no_receiver = 0;
    uint64_t unplaced_too_late = 0;
    uint64_t unguaranteed_runs = 0;
    uint64_t transfers_attempted = 0;
    uint64_t transfers_to_dead = 0;
    // By the sender's own region at the transfer (issue 29's mechanism statistics).
    uint64_t transfers_by_region[kRegionCount] = {};
    uint64_t transfers_to_dead_by_region[kRegionCount] = {};
    uint64_t transfers_delivered = 0;
    uint64_t transfer_bytes = 0;
    uint64_t broadcasts[kBroadcastKindCount] = {};
    uint64_t broadcast_messages = 0;
    uint64_t broadcast_bytes = 0;
  };

  // HostListener (ground truth).
  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t incarnation) override;

  // Tasks (loadsharing_tasks.cpp).
  void schedule_arrival(NodeId n, SimTime at);
  void on_arrival_event(NodeId n);
  void handle_arrival(NodeId n, Task t);
  void place(NodeId n, Task t);
  void enqueue(NodeId n, Task t, bool background);
  void start_service(NodeId n);
  void on_completion(NodeId n);
  std::optional<NodeId> choose_receiver(NodeId n, const Task& t, bool* too_late);
  bool cannot_finish(const Task& t, SimTime now) const;
  void transfer(NodeId from, NodeId to, Task t);
  void on_transfer_arrival(NodeId dst, uint64_t task_id);
  void on_transfer_given_up(uint64_t task_id);
  Duration mean_exec(NodeId n) const;
  void note_queue_length(NodeId n);
  void load_changed(NodeId n);

  // Broadcasts and diagnosis (loadsharing_diagnosis.cpp).
  Broadcast initial_broadcast(NodeId sender, SimTime at) const;
  void reset_views(NodeId observer, bool initial);
  void broadcast(NodeId n, BroadcastKind kind);
  void arm_extra_broadcast(NodeId n);
  // The interval for a sender that has waited `need` since b (hou_shin_timeout_needed):
  // *exact false means a lower bound. extra_interval_after asks again with doubled needs until
  // the bound is beyond `elapsed` (or exact).
  Duration extra_interval(NodeId n, const Broadcast& b, Duration need, bool* exact);
  Duration extra_interval_after(NodeId n, const Broadcast& b, Duration elapsed, bool* exact);
  // The extra-broadcast check at `at` (the interval was a bound), and the k > 1 schedule.
  void schedule_extra_check(NodeId n, SimTime at, uint64_t generation);
  void schedule_promised_extra(NodeId n, uint64_t generation);
  // Cheap lower bounds of extra_interval and silence_limit (*exact: it is the value itself):
  // timers are armed there and the exact value is computed only if they fire.
  Duration extra_interval_bound(NodeId n, const Broadcast& b, bool* exact);
  Duration silence_limit_bound(size_t pair, const Broadcast& b, bool* exact);
  void schedule_extra(NodeId n, SimTime at, uint64_t generation);
  // hou_shin_timeout_lower_bound(b, allowance 0, loss), memoized per sender: the observers of
  // one broadcast (and its sender) ask for the same value.
  Duration t_out_bound(const Broadcast& b, double loss, bool* exact);
  void arm_periodic_broadcast(NodeId n);
  void arm_silence_broadcast(NodeId n);
  void on_broadcast(NodeId observer, size_t k, const Broadcast& b);
  // fixed_heartbeat: node n's stateless heartbeat to its observers, and its receipt (liveness
  // only: the observer's view of n's state is left as it is).
  void send_heartbeat(NodeId n);
  void on_heartbeat(NodeId observer, size_t k, NodeId sender);
  void arm_silence_timer(NodeId observer, size_t k);
  void on_silence(NodeId observer, size_t k);
  bool suspected_now(NodeId observer, size_t k);
  void poll_membership();
  // The silence limit for an observer that has waited `need` (*exact false: a lower bound, as
  // extra_interval).
  Duration silence_limit(size_t pair, const Broadcast& b, Duration need, bool* exact);

  // Protocol trace records; callers test tracing() first so that no JSON is built otherwise.
  bool tracing() const { return sim_.trace() != nullptr; }
  void trace(NodeId n, std::string_view kind, nlohmann::json fields) const;
  bool measuring() const { return sim_.now() >= world_.warmup_end; }
  size_t pair(NodeId observer, size_t k) const {
    return size_t(observer) * graph_.buddy_count() + k;
  }

  World& world_;
  Simulator& sim_;
  const LoadSharingConfig& cfg_;
  const ArmConfig& arm_;
  std::function<bool(NodeId, NodeId)> membership_failed_;
  BuddyGraph graph_;
  TaskSource source_;
  TaskLedger ledger_;
  SuspicionRecorder recorder_;
  timeout::TimeoutTable timeouts_;
  // The broadcast records' T_out (traced runs only; loadsharing_diagnosis.cpp says why apart).
  std::unique_ptr<timeout::TimeoutTable> trace_timeouts_;
  std::vector<NodeRuntime> nodes_;
  std::vector<View> views_;                         // per pair (observer, k)
  std::vector<std::unique_ptr<Watchdog>> silence_;  // per pair, fixed and hou_shin arms
  std::vector<Duration> pair_allowance_;            // per pair: link target -> observer
  std::vector<Duration> pair_min_delay_;            // per pair: minimum latency of that link
  std::vector<Duration> sender_allowance_;          // per node: max over its observers' links
  std::vector<Duration> transfer_min_delay_;        // per pair: minimum latency observer -> k
  std::vector<double> pair_loss_;                   // per pair: loss allowance of link k -> obs
  std::vector<uint32_t> sender_k_;                  // per node: broadcasts an observer may miss
  std::vector<Duration> pair_limit_;                // per pair: the silence limit now armed
  std::vector<uint8_t> pair_exact_;                 // per pair: pair_limit_ is exact, not a bound
  struct BoundMemo {
    bool valid = false;
    Broadcast b;
    double loss = 0;
    Duration bound;
    bool exact = false;
  };
  std::vector<BoundMemo> bound_memo_;               // per sender: the last t_out_bound
  std::map<uint64_t, InFlight> in_flight_;          // transfers by task id
  Counters counters_;
  uint64_t next_task_id_ = 1;
  bool finished_ = false;

  EventKind kind_arrival_, kind_deferred_arrival_, kind_complete_, kind_silence_, kind_suspect_,
      kind_extra_, kind_transfer_guard_, kind_poll_, kind_periodic_, kind_extra_check_;
  net::MsgType msg_broadcast_[kBroadcastKindCount];
  net::MsgType msg_transfer_;
  net::MsgType msg_heartbeat_{};  // fixed_heartbeat only (registered only for that arm)
};

}  // namespace fdsim::loadsharing
