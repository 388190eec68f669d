#pragma once
// The configuration of the load-sharing model: the `workload` and `load_sharing` sections of a
// scenario (docs/models/load-sharing.md; the scenario keys are listed in parse_loadsharing_config below).
//
// Contract: parse_loadsharing_config() never throws and never aborts on bad input: every
// problem is recorded in the readers' Diagnostics with its JSON path, and every default it
// applies is written to the resolved config. A config that parsed without problems is valid:
// the model may rely on every invariant checked here (thresholds ordered, integer thresholds on
// QL for the Hou-Shin arms, unique arm names, positive rates, ...).
//
// `workload` keys: arrival_rate_per_s (0.5), load_phases [{nodes ("all"), from_s, rate_per_s}]
// (a later phase for a node replaces the rate from its from_s on; equal from_s: the later entry
// wins), execution {distribution: exponential (rate_per_s 1) | deterministic (value_s) |
// uniform (min_s, max_s) | lognormal (mean_s 1, sigma 0.5) | empirical (file: seconds, one
// sample per whitespace- or comma-separated token, '#' comments, path relative to the scenario
// file)}, execution_overrides [{nodes, <an execution law>}], deadline {kind: fixed (relative_s
// 10) | uniform (min_s 2, max_s 10, the default) | laxity (factor 3: relative deadline = factor x
// execution time)}.
//
// `load_sharing` keys: scheduling (mlfs | fcfs), execution_time_knowledge (exact | mean),
// unplaced (background | in_order | drop), late_tasks (abort | finish), load_index (ql | cet),
// th_u (1), th_f (4), buddy_size
// (10), broadcast_on (every_change | enter_u_or_o), transfers (true), max_hops (1),
// transfer_transport (reliable | unreliable), transfer_give_up_s (120), task_bytes (256),
// broadcast_bytes (64), heartbeat_bytes (16), delay_allowance_ms (default: q99 - min of the network delay),
// send_margin_ms (default: the delay allowance), loss_allowance (default: the configured loss
// probability of each link; see loss_tolerance.h), estimation {arrival_prior_shape (1),
// arrival_prior_exposure_s (1), execution_prior_shape (1), execution_prior_exposure_s (1),
// forgetting_per_s (1 = no forgetting)}, geode_poll_ms (100), per_node_metrics (false),
// arms [{name, diagnosis: none | fixed (timeout_ms) | fixed_periodic (period_ms, timeout_ms) |
// fixed_on_silence (period_ms, timeout_ms) | fixed_heartbeat (period_ms, timeout_ms) | oracle | oracle_extra (alpha 0.05) | oracle_periodic
// (period_ms) | periodic_no_diagnosis (period_ms) | geode_ring | hou_shin (alpha 0.05) |
// hou_shin_extra (alpha 0.05)}] (default: one arm "none").

#include <optional>
#include <string>
#include <vector>

#include "models/loadsharing/local_queue.h"
#include "models/loadsharing/regions.h"
#include "models/loadsharing/workload.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::loadsharing {

enum class DiagnosisKind : uint8_t {
  none,
  fixed,
  oracle,
  geode_ring,
  hou_shin,
  hou_shin_extra,
  fixed_periodic,
  oracle_extra,
  // The controls of the fixed-versus-adaptive map (docs/models/load-sharing.md): the fixed twin
  // of hou_shin_extra, and periodic broadcasts with perfect / with no diagnosis.
  fixed_on_silence,
  oracle_periodic,
  periodic_no_diagnosis,
  // fixed_periodic's cheap twin (issue 38): every period a heartbeat that carries no state
  // (liveness only, heartbeat_bytes on the wire); state travels only in the region-change and
  // recovery broadcasts every arm sends.
  fixed_heartbeat
};
std::string_view diagnosis_name(DiagnosisKind k);

struct ArmConfig {
  std::string name;
  DiagnosisKind diagnosis = DiagnosisKind::none;
  // fixed, fixed_periodic, fixed_on_silence, fixed_heartbeat: silence after the last message
  // before suspecting.
  Duration timeout;
  // fixed_periodic, oracle_periodic, periodic_no_diagnosis: every node broadcasts its state this
  // often; fixed_heartbeat: every node sends a stateless heartbeat this often; fixed_on_silence: a node broadcasts its state once this long has passed since its
  // last broadcast of any kind.
  Duration period;
  double alpha = 0.05;  // hou_shin*, oracle_extra: false-diagnosis probability bound of the test
  // geode_ring: this arm's Geode member-timeout M, replacing the membership section's
  // member_timeout_ms (and every default derived from it); zero: the section's own. Lets one
  // scenario give the Geode ring a cost-P(df) frontier on common random numbers (issue 29).
  Duration member_timeout{};
  // Observers time T_out[i] (docs/models/hou-shin-timeout.md).
  bool uses_hou_shin_timeout() const {
    return diagnosis == DiagnosisKind::hou_shin || diagnosis == DiagnosisKind::hou_shin_extra;
  }
  // Senders make the extra broadcasts (docs/models/hou-shin-timeout.md) (hou_shin_extra, and oracle_extra, which
  // gets the same load information as hou_shin_extra with oracle diagnosis).
  bool sends_extra() const {
    return diagnosis == DiagnosisKind::hou_shin_extra || diagnosis == DiagnosisKind::oracle_extra;
  }
  bool is_oracle() const {
    return diagnosis == DiagnosisKind::oracle || diagnosis == DiagnosisKind::oracle_extra ||
           diagnosis == DiagnosisKind::oracle_periodic;
  }
  // Every node sends every `period` from its start or recovery: its state (kind `periodic`), or
  // a heartbeat without state (fixed_heartbeat).
  bool sends_periodic() const {
    return diagnosis == DiagnosisKind::fixed_periodic || sends_heartbeat() ||
           diagnosis == DiagnosisKind::oracle_periodic ||
           diagnosis == DiagnosisKind::periodic_no_diagnosis;
  }
  // The periodic message carries no state (fixed_heartbeat).
  bool sends_heartbeat() const { return diagnosis == DiagnosisKind::fixed_heartbeat; }
  // A node broadcasts (kind `extra`) once `period` has passed since its last broadcast.
  bool sends_on_silence() const { return diagnosis == DiagnosisKind::fixed_on_silence; }
  // Observers suspect after a fixed silence of `timeout`.
  bool fixed_silence() const {
    return diagnosis == DiagnosisKind::fixed || diagnosis == DiagnosisKind::fixed_periodic ||
           diagnosis == DiagnosisKind::fixed_on_silence || sends_heartbeat();
  }
  // Observers suspect after a silence (the fixed ones, hou_shin, hou_shin_extra).
  bool times_silence() const { return fixed_silence() || uses_hou_shin_timeout(); }
  // Needs the T_out machinery (observers' limits or senders' extra deadlines).
  bool needs_t_out() const { return uses_hou_shin_timeout() || sends_extra(); }
};

enum class BroadcastPolicy : uint8_t { every_change, enter_u_or_o };
// What happens to a task that fails the guarantee test and is not transferred: it runs behind
// every guaranteed task (background, the default), or in the policy order like any other task
// (in_order: it may then make guaranteed tasks miss), or it is dropped and counted as missed.
enum class UnplacedPolicy : uint8_t { background, in_order, drop };
enum class TransferTransport : uint8_t { reliable, unreliable };
// A task whose deadline has passed: never started and aborted at the deadline if running
// (abort, the default), or run to completion and counted as a late completion (finish: the
// behaviour before issue 13). See loadsharing_model.h.
enum class LateTaskPolicy : uint8_t { abort, finish };

// Priors (Gamma shape, and rate written as a prior exposure in seconds) and forgetting of the
// on-line estimators (docs/models/load-sharing.md, "On-line estimators").
struct EstimationConfig {
  double arrival_prior_shape = 1.0;
  double arrival_prior_exposure_s = 1.0;
  double execution_prior_shape = 1.0;
  double execution_prior_exposure_s = 1.0;
  double forgetting_per_s = 1.0;
};

struct LoadSharingConfig {
  size_t node_count = 0;
  WorkloadConfig workload;

  SchedulingPolicy scheduling = SchedulingPolicy::mlfs;
  ExecKnowledge exec_knowledge = ExecKnowledge::exact;
  UnplacedPolicy unplaced = UnplacedPolicy::background;
  LateTaskPolicy late_tasks = LateTaskPolicy::abort;
  LoadIndex load_index = LoadIndex::ql;
  RegionThresholds thresholds;
  size_t buddy_size = 10;
  BroadcastPolicy broadcast_on = BroadcastPolicy::every_change;
  bool transfers = true;
  uint32_t max_hops = 1;
  TransferTransport transport = TransferTransport::reliable;
  Duration transfer_give_up = Duration::s(120);
  uint32_t task_bytes = 256;
  uint32_t broadcast_bytes = 64;
  uint32_t heartbeat_bytes = 16;  // fixed_heartbeat's heartbeat: sender, incarnation, sequence
  std::optional<Duration> delay_allowance;  // nullopt: q99 - min of the network delay
  std::optional<Duration> send_margin;      // nullopt: the delay allowance
  std::optional<double> loss_allowance;     // nullopt: the link's configured loss probability
  EstimationConfig estimation;
  Duration geode_poll = Duration::ms(100);
  bool per_node_metrics = false;

  std::vector<ArmConfig> arms;

  std::vector<std::string> arm_names() const;
  bool arm_needs_membership(size_t arm) const {
    return arm < arms.size() && arms[arm].diagnosis == DiagnosisKind::geode_ring;
  }
};

LoadSharingConfig parse_loadsharing_config(scenario::ObjectReader& workload,
                                           scenario::ObjectReader& load_sharing,
                                           const scenario::NodesConfig& nodes,
                                           const std::string& base_dir);

// The `workload` section alone (used by parse_loadsharing_config).
WorkloadConfig parse_workload_config(scenario::ObjectReader& workload,
                                     const scenario::NodesConfig& nodes,
                                     const std::string& base_dir);

}  // namespace fdsim::loadsharing
