#include "models/detectors/fixed_detector.h"

#include "models/detectors/detector_error.h"

namespace fdsim::detectors {

FixedDetector::FixedDetector(Duration timeout) : timeout_(timeout) {
  if (timeout <= Duration::zero()) detector_error("fixed", "timeout must be > 0");
}

void FixedDetector::on_heartbeat(uint64_t /*seq*/, SimTime /*send_time*/, SimTime arrival) {
  const SimTime s = arrival + timeout_;
  if (suspect_at_ == SimTime::max() || s > suspect_at_) suspect_at_ = s;
}

}  // namespace fdsim::detectors
