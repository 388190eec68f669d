// LoadSharingModel::metrics(): docs/models/metrics.md section 3 (names: docs/metrics.md section 3), from
// the end of the warm-up on. Every key carries its unit (_count, _s, _ratio, _bytes).
#include <algorithm>
#include <cmath>
#include <limits>

#include "models/loadsharing/loadsharing_model.h"
#include "models/loadsharing/stats.h"

namespace fdsim::loadsharing {

namespace {
// An undefined value (nothing to divide by) is NaN, written as JSON null, so that sweeps leave
// it out of means instead of averaging in a zero.
constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
// NaN (undefined) as JSON null in memory too, so a result reads the same before and after
// being written.
nlohmann::json defined_or_null(double v) {
  return std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
}
nlohmann::json ratio(uint64_t a, uint64_t b) {
  return b == 0 ? nlohmann::json() : nlohmann::json(double(a) / double(b));
}
}  // namespace

nlohmann::json LoadSharingModel::metrics() const {
  nlohmann::json m;
  const FateCounts c = ledger_.counted_total();
  const uint64_t queued = c.arrived - c.resolved();
  m["tasks_arrived_count"] = c.arrived;
  m["tasks_completed_on_time_count"] = c.on_time;
  m["tasks_missed_count"] = c.missed();
  m["tasks_missed_local_count"] = c.missed_local;
  m["tasks_missed_after_transfer_count"] = c.missed_after_transfer;
  m["tasks_dropped_count"] = c.dropped;
  m["tasks_late_unfinished_count"] = c.late_unfinished;
  m["tasks_lost_count"] = c.lost();
  m["tasks_lost_in_crash_count"] = c.lost_in_crash;
  m["tasks_lost_in_transfer_count"] = c.lost_transfer_to_dead + c.lost_transfer_unreachable;
  m["tasks_lost_in_transfer_to_dead_count"] = c.lost_transfer_to_dead;
  m["tasks_lost_in_transfer_unreachable_count"] = c.lost_transfer_unreachable;
  m["tasks_queued_at_horizon_count"] = queued;
  m["tasks_arrived_while_down_count"] = c.arrived_while_down;
  m["tasks_infeasible_count"] = c.infeasible;
  m["tasks_expired_count"] = c.expired;
  m["tasks_aborted_count"] = c.aborted;
  m["tasks_completed_late_count"] = c.completed_late;
  m["tasks_feasible_count"] = c.arrived_feasible;
  m["dynamic_failure_ratio"] = ratio(c.missed() + c.lost(), c.arrived);
  // Its decomposition: disjoint parts that add up to it (loadsharing README, docs/metrics.md).
  const uint64_t late = c.completed_late + c.expired + c.late_unfinished;
  m["dynamic_failure_infeasible_ratio"] = ratio(c.infeasible, c.arrived);
  m["dynamic_failure_missed_ratio"] = ratio(late, c.arrived);
  m["dynamic_failure_aborted_ratio"] = ratio(c.aborted, c.arrived);
  m["dynamic_failure_dropped_ratio"] = ratio(c.dropped, c.arrived);
  m["dynamic_failure_lost_in_crash_ratio"] = ratio(c.lost_in_crash, c.arrived);
  m["dynamic_failure_lost_to_dead_ratio"] = ratio(c.lost_transfer_to_dead, c.arrived);
  m["dynamic_failure_lost_unreachable_ratio"] = ratio(c.lost_transfer_unreachable, c.arrived);
  m["dynamic_failure_feasible_ratio"] = ratio(c.failed_feasible, c.arrived_feasible);
  m["missed_ratio"] = ratio(c.missed(), c.arrived);
  m["lost_ratio"] = ratio(c.lost(), c.arrived);

  std::vector<double> r = ledger_.response_times_s();
  std::sort(r.begin(), r.end());
  m["response_time_count"] = r.size();
  m["response_time_mean_s"] = defined_or_null(mean_of(r));
  m["response_time_p50_s"] = defined_or_null(quantile_sorted(r, 0.5));
  m["response_time_p90_s"] = defined_or_null(quantile_sorted(r, 0.9));
  m["response_time_p99_s"] = defined_or_null(quantile_sorted(r, 0.99));

  m["guarantee_failures_count"] = counters_.guarantee_failures;
  m["unplaced_no_receiver_count"] = counters_.unplaced_no_receiver;
  m["unplaced_too_late_count"] = counters_.unplaced_too_late;
  m["unguaranteed_runs_count"] = counters_.unguaranteed_runs;
  m["transfers_attempted_count"] = counters_.transfers_attempted;
  m["transfers_to_dead_count"] = counters_.transfers_to_dead;
  m["transfers_delivered_count"] = counters_.transfers_delivered;
  m["transfer_bytes"] = counters_.transfer_bytes;
  for (size_t i = 0; i < kRegionCount; ++i) {
    nlohmann::json& o = m["transfers_by_sender_region"][std::string(region_name(Region(i)))];
    o["attempted_count"] = counters_.transfers_by_region[i];
    o["to_dead_count"] = counters_.transfers_to_dead_by_region[i];
  }
  for (size_t k = 0; k < kBroadcastKindCount; ++k)
    m["broadcasts_" + std::string(broadcast_kind_name(BroadcastKind(k))) + "_count"] =
        counters_.broadcasts[k];
  m["broadcast_messages_count"] = counters_.broadcast_messages;
  m["broadcast_bytes"] = counters_.broadcast_bytes;

  const nlohmann::json diagnosis = recorder_.metrics();
  for (auto it = diagnosis.begin(); it != diagnosis.end(); ++it) m[it.key()] = it.value();
  const double window_s = (world_.horizon - world_.warmup_end).seconds();
  m["window_s"] = window_s;

  if (cfg_.per_node_metrics) {
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < cfg_.node_count; ++i) {
      const NodeRuntime& node = nodes_[i];
      const FateCounts& f = ledger_.counted(NodeId(i));
      rows.push_back(
          {{"node", i},
           {"arrived_count", f.arrived},
           {"completed_on_time_count", f.on_time},
           {"missed_count", f.missed()},
           {"lost_count", f.lost()},
           {"queued_at_horizon_count", f.arrived - f.resolved()},
           {"arrived_while_down_count", f.arrived_while_down},
           {"queue_length_mean_tasks",
            defined_or_null(window_s > 0 ? node.ql_area / window_s : kUndefined)},
           {"entered_count", node.entered},
           {"left_count", node.left},
           {"sojourn_mean_s", defined_or_null(node.left == 0 ? kUndefined
                                                             : node.sojourn_sum_s / double(node.left))}});
    }
    m["per_node"] = rows;
  }
  return m;
}

}  // namespace fdsim::loadsharing
