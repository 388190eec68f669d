#include "models/detectors/nfd_s_detector.h"

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

NfdSDetector::NfdSDetector(Duration heartbeat_period, Duration delta)
    : eta_(heartbeat_period), delta_(delta) {
  if (heartbeat_period <= Duration::zero()) detector_error("nfd_s", "heartbeat period must be > 0");
  if (delta < Duration::zero()) detector_error("nfd_s", "delta must be >= 0");
}

void NfdSDetector::on_heartbeat(uint64_t seq, SimTime send_time, SimTime /*arrival*/) {
  if (any_ && seq <= highest_seq_) return;  // stale or duplicate: no fresher information
  any_ = true;
  highest_seq_ = seq;
  suspect_at_ = send_time + eta_ + delta_;
}

}  // namespace fdsim::detectors
