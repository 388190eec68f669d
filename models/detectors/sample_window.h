#pragma once
// A bounded window of the most recent integer samples (nanoseconds) with exact running sums.
//
// Contract: holds the last `capacity` samples added (the oldest is dropped when full). A sample
// is clamped to +-kMaxSampleNs (2^53 ns, about 104 days) when added: with clock drift over a
// long horizon the arrival offsets of NFD-E and Bertier grow to 1e17 ns, and 100 of them
// overflowed the int64 sum (issue 24); no shipped scenario comes near the clamp. The sums are
// kept in 128 bits, so they never overflow for any capacity up to 1e6; mean() and
// variance() are computed from exact integer sums (the square sum is kept in 128 bits), so
// they do not drift however many samples pass through: each is rounded to double only once.
// variance() is the population variance (divide by n), as Akka's HeartbeatHistory computes it.
// Used by the detectors that estimate from recent history (NFD-E, Bertier, phi and exponential
// accrual).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fdsim::detectors {

class SampleWindow {
 public:
  explicit SampleWindow(size_t capacity);

  void add(int64_t v);
  void clear();
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return buf_.size(); }
  // The exact sum, narrowed to int64 (exact whenever it fits, as for every window of less than
  // 1024 samples).
  int64_t sum() const { return static_cast<int64_t>(sum_); }
  static constexpr int64_t kMaxSampleNs = int64_t(1) << 53;
  // sum / n; requires a non-empty window.
  double mean() const;
  // sum / n rounded to the nearest integer (ties away from zero), exact.
  int64_t mean_rounded() const;
  // Population variance, >= 0; requires a non-empty window.
  double variance() const;

 private:
  std::vector<int64_t> buf_;
  size_t head_ = 0;  // index of the oldest sample
  size_t size_ = 0;
  __int128 sum_ = 0;
  __int128 sum_sq_ = 0;
};

}  // namespace fdsim::detectors
