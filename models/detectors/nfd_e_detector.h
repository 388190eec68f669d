#pragma once
// NFD-E (Chen, Toueg and Aguilera 2002), for unsynchronized clocks.
//
// Promise: q keeps the last n received heartbeats (window, in arrival order; stale ones
// included) and estimates the expected arrival of heartbeat l+1, l the highest sequence number
// received, as EA_(l+1) = (1/n) sum_k (A_k - eta*s_k) + (l+1)*eta (A_k receipt time on q's
// clock, s_k sequence number; the mean is rounded to the nearest nanosecond). The freshness
// point is tau_(l+1) = EA_(l+1) + alpha and suspect_at() = tau_(l+1). Send timestamps are not
// used, so a constant offset or any clock of the sender's does not matter: with a constant
// offset NFD-E behaves like NFD-S with delta = E(D) + alpha, up to the estimation of E(D) by the
// window mean. SimTime::max() before the first heartbeat.
// When it is wrong: if the sender's clock drifts, its true period is not eta and A_k - eta*s_k
// trends: the estimate lags by about n/2 periods of drift; heavy-tailed delays make the window
// mean noisy, moving every freshness point with it.

#include "models/detectors/detector.h"
#include "models/detectors/sample_window.h"

namespace fdsim::detectors {

class NfdEDetector final : public Detector {
 public:
  NfdEDetector(Duration heartbeat_period, Duration alpha, size_t window);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "nfd_e"; }

  // EA of heartbeat `seq` from the current window (requires at least one heartbeat).
  SimTime expected_arrival(uint64_t seq) const;

 private:
  Duration eta_;
  Duration alpha_;
  SampleWindow window_;  // A_k - eta*s_k, in ns
  uint64_t highest_seq_ = 0;
  SimTime suspect_at_ = SimTime::max();
};

// A_k - eta*s_k in ns, overflow-checked (shared with Bertier).
int64_t arrival_offset_ns(SimTime arrival, uint64_t seq, Duration eta);

}  // namespace fdsim::detectors
