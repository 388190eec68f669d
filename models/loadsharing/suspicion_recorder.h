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

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/loadsharing/buddies.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

class SuspicionRecorder {
 public:
  SuspicionRecorder(const BuddyGraph& graph, SimTime warmup_end);

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
  };
  size_t index(NodeId observer, size_t k) const { return size_t(observer) * b_ + k; }
  void accrue(size_t pair, NodeId observer, NodeId target, SimTime now);

  const BuddyGraph& graph_;
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
