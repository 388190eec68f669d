#pragma once
// Diagnosis quality per observer pair (docs/models/metrics.md section 3): observer j watches its k-th
// preference (the pairs of the BuddyGraph). Models report suspicion transitions and ground-truth
// crashes and recoveries; the recorder derives the metrics (models emit, recording is separate).
//
// Contract (everything counted from the end of the warm-up on):
// - false suspicion: a trust -> suspect transition while the target is not crashed;
// - live suspected time: time during which the observer is up, the target is not crashed, and
//   the observer suspects the target; `pair_up_time` is the same without the last condition, so
//   live_suspected / pair_up_time is 1 - P_A of docs/models/metrics.md pooled over pairs;
// - detection time: for a crash of the target (at or after the warm-up) and every observer up
//   at that instant that did NOT already suspect the target, the delay from the crash to the
//   observer's first suspicion. An observer that already suspected the target at the crash is
//   counted in already_suspected_at_crash and gives no sample (a "detection in 0 s" would
//   reward arms that suspect a lot). If the target recovers first (undetected_before_repair),
//   or the horizon comes, the crash is never detected by that observer; if the observer itself
//   crashes first, the pair is dropped from the plain detection statistics (detections_
//   abandoned). For the Kaplan-Meier estimate (detected_within_<x>_s, the KM median) the three
//   are right-censored at the repair, the horizon and the observer's crash respectively.
// A crashed observer's suspicions vanish with it (no transition is recorded); it starts again
// trusting everyone (or whatever the model reports at its recovery).
//
// By region (issue 29, the mechanism behind an arm's P(df)): every suspicion, false suspicion,
// live-suspected interval and detection is also counted under the target's region as the
// observer's view held it (`view_region(observer, k)`: the last broadcast received; a bucket
// `unknown` for an observer that has heard nothing since its own recovery)
// at the instant the suspicion began or the crash happened. Hou-Shin's T_out differs by that
// region, and only targets last seen in U receive transfers, so a false suspicion of a U target
// costs placements while one of an O target costs nothing.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include <array>
#include <functional>
#include <optional>

#include "models/loadsharing/buddies.h"
#include "models/loadsharing/regions.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

class SuspicionRecorder {
 public:
  // `view_region(observer, k)`: the region of the observer's k-th target in its view now, or
  // nullopt if the observer knows nothing of it (empty function: every target counts as U).
  using ViewRegion = std::function<std::optional<Region>(NodeId, size_t)>;
  SuspicionRecorder(const BuddyGraph& graph, SimTime warmup_end, ViewRegion view_region = {});

  bool suspected(NodeId observer, size_t k) const { return pairs_[index(observer, k)].suspected; }
  // A transition of the pair (observer, k) to `suspected` (no-op if unchanged).
  void set(SimTime now, NodeId observer, size_t k, bool suspected);
  void node_crashed(SimTime now, NodeId n);
  void node_recovered(SimTime now, NodeId n);
  void finish(SimTime horizon);

  uint64_t false_suspicions() const { return false_suspicions_; }
  uint64_t suspicions() const { return suspicions_; }
  const std::vector<double>& detection_times_s() const { return detection_s_; }
  uint64_t never_detected() const { return never_detected_; }
  uint64_t already_suspected_at_crash() const { return already_suspected_; }
  uint64_t undetected_before_repair() const { return undetected_before_repair_; }
  const std::vector<double>& censored_s() const { return censored_s_; }
  uint64_t crashes() const { return crashes_; }
  nlohmann::json metrics() const;

 private:
  struct Pair {
    bool suspected = false;
    bool pending = false;  // a detection is awaited
    SimTime crash_at;
    SimTime accrued_to;  // live/suspected time accounted up to here
    uint8_t suspected_in = 0;  // target's region (region_of) when the suspicion began
    uint8_t crashed_in = 0;    // ... when the awaited crash happened
  };
  struct RegionStats {
    uint64_t suspicions = 0;
    uint64_t false_suspicions = 0;
    double live_suspected_s = 0;
    uint64_t crashes_observed = 0;  // (crash, observer up and not suspecting) pairs
    uint64_t never_detected = 0;    // of those: repair or horizon first
    std::vector<double> detection_s;
  };
  size_t index(NodeId observer, size_t k) const { return size_t(observer) * b_ + k; }
  void accrue(size_t pair, NodeId observer, NodeId target, SimTime now);
  // Index into by_region_: the Region's value, or kUnknown.
  static constexpr size_t kUnknown = kRegionCount;
  size_t region_of(NodeId observer, size_t k) const {
    if (!view_region_) return size_t(Region::U);
    const std::optional<Region> r = view_region_(observer, k);
    return r ? size_t(*r) : kUnknown;
  }

  const BuddyGraph& graph_;
  ViewRegion view_region_;
  std::array<RegionStats, kRegionCount + 1> by_region_;  // U, M, O, unknown
  size_t b_;
  SimTime warmup_end_;
  std::vector<Pair> pairs_;
  std::vector<bool> up_;
  uint64_t false_suspicions_ = 0;
  uint64_t suspicions_ = 0;
  uint64_t crashes_ = 0;
  uint64_t never_detected_ = 0;
  uint64_t abandoned_ = 0;
  uint64_t already_suspected_ = 0;
  uint64_t undetected_before_repair_ = 0;
  std::vector<double> censored_s_;  // censored detection times (crash to censoring)
  double live_suspected_s_ = 0;
  double pair_up_s_ = 0;
  std::vector<double> detection_s_;
};

}  // namespace fdsim::loadsharing
