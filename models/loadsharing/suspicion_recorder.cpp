#include "models/loadsharing/suspicion_recorder.h"

#include <algorithm>
#include <cmath>

#include "models/loadsharing/stats.h"
#include "models/metrics/kaplan_meier.h"

namespace fdsim::loadsharing {

SuspicionRecorder::SuspicionRecorder(const BuddyGraph& graph, SimTime warmup_end,
                                     ViewRegion view_region)
    : graph_(graph),
      view_region_(std::move(view_region)),
      b_(graph.buddy_count()),
      warmup_end_(warmup_end),
      pairs_(graph.node_count() * graph.buddy_count()),
      up_(graph.node_count(), true) {}

void SuspicionRecorder::accrue(size_t p, NodeId observer, NodeId target, SimTime now) {
  Pair& pair = pairs_[p];
  const SimTime from = std::max(pair.accrued_to, warmup_end_);
  if (now > from && up_[observer] && up_[target]) {
    const double dt = (now - from).seconds();
    pair_up_s_ += dt;
    if (pair.suspected) {
      live_suspected_s_ += dt;
      by_region_[pair.suspected_in].live_suspected_s += dt;
    }
  }
  pair.accrued_to = now;
}

void SuspicionRecorder::set(SimTime now, NodeId observer, size_t k, bool suspected) {
  const size_t p = index(observer, k);
  Pair& pair = pairs_[p];
  if (pair.suspected == suspected) return;
  const NodeId target = graph_.preferred(observer)[k];
  accrue(p, observer, target, now);
  pair.suspected = suspected;
  if (!suspected) return;
  pair.suspected_in = uint8_t(region_of(observer, k));
  RegionStats& r = by_region_[pair.suspected_in];
  if (now >= warmup_end_) {
    ++suspicions_;
    ++r.suspicions;
    if (up_[target]) {
      ++false_suspicions_;
      ++r.false_suspicions;
    }
  }
  if (pair.pending) {
    const double d = (now - pair.crash_at).seconds();
    detection_s_.push_back(d);
    by_region_[pair.crashed_in].detection_s.push_back(d);
    pair.pending = false;
  }
}

void SuspicionRecorder::node_crashed(SimTime now, NodeId n) {
  // As an observer: its pairs stop accruing, its suspicions and awaited detections vanish.
  for (size_t k = 0; k < b_; ++k) {
    const size_t p = index(n, k);
    accrue(p, n, graph_.preferred(n)[k], now);
    if (pairs_[p].pending) {
      ++abandoned_;
      censored_s_.push_back((now - pairs_[p].crash_at).seconds());
    }
    pairs_[p].pending = false;
    pairs_[p].suspected = false;
  }
  // As a target: close live intervals, then await detections.
  const std::vector<NodeId>& obs = graph_.observers(n);
  for (size_t k = 0; k < obs.size(); ++k) accrue(index(obs[k], k), obs[k], n, now);
  up_[n] = false;
  if (now < warmup_end_) return;
  ++crashes_;
  for (size_t k = 0; k < obs.size(); ++k) {
    if (!up_[obs[k]]) continue;
    Pair& pair = pairs_[index(obs[k], k)];
    if (pair.suspected) {
      ++already_suspected_;
    } else {
      pair.pending = true;
      pair.crash_at = now;
      pair.crashed_in = uint8_t(region_of(obs[k], k));
      ++by_region_[pair.crashed_in].crashes_observed;
    }
  }
}

void SuspicionRecorder::node_recovered(SimTime now, NodeId n) {
  const std::vector<NodeId>& obs = graph_.observers(n);
  for (size_t k = 0; k < obs.size(); ++k) {
    Pair& pair = pairs_[index(obs[k], k)];
    accrue(index(obs[k], k), obs[k], n, now);
    if (pair.pending) {
      ++never_detected_;
      ++by_region_[pair.crashed_in].never_detected;
      ++undetected_before_repair_;
      censored_s_.push_back((now - pair.crash_at).seconds());
    }
    pair.pending = false;
  }
  for (size_t k = 0; k < b_; ++k) pairs_[index(n, k)].accrued_to = now;
  up_[n] = true;
}

void SuspicionRecorder::finish(SimTime horizon) {
  for (size_t j = 0; j < graph_.node_count(); ++j) {
    for (size_t k = 0; k < b_; ++k) {
      const size_t p = index(NodeId(j), k);
      accrue(p, NodeId(j), graph_.preferred(NodeId(j))[k], horizon);
      if (pairs_[p].pending) {
        ++never_detected_;
        ++by_region_[pairs_[p].crashed_in].never_detected;
        censored_s_.push_back((horizon - pairs_[p].crash_at).seconds());
      }
      pairs_[p].pending = false;
    }
  }
}

nlohmann::json SuspicionRecorder::metrics() const {
  std::vector<double> d = detection_s_;
  std::sort(d.begin(), d.end());
  nlohmann::json m;
  m["observed_pairs_count"] = pairs_.size();
  m["suspicions_count"] = suspicions_;
  m["false_suspicions_count"] = false_suspicions_;
  m["live_suspected_time_s"] = live_suspected_s_;
  m["pair_up_time_s"] = pair_up_s_;
  // Undefined (no pair was up in the window): null, left out of sweep means.
  m["live_suspected_ratio"] =
      pair_up_s_ > 0 ? nlohmann::json(live_suspected_s_ / pair_up_s_) : nlohmann::json();
  // Undefined (no sample; S above 0.5 throughout for the median): null.
  auto defined = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  m["crashes_count"] = crashes_;
  m["detections_count"] = d.size();
  m["detections_never_count"] = never_detected_;
  m["detections_abandoned_count"] = abandoned_;
  m["already_suspected_at_crash_count"] = already_suspected_;
  m["undetected_before_repair_count"] = undetected_before_repair_;
  const metrics::KaplanMeier km(detection_s_, censored_s_);
  for (int x : {1, 2, 5, 10, 20, 30})
    m["detected_within_" + std::to_string(x) + "_s_ratio"] = defined(km.cdf(double(x)));
  m["detection_time_km_median_s"] = defined(km.median());
  m["detection_time_mean_s"] = defined(mean_of(d));
  m["detection_time_p50_s"] = defined(quantile_sorted(d, 0.5));
  m["detection_time_p90_s"] = defined(quantile_sorted(d, 0.9));
  m["detection_time_p99_s"] = defined(quantile_sorted(d, 0.99));
  m["detection_time_max_s"] = d.empty() ? nlohmann::json() : nlohmann::json(d.back());
  nlohmann::json& by = m["by_region"];
  for (size_t i = 0; i <= kRegionCount; ++i) {
    const RegionStats& r = by_region_[i];
    nlohmann::json& o =
        by[i == kUnknown ? std::string("unknown") : std::string(region_name(Region(i)))];
    o["suspicions_count"] = r.suspicions;
    o["false_suspicions_count"] = r.false_suspicions;
    o["live_suspected_time_s"] = r.live_suspected_s;
    o["crashes_observed_count"] = r.crashes_observed;
    o["detections_count"] = r.detection_s.size();
    o["detections_never_count"] = r.never_detected;
    o["detection_time_mean_s"] = defined(mean_of(r.detection_s));
  }
  return m;
}

}  // namespace fdsim::loadsharing
