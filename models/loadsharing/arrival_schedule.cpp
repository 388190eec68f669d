#include "models/loadsharing/arrival_schedule.h"
#include "sim/engine/internal_error.h"

#include <cstdio>
#include <cstdlib>

namespace fdsim::loadsharing {

namespace {
constexpr double kMaxGapSeconds = 1e9;
}  // namespace

ArrivalSchedule::ArrivalSchedule(std::vector<RatePhase> phases) : phases_(std::move(phases)) {
  bool ok = !phases_.empty() && phases_.front().from == SimTime::zero();
  for (size_t k = 1; ok && k < phases_.size(); ++k) ok = phases_[k - 1].from <= phases_[k].from;
  for (const RatePhase& p : phases_) ok = ok && p.rate_per_s >= 0;
  if (!ok) {
    fdsim::internal_error("fdsim: internal error: malformed arrival schedule (%zu phases)\n",
                 phases_.size());
  }
}

double ArrivalSchedule::rate_at(SimTime t) const {
  double r = 0;
  for (const RatePhase& p : phases_) {
    if (p.from > t) break;
    r = p.rate_per_s;
  }
  return r;
}

std::optional<SimTime> ArrivalSchedule::next_after(SimTime t, double exp1) const {
  // Index of the phase in force at t (the last one with from <= t).
  size_t k = 0;
  while (k + 1 < phases_.size() && phases_[k + 1].from <= t) ++k;
  double remaining = exp1;  // intensity still to accumulate
  SimTime at = t;
  for (; k < phases_.size(); ++k) {
    const double rate = phases_[k].rate_per_s;
    const bool last = k + 1 == phases_.size();
    if (last) {
      // A gap beyond kMaxGapSeconds (about 31 years) means "no more arrivals".
      if (rate <= 0 || remaining / rate > kMaxGapSeconds) return std::nullopt;
      return at + Duration::from_seconds(remaining / rate);
    }
    const SimTime end = phases_[k + 1].from;
    const double span_s = (end - at).seconds();
    if (rate > 0 && rate * span_s >= remaining)
      return at + Duration::from_seconds(remaining / rate);
    remaining -= rate * span_s;
    at = end;
  }
  return std::nullopt;
}

}  // namespace fdsim::loadsharing
