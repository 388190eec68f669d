#include "sim/cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace fdsim::cli {

ProgressLine::ProgressLine(bool quiet, bool forced) {
  tty_ = ::isatty(STDERR_FILENO) == 1;
  forced_ = forced;
  enabled_ = !quiet && (tty_ || forced);
}

void ProgressLine::begin(std::string label) {
  label_ = std::move(label);
  start_ = last_ = Clock::now();
  printed_ = false;
}

void ProgressLine::update(const run::ProgressInfo& p) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const double since_last_s = std::chrono::duration<double>(now - last_).count();
  const bool done = p.simulated_s >= p.total_s;
  if (!forced_ && elapsed_s < 2.0) return;
  if (!done && printed_ && since_last_s < (tty_ ? 0.25 : 2.0)) return;
  if (done && !printed_) return;  // finished before anything was shown: stay silent
  last_ = now;
  const double fraction = p.total_s > 0 ? p.simulated_s / p.total_s : 1.0;
  const double events_per_s = elapsed_s > 0 ? double(p.events) / elapsed_s : 0.0;
  const double eta_s = fraction > 0 ? elapsed_s * (1.0 - fraction) / fraction : 0.0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: simulated %.1f of %.1f s (%.1f%%), %.3g events/s, ETA %.0f s",
                label_.c_str(), p.simulated_s, p.total_s, 100.0 * fraction, events_per_s, eta_s);
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K", buf);
  } else {
    std::fprintf(stderr, "%s\n", buf);
  }
  std::fflush(stderr);
  printed_ = true;
}

void ProgressLine::end() {
  if (printed_ && tty_) std::fprintf(stderr, "\n");
  printed_ = false;
}

}  // namespace fdsim::cli
