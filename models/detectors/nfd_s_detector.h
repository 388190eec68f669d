#pragma once
// NFD-S (Chen, Toueg and Aguilera 2002), for synchronized clocks.
//
// Promise: heartbeat m_i is sent at sigma_i = i*eta on a clock q shares; freshness points are
// tau_i = sigma_i + delta; during [tau_i, tau_(i+1)) q trusts p iff some m_j with j >= i has
// arrived. With J the highest sequence number received so far, q therefore trusts until
// tau_(J+1) and suspect_at() = sigma_J + eta + delta, where sigma_J is the send time carried by
// m_J (so sigma_J = J*eta under the paper's assumptions; with send jitter or a late send after
// a pause the freshness point follows the actual send stamp). Heartbeats with seq < J change
// nothing. SimTime::max() before the first heartbeat. A crash is detected within delta + eta
// (T_D <= delta + eta), whatever the delays and losses.
// When it is wrong: if the sender's clock is offset from q's (or drifts), every freshness point
// moves by the offset: a positive offset delays detection, a negative one causes mistakes on
// every heartbeat slower than delta minus the offset. Use NFD-E when clocks are not shared.

#include "models/detectors/detector.h"

namespace fdsim::detectors {

class NfdSDetector final : public Detector {
 public:
  NfdSDetector(Duration heartbeat_period, Duration delta);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "nfd_s"; }

 private:
  Duration eta_;
  Duration delta_;
  bool any_ = false;
  uint64_t highest_seq_ = 0;
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
