#include "sim/sweep/progress.h"

#include <algorithm>
#include <cmath>

namespace fdsim::sweep {

std::optional<double> eta_seconds(const ProgressCounts& c, double elapsed_s) {
  if (c.finished_here == 0 || elapsed_s <= 0.0) return std::nullopt;
  const size_t left = c.total - std::min(c.total, c.done + c.failed);
  return double(left) * elapsed_s / double(c.finished_here);
}

std::string progress_line(const ProgressCounts& c, std::optional<double> eta_s) {
  return "progress done=" + std::to_string(c.done) + " running=" + std::to_string(c.running) +
         " failed=" + std::to_string(c.failed) + " total=" + std::to_string(c.total) +
         " eta_s=" + (eta_s ? std::to_string(int64_t(std::llround(*eta_s))) : std::string("-1"));
}

std::string progress_bar(const ProgressCounts& c, std::optional<double> eta_s) {
  constexpr size_t kWidth = 30;
  const size_t finished = std::min(c.total, c.done + c.failed);
  const size_t filled = c.total == 0 ? kWidth : finished * kWidth / c.total;
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
  bar += std::to_string(c.done) + "/" + std::to_string(c.total) + " done, " +
         std::to_string(c.running) + " running, " + std::to_string(c.failed) + " failed";
  if (eta_s) {
    const int64_t s = std::llround(*eta_s);
    bar += ", ETA " + (s >= 3600 ? std::to_string(s / 3600) + "h" + std::to_string(s % 3600 / 60) + "m"
                       : s >= 60 ? std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s"
                                 : std::to_string(s) + "s");
  }
  return bar;
}

ProgressReporter::ProgressReporter(ProgressStyle style, std::ostream* out,
                                   std::chrono::milliseconds line_interval)
    : style_(out == nullptr ? ProgressStyle::kQuiet : style),
      out_(out),
      line_interval_(line_interval),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

std::chrono::milliseconds ProgressReporter::tick() const {
  switch (style_) {
    case ProgressStyle::kTerminal:
      return std::chrono::milliseconds(250);
    case ProgressStyle::kLines:
      return std::min(line_interval_, std::chrono::milliseconds(1000));
    case ProgressStyle::kQuiet:
      break;
  }
  return std::chrono::milliseconds(1000);
}

void ProgressReporter::update(const ProgressCounts& c, bool force) {
  if (style_ == ProgressStyle::kQuiet) return;
  const auto now = std::chrono::steady_clock::now();
  const auto interval =
      style_ == ProgressStyle::kTerminal ? std::chrono::milliseconds(250) : line_interval_;
  if (!force && printed_ && now - last_print_ < interval) return;
  if (!force && !printed_ && style_ == ProgressStyle::kLines && now - start_ < interval) return;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const auto eta = eta_seconds(c, elapsed_s);
  if (style_ == ProgressStyle::kTerminal)
    *out_ << "\r\033[K" << progress_bar(c, eta) << std::flush;
  else
    *out_ << progress_line(c, eta) << "\n" << std::flush;
  last_print_ = now;
  printed_ = true;
}

void ProgressReporter::finish(const ProgressCounts& c) {
  if (style_ == ProgressStyle::kQuiet) return;
  update(c, /*force=*/true);
  if (style_ == ProgressStyle::kTerminal) *out_ << "\n" << std::flush;
}

}  // namespace fdsim::sweep
