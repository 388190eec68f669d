#include "models/detectors/bertier_detector.h"

#include <cmath>

#include "models/detectors/detector_error.h"
#include "models/detectors/nfd_e_detector.h"

namespace fdsim::detectors {

BertierDetector::BertierDetector(Duration heartbeat_period, const BertierParams& params)
    : eta_(heartbeat_period), params_(params), window_(params.window) {
  if (heartbeat_period <= Duration::zero())
    detector_error("bertier", "heartbeat period must be > 0");
  if (!(params.gamma > 0.0 && params.gamma <= 1.0)) detector_error("bertier", "gamma not in (0, 1]");
}

void BertierDetector::on_heartbeat(uint64_t seq, SimTime /*send_time*/, SimTime arrival) {
  const bool first = window_.empty();
  const int64_t offset = arrival_offset_ns(arrival, seq, eta_);
  if (!first) {
    // A_k - EA_k = (A_k - eta*s_k) - window mean: small numbers, no loss of precision.
    const double error = static_cast<double>(offset) - window_.mean() - delay_ns_;
    delay_ns_ += params_.gamma * error;
    var_ns_ += params_.gamma * (std::fabs(error) - var_ns_);
  }
  window_.add(offset);
  if (first || seq > highest_seq_) highest_seq_ = seq;
  // EA_(l+1) = mean + (l+1)*eta exactly in integers, plus the (double) margin rounded once.
  const double ea_frac = window_.mean() - static_cast<double>(window_.mean_rounded());
  const SimTime ea = SimTime::from_ns(window_.mean_rounded()) +
                     eta_ * static_cast<int64_t>(highest_seq_ + 1);
  suspect_at_ = ea + Duration::ns(std::llround(ea_frac + margin_ns()));
}

}  // namespace fdsim::detectors
