#pragma once
// Bertier, Marin and Sens (DSN 2002): Chen's expected arrival plus a Jacobson-style dynamic
// safety margin.
//
// Promise: EA_k is NFD-E's expected arrival of heartbeat k (window of the last n received
// A_j - eta*s_j, plus s_k*eta), computed before m_k arrives. On the arrival of m_k (every
// arrival but the first, which has no EA): error = A_k - EA_k - delay; delay += gamma*error;
// var += gamma*(|error| - var); margin = beta*delay + phi*var (delay and var start at 0).
// Then m_k enters the window and suspect_at() = EA_(l+1) + margin, l the highest sequence
// number received (EA and margin kept in double ns; the sum is rounded to the nearest ns).
// Defaults: window 100, beta 1, phi 4, gamma 0.1. SimTime::max() before the first heartbeat.
// When it is wrong: the margin starts at 0, so the first few heartbeats later than their EA
// cause mistakes until var has grown; the margin follows the recent error level, so a sudden
// delay increase causes a burst of mistakes, and a quiet period shrinks the margin.

#include "models/detectors/detector.h"
#include "models/detectors/sample_window.h"

namespace fdsim::detectors {

struct BertierParams {
  size_t window = 100;
  double beta = 1.0;
  double phi = 4.0;
  double gamma = 0.1;
};

class BertierDetector final : public Detector {
 public:
  BertierDetector(Duration heartbeat_period, const BertierParams& params);
  void on_heartbeat(uint64_t seq, SimTime send_time, SimTime arrival) override;
  SimTime suspect_at() const override { return suspect_at_; }
  std::string_view kind() const override { return "bertier"; }

  // State after the last heartbeat, in ns (for tests and traces).
  double delay_ns() const { return delay_ns_; }
  double var_ns() const { return var_ns_; }
  double margin_ns() const { return params_.beta * delay_ns_ + params_.phi * var_ns_; }

 private:
  Duration eta_;
  BertierParams params_;
  SampleWindow window_;  // A_k - eta*s_k, in ns
  uint64_t highest_seq_ = 0;
  double delay_ns_ = 0.0;
  double var_ns_ = 0.0;
  SimTime suspect_at_ = SimTime::max();
};

}  // namespace fdsim::detectors
