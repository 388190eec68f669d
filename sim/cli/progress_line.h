#pragma once
// The progress line of `fdsim run` on stderr: simulated time reached, events per wall second
// and ETA. Shown only when stderr is a terminal (rewritten in place with '\r') and the run has
// lasted about 2 s of wall time, or always with --progress (then one line every ~2 s when
// stderr is not a terminal); never with --quiet. Wall-clock use here is fine: it only decides
// what to print, never what is simulated.

#include <chrono>
#include <string>

#include "sim/run/run.h"

namespace fdsim::cli {

class ProgressLine {
 public:
  ProgressLine(bool quiet, bool forced);
  // Starts a new run labelled `label` (e.g. "x.json rep 0").
  void begin(std::string label);
  void update(const run::ProgressInfo& p);
  // Ends the line (newline) if anything was printed.
  void end();
  bool enabled() const { return enabled_; }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_ = false;
  bool tty_ = false;
  bool forced_ = false;
  bool printed_ = false;
  std::string label_;
  Clock::time_point start_, last_;
};

}  // namespace fdsim::cli
