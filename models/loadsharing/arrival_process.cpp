#include "models/loadsharing/arrival_process.h"

#include <algorithm>
#include <cmath>

#include "sim/engine/internal_error.h"
#include "sim/engine/random_duration.h"

namespace fdsim::loadsharing {

namespace {
// Arrivals later than this are "no more arrivals" (random_duration.h: every horizon is below).
const SimTime kNever = SimTime::zero() + Duration::from_seconds(kMaxRandomDurationS);
}  // namespace

uint64_t BatchSize::draw(Rng& rng) const {
  switch (law) {
    case BatchSizeLaw::deterministic: return value;
    case BatchSizeLaw::geometric: {
      // P(B = k) = (1 - p)^(k - 1) p on {1, 2, ...}, p = 1 / mean, by inversion of one uniform.
      if (mean <= 1.0) return 1;
      const double p = 1.0 / mean;
      const double u = rng.uniform01();
      const double k = std::floor(std::log1p(-u) / std::log1p(-p)) + 1.0;
      return k >= 1e12 ? uint64_t(1e12) : uint64_t(std::max(1.0, k));
    }
    case BatchSizeLaw::uniform: return uint64_t(rng.uniform_int(int64_t(min), int64_t(max)));
  }
  return 1;
}

double BatchSize::mean_size() const {
  switch (law) {
    case BatchSizeLaw::deterministic: return double(value);
    case BatchSizeLaw::geometric: return mean;
    case BatchSizeLaw::uniform: return 0.5 * double(min + max);
  }
  return 1;
}

double BatchSize::mean_square() const {
  switch (law) {
    case BatchSizeLaw::deterministic: return double(value) * double(value);
    case BatchSizeLaw::geometric: {
      const double p = 1.0 / mean;
      return (2.0 - p) / (p * p);
    }
    case BatchSizeLaw::uniform: {
      const double a = double(min), b = double(max), n = b - a + 1;
      // sum_{k=a}^{b} k^2 / n
      auto s2 = [](double x) { return x * (x + 1) * (2 * x + 1) / 6; };
      return (s2(b) - s2(a - 1)) / n;
    }
  }
  return 1;
}

double ArrivalProcessSpec::mean_rate_per_s() const {
  switch (kind) {
    case Kind::mmpp2: {
      const double m = mean_sojourn_s[0] + mean_sojourn_s[1];
      return (rate_per_s[0] * mean_sojourn_s[0] + rate_per_s[1] * mean_sojourn_s[1]) / m;
    }
    case Kind::batch_poisson: return batch_rate_per_s * batch.mean_size();
    case Kind::trace: {
      if (!instants || instants->empty() || !loop || period <= Duration::zero()) return 0.0;
      return double(instants->size()) / period.seconds();
    }
  }
  return 0.0;
}

ArrivalProcess::ArrivalProcess(const ArrivalProcessSpec& spec, size_t rank)
    : spec_(&spec), rank_(rank) {
  if (spec.kind == ArrivalProcessSpec::Kind::trace) {
    if (!spec.instants || (spec.loop && spec.period <= Duration::zero()))
      fdsim::internal_error("fdsim: internal error: malformed arrival trace\n");
    if (spec.loop && spec.node_offset > Duration::zero()) {
      // (rank x node_offset) mod period, without overflowing int64 nanoseconds.
      const __int128 o = __int128(rank_) * spec.node_offset.count_ns();
      offset_ = Duration::ns(int64_t(o % spec.period.count_ns()));
    } else {
      offset_ = Duration::ns(int64_t(std::min<__int128>(__int128(rank_) * spec.node_offset.count_ns(),
                                                    kNever.count_ns())));
    }
  }
}

std::optional<SimTime> ArrivalProcess::mmpp_next(SimTime from, Rng& rng) {
  SimTime t = from;
  while (t < kNever) {
    const double rate = spec_->rate_per_s[state_];
    const double arrival_s = rate > 0 ? rng.exponential(rate) : INFINITY;
    const double switch_s = rng.exponential(1.0 / spec_->mean_sojourn_s[state_]);
    if (arrival_s < switch_s) {
      const Duration gap = random_duration_s(arrival_s);
      return t + gap < kNever ? std::optional<SimTime>(t + gap) : std::nullopt;
    }
    t = t + random_duration_s(switch_s);
    state_ = 1 - state_;
  }
  return std::nullopt;
}

std::optional<SimTime> ArrivalProcess::trace_current() const {
  const std::vector<SimTime>& v = *spec_->instants;
  if (row_ >= v.size()) return std::nullopt;
  const __int128 at = __int128(v[row_].count_ns()) + __int128(cycle_) * spec_->period.count_ns() -
                      offset_.count_ns();
  if (at >= kNever.count_ns()) return std::nullopt;
  return SimTime::from_ns(int64_t(at));
}

std::optional<SimTime> ArrivalProcess::first(Rng& rng) {
  switch (spec_->kind) {
    case ArrivalProcessSpec::Kind::mmpp2: {
      const double m0 = spec_->mean_sojourn_s[0], m1 = spec_->mean_sojourn_s[1];
      state_ = rng.uniform01() < m0 / (m0 + m1) ? 0 : 1;
      return mmpp_next(SimTime::zero(), rng);
    }
    case ArrivalProcessSpec::Kind::batch_poisson:
      batch_left_ = 0;
      return next(SimTime::zero(), rng);
    case ArrivalProcessSpec::Kind::trace: {
      // The first row at or after the node's offset (in cycle 0, else cycle 1 when looping).
      const std::vector<SimTime>& v = *spec_->instants;
      const SimTime start = SimTime::zero() + offset_;
      row_ = size_t(std::lower_bound(v.begin(), v.end(), start) - v.begin());
      cycle_ = 0;
      if (row_ >= v.size() && spec_->loop) {
        row_ = 0;
        cycle_ = 1;
      }
      return trace_current();
    }
  }
  return std::nullopt;
}

std::optional<SimTime> ArrivalProcess::next(SimTime now, Rng& rng) {
  switch (spec_->kind) {
    case ArrivalProcessSpec::Kind::mmpp2: return mmpp_next(now, rng);
    case ArrivalProcessSpec::Kind::batch_poisson: {
      if (batch_left_ > 0) {
        --batch_left_;
        return now;
      }
      const SimTime at = now + random_duration_s(rng.exponential(spec_->batch_rate_per_s));
      if (at >= kNever) return std::nullopt;
      batch_left_ = spec_->batch.draw(rng) - 1;
      return at;
    }
    case ArrivalProcessSpec::Kind::trace: {
      ++row_;
      if (row_ >= spec_->instants->size() && spec_->loop) {
        row_ = 0;
        ++cycle_;
      }
      return trace_current();
    }
  }
  return std::nullopt;
}

}  // namespace fdsim::loadsharing
