#include "models/detectors/nfd_e_detector.h"

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

int64_t arrival_offset_ns(SimTime arrival, uint64_t seq, Duration eta) {
  if (seq > uint64_t(INT64_MAX)) detector_error("nfd_e", "sequence number out of range");
  return (arrival - SimTime::zero() - eta * static_cast<int64_t>(seq)).count_ns();
}

NfdEDetector::NfdEDetector(Duration heartbeat_period, Duration alpha, size_t window)
    : eta_(heartbeat_period), alpha_(alpha), window_(window) {
  if (heartbeat_period <= Duration::zero()) detector_error("nfd_e", "heartbeat period must be > 0");
}

SimTime NfdEDetector::expected_arrival(uint64_t seq) const {
  if (window_.empty()) detector_error("nfd_e", "expected arrival asked before any heartbeat");
  return SimTime::from_ns(window_.mean_rounded()) + eta_ * static_cast<int64_t>(seq);
}

void NfdEDetector::on_heartbeat(uint64_t seq, SimTime /*send_time*/, SimTime arrival) {
  const bool first = window_.empty();
  window_.add(arrival_offset_ns(arrival, seq, eta_));
  if (first || seq > highest_seq_) highest_seq_ = seq;
  suspect_at_ = expected_arrival(highest_seq_ + 1) + alpha_;
}

}  // namespace fdsim::detectors
