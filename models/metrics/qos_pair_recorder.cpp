#include "models/metrics/qos_pair_recorder.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace fdsim::metrics {

namespace {
[[noreturn]] void order_error(SimTime t, SimTime last) {
  fdsim::internal_error("fdsim: internal error: QoS recorder fed a signal at %s before %s\n",
               to_string(t).c_str(), to_string(last).c_str());
}
}  // namespace

QosPairRecorder::QosPairRecorder(SimTime window_start, SimTime window_end,
                                 std::shared_ptr<MistakeDurationBudget> budget)
    : window_start_(window_start),
      window_end_(window_end),
      last_(SimTime::zero()),
      budget_(budget ? std::move(budget) : std::make_shared<MistakeDurationBudget>()) {}

void QosPairRecorder::complete_mistake(Duration d) {
  mistake_moments_.add(d.seconds());
  MistakeDurationBudget& b = *budget_;
  if (!b.overflowed && b.kept < b.cap) {
    completed_durations_.push_back(d);
    ++b.kept;
    return;
  }
  b.overflowed = true;  // from now on the arm's summary pools the moments
  if (!completed_durations_.empty()) std::vector<Duration>().swap(completed_durations_);
}

void QosPairRecorder::advance(SimTime t) {
  if (t < last_) order_error(t, last_);
  if (finished_) return;
  const SimTime a = std::max(last_, window_start_);
  const SimTime b = std::min(t, window_end_);
  if (b > a && target_up_ && monitor_up_) {
    observed_ += b - a;
    if (suspecting_) suspect_time_ += b - a;
  }
  last_ = t;
}

void QosPairRecorder::suspect(SimTime t) {
  advance(t);
  if (finished_ || suspecting_ || !monitor_up_) return;
  suspecting_ = true;
  if (target_up_) {
    if (in_window(t)) {
      ++mistakes_;
      mistake_open_ = true;
      mistake_start_ = t;
    }
  } else if (detection_pending_) {
    candidate_set_ = true;
    candidate_ = t;
  }
}

void QosPairRecorder::trust(SimTime t) {
  advance(t);
  if (finished_ || !suspecting_) return;
  suspecting_ = false;
  if (mistake_open_) {
    mistake_open_ = false;
    if (t < window_end_) complete_mistake(t - mistake_start_);
  }
  if (detection_pending_) candidate_set_ = false;
}

void QosPairRecorder::target_crashed(SimTime t) {
  advance(t);
  if (finished_ || !target_up_) return;
  target_up_ = false;
  mistake_open_ = false;  // abandoned: no longer a mistake once p is down
  if (!in_window(t)) return;
  if (!monitor_up_) {
    ++crashes_unobserved_;
    return;
  }
  ++crashes_;
  detection_pending_ = true;
  crash_time_ = t;
  candidate_set_ = suspecting_;
  candidate_ = t;
  if (suspecting_)
    ++already_suspected_at_crash_;
  else
    km_pending_ = true;
}

void QosPairRecorder::resolve_km_sample(SimTime end) {
  if (!km_pending_) return;
  km_pending_ = false;
  end = std::min(end, window_end_);
  if (candidate_set_ && candidate_ < end)
    km_events_.push_back(candidate_ - crash_time_);
  else
    km_censored_.push_back(end - crash_time_);
}

void QosPairRecorder::resolve_detection() {
  resolve_km_sample(last_);
  if (!detection_pending_) return;
  detection_pending_ = false;
  if (candidate_set_)
    detection_times_.push_back(candidate_ - crash_time_);
  else
    ++undetected_;
  candidate_set_ = false;
}

void QosPairRecorder::target_recovered(SimTime t) {
  advance(t);
  if (finished_ || target_up_) return;
  resolve_detection();
  target_up_ = true;
}

void QosPairRecorder::monitor_down(SimTime t) {
  advance(t);
  if (finished_ || !monitor_up_) return;
  monitor_up_ = false;
  resolve_km_sample(t);  // before q's output is reset: a suspicion held until now counts
  suspecting_ = false;
  mistake_open_ = false;
  if (detection_pending_) {
    detection_pending_ = false;
    candidate_set_ = false;
    --crashes_;
    ++crashes_unobserved_;
  }
}

void QosPairRecorder::monitor_up(SimTime t) {
  advance(t);
  if (finished_ || monitor_up_) return;
  monitor_up_ = true;
  suspecting_ = false;
}

void QosPairRecorder::finish(SimTime t) {
  advance(std::max(t, last_));
  if (finished_) return;
  resolve_detection();
  mistake_open_ = false;
  finished_ = true;
}

}  // namespace fdsim::metrics
