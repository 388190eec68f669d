#pragma once
// Failure-detector quality of service for one monitoring pair (q watches p), after Chen, Toueg
// and Aguilera (IEEE TC 51(5), 2002) and docs/models/metrics.md section 1.
//
// Contract: the recorder is fed signals in non-decreasing time order: q's output transitions
// (suspect = S-transition, trust = T-transition), p's crashes and recoveries (ground truth),
// and q's own crash/recovery (monitor_down/monitor_up: while q is down the pair is not observed
// and q's output restarts as "trust" with a fresh detector). It accounts only inside the window
// [window_start, window_end) (warmup to horizon); finish() closes it. Definitions:
// - observed time: p up and q up, inside the window (T_obs of this pair).
// - suspect time: observed time during which q suspects p.
// - mistake: an S-transition at a window instant while p and q are up. A mistake is completed
//   by the next T-transition (its duration is recorded); it is abandoned, not completed, if p
//   crashes, q goes down, or the window ends first.
// - detection: for each crash of p at a window instant while q is up, T_D = start of q's final
//   suspicion of p before p recovers or the window ends, minus the crash instant (0 if q already
//   suspected p at the crash and never trusted it again). If q trusts p at that point the crash
//   is undetected. If q goes down before that point, the crash is unobserved.
// Suspicion that starts while p is down and lasts past its recovery counts as suspect time but
// is no mistake (it started as a correct suspicion). Repeated suspect()/trust() calls with no
// change of output are ignored.
//
// Unbiased detection samples (issue 13 item 4; the definition above is Chen's and is kept):
// - a crash of p at a window instant at which q is up and ALREADY suspects p counts in
//   already_suspected_at_crash() and gives no sample (Chen's T_D = 0 rewards false suspicion);
// - every other crash of p at a window instant while q is up (q trusts p at the crash) gives
//   one right-censored sample. It ends at the first of: p's recovery, q's crash (monitor_down)
//   and the window end. If q suspects p at that end, the sample is an event whose duration is
//   the start of q's current suspicion minus the crash instant (the same instant Chen's T_D
//   uses); otherwise it is censored at that end minus the crash instant. So a crash left
//   undetected at p's repair is censored at the repair instead of dropped, and one whose
//   observer crashes first is censored at the observer's crash.
// km_detection_times() + km_censored_times() + already_suspected_at_crash() = crashes at a
// window instant with q up (crashes() plus those moved to crashes_unobserved() by q's crash).
//
// Bounded mistake durations (issue 24 item 7): the completed mistakes' durations are kept exactly
// while the arm's pairs together hold at most MistakeDurationBudget::cap of them (shared by
// every recorder of one arm; a recorder built without one has its own). The durations stream
// into mistake_moments() always. When the arm's total would exceed the cap, the budget is
// marked overflowed: no recorder of the arm stores another duration, each drops what it holds
// at its next completed mistake, and mistake_durations_kept() is false for all of them (then
// mistake_durations() is not the full sequence and must not be used; QosSummary pools the
// moments instead). So an arm keeps at most cap durations whatever the horizon.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/metrics/duration_moments.h"
#include "sim/engine/time.h"

namespace fdsim::metrics {

// The durations one arm may keep exactly (see the contract above).
struct MistakeDurationBudget {
  // 2^20 durations (8 MB per arm): 8 times the most any shipped scenario completes in one arm
  // (about 1.3e5, results/detectors), so every shipped result is the exact computation.
  static constexpr uint64_t kDefaultCap = uint64_t(1) << 20;
  uint64_t cap = kDefaultCap;
  uint64_t kept = 0;
  bool overflowed = false;
};

class QosPairRecorder {
 public:
  QosPairRecorder(SimTime window_start, SimTime window_end,
                  std::shared_ptr<MistakeDurationBudget> budget = nullptr);

  void suspect(SimTime t);
  void trust(SimTime t);
  void target_crashed(SimTime t);
  void target_recovered(SimTime t);
  void monitor_down(SimTime t);
  void monitor_up(SimTime t);
  void finish(SimTime t);

  bool suspecting() const { return suspecting_; }
  bool finished() const { return finished_; }

  Duration observed_time() const { return observed_; }
  Duration suspect_time() const { return suspect_time_; }
  uint64_t mistakes() const { return mistakes_; }
  uint64_t mistakes_completed() const { return mistake_moments_.n; }
  // Every completed mistake's duration, in order, while mistake_durations_kept().
  const std::vector<Duration>& mistake_durations() const { return completed_durations_; }
  bool mistake_durations_kept() const { return !budget_->overflowed; }
  const DurationMoments& mistake_moments() const { return mistake_moments_; }
  uint64_t crashes() const { return crashes_; }
  uint64_t crashes_unobserved() const { return crashes_unobserved_; }
  uint64_t undetected() const { return undetected_; }
  const std::vector<Duration>& detection_times() const { return detection_times_; }
  uint64_t already_suspected_at_crash() const { return already_suspected_at_crash_; }
  const std::vector<Duration>& km_detection_times() const { return km_events_; }
  const std::vector<Duration>& km_censored_times() const { return km_censored_; }

 private:
  void advance(SimTime t);
  bool in_window(SimTime t) const { return t >= window_start_ && t < window_end_; }
  void resolve_detection();
  // Records a completed mistake under the budget (see the contract above).
  void complete_mistake(Duration d);
  // Ends the pending unbiased sample at `end` (see the contract above).
  void resolve_km_sample(SimTime end);

  SimTime window_start_;
  SimTime window_end_;
  SimTime last_;
  bool target_up_ = true;
  bool monitor_up_ = true;
  bool suspecting_ = false;
  bool finished_ = false;

  bool mistake_open_ = false;
  SimTime mistake_start_;

  bool detection_pending_ = false;
  SimTime crash_time_;
  bool candidate_set_ = false;
  SimTime candidate_;  // start of q's current suspicion since the crash

  Duration observed_ = Duration::zero();
  Duration suspect_time_ = Duration::zero();
  uint64_t mistakes_ = 0;
  std::vector<Duration> completed_durations_;
  DurationMoments mistake_moments_;
  std::shared_ptr<MistakeDurationBudget> budget_;
  uint64_t crashes_ = 0;
  uint64_t crashes_unobserved_ = 0;
  uint64_t undetected_ = 0;
  std::vector<Duration> detection_times_;

  bool km_pending_ = false;  // an unbiased sample awaits its end (q trusted p at the crash)
  uint64_t already_suspected_at_crash_ = 0;
  std::vector<Duration> km_events_;
  std::vector<Duration> km_censored_;
};

}  // namespace fdsim::metrics
