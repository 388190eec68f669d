#pragma once
// Fixed timeout: suspect the peer when nothing arrived for `timeout` since the last arrival.
//
// Promise: suspect_at() = (latest arrival instant) + timeout, exactly; SimTime::max() before
// the first heartbeat. Any arrival counts, whatever its sequence number or send time.
// When it is wrong: a live peer is suspected whenever a gap between arrivals (losses, delay
// jitter, a sender pause) exceeds the timeout; a crash is detected exactly `timeout` after the
// last heartbeat that got through, so T_D <= timeout + (the crash-to-last-arrival gap).

#include "models/detectors/detector.h"

namespace fdsim::detectors {

class FixedDetector final : public Detector {
 public:
  explicit FixedDetector(Duration timeout);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "fixed"; }

 private:
  Duration timeout_;
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
