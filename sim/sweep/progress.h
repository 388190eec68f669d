#pragma once
// Sweep progress on stderr: a one-line bar redrawn in place on a terminal, or one
// machine-readable line every few seconds otherwise:
//   progress done=12 running=2 failed=0 total=40 eta_s=31
// (done counts runs with a result, including results found from an earlier invocation;
// eta_s is -1 until a run has finished in this invocation).
//
// Contract: purely informational; it reads a wall clock (steady_clock) and never influences
// what a sweep computes or writes to OUT.

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

namespace fdsim::sweep {

enum class ProgressStyle { kQuiet, kTerminal, kLines };

struct ProgressCounts {
  size_t total = 0;
  size_t done = 0;      // valid results (reused + executed now)
  size_t running = 0;
  size_t failed = 0;
  size_t finished_here = 0;  // runs finished (ok or failed) by this invocation: the ETA's rate
};

// Seconds left at the current rate, or nullopt if nothing finished yet.
std::optional<double> eta_seconds(const ProgressCounts& c, double elapsed_s);
std::string progress_line(const ProgressCounts& c, std::optional<double> eta_s);
std::string progress_bar(const ProgressCounts& c, std::optional<double> eta_s);

class ProgressReporter {
 public:
  ProgressReporter(ProgressStyle style, std::ostream* out,
                   std::chrono::milliseconds line_interval = std::chrono::seconds(5));
  // How long the caller may sleep before calling update() again.
  std::chrono::milliseconds tick() const;
  // Prints if the style's interval has passed (or `force`).
  void update(const ProgressCounts& c, bool force = false);
  // Final state: the bar is completed with a newline; lines mode prints a last line.
  void finish(const ProgressCounts& c);

 private:
  ProgressStyle style_;
  std::ostream* out_;
  std::chrono::milliseconds line_interval_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  bool printed_ = false;
};

}  // namespace fdsim::sweep
