#include "models/detectors/sample_window.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::detectors {

namespace {
[[noreturn]] void window_error(const char* what) {
  fdsim::internal_error("fdsim: internal error: detector sample window: %s\n", what);
}
}  // namespace

SampleWindow::SampleWindow(size_t capacity) : buf_(capacity, 0) {
  if (capacity == 0) window_error("capacity must be >= 1");
}

void SampleWindow::add(int64_t v) {
  v = v > kMaxSampleNs ? kMaxSampleNs : (v < -kMaxSampleNs ? -kMaxSampleNs : v);
  if (size_ == buf_.size()) {
    const int64_t old = buf_[head_];
    sum_ -= old;
    sum_sq_ -= static_cast<__int128>(old) * old;
    buf_[head_] = v;
    head_ = (head_ + 1) % buf_.size();
  } else {
    buf_[(head_ + size_) % buf_.size()] = v;
    ++size_;
  }
  sum_ += v;  // |sum_| <= 1e6 x 2^53, far inside 128 bits
  if (__builtin_add_overflow(sum_sq_, static_cast<__int128>(v) * v, &sum_sq_))
    window_error("square sum overflow");
}

void SampleWindow::clear() {
  head_ = 0;
  size_ = 0;
  sum_ = 0;
  sum_sq_ = 0;
}

double SampleWindow::mean() const {
  if (size_ == 0) window_error("mean of an empty window");
  return static_cast<double>(sum_) / static_cast<double>(size_);
}

int64_t SampleWindow::mean_rounded() const {
  if (size_ == 0) window_error("mean of an empty window");
  const __int128 n = static_cast<__int128>(size_);
  const __int128 s = sum_;
  // Round half away from zero: (|s| + n/2) / n with the sign restored (n/2 exact for even n,
  // and for odd n no tie exists).
  const __int128 mag = ((s < 0 ? -s : s) * 2 + n) / (2 * n);
  return static_cast<int64_t>(s < 0 ? -mag : mag);
}

double SampleWindow::variance() const {
  if (size_ == 0) window_error("variance of an empty window");
  const __int128 n = static_cast<__int128>(size_);
  const double nd = static_cast<double>(size_);
  __int128 a, b;
  double v;
  if (!__builtin_mul_overflow(n, sum_sq_, &a) &&
      !__builtin_mul_overflow(static_cast<__int128>(sum_), static_cast<__int128>(sum_), &b)) {
    v = static_cast<double>(a - b) / (nd * nd);  // exact n^2 * variance, rounded once
  } else {
    // Only for absurdly long samples (beyond ~1e16 ns each): 64-bit-mantissa arithmetic.
    const long double m = static_cast<long double>(sum_) / size_;
    v = static_cast<double>(static_cast<long double>(sum_sq_) / size_ - m * m);
  }
  return v < 0 ? 0.0 : v;
}

}  // namespace fdsim::detectors
