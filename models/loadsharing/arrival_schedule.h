#pragma once
// Task arrivals at one node: a Poisson process whose rate is piecewise constant in time
// (the load phases of the scenario).
//
// Contract: next_after(t, e) maps one Exp(1) variate e to the next arrival after t by inverting
// the cumulative intensity Lambda(t) = integral of the rate, so that feeding i.i.d. Exp(1)
// variates gives exactly the non-homogeneous Poisson process with this rate, one variate per
// arrival (which keeps arrival streams aligned across arms). A phase with rate 0 produces no
// arrivals; if the last phase has rate 0 the process stops (nullopt). Rates are per second.

#include <optional>
#include <vector>

#include "sim/engine/time.h"

namespace fdsim::loadsharing {

struct RatePhase {
  SimTime from;  // the rate applies from this instant until the next phase
  double rate_per_s = 0;
};

class ArrivalSchedule {
 public:
  ArrivalSchedule() = default;
  // `phases` must be sorted by `from` and start at t = 0 (the constructor aborts otherwise).
  explicit ArrivalSchedule(std::vector<RatePhase> phases);

  std::optional<SimTime> next_after(SimTime t, double exp1) const;
  double rate_at(SimTime t) const;
  const std::vector<RatePhase>& phases() const { return phases_; }

 private:
  std::vector<RatePhase> phases_;
};

}  // namespace fdsim::loadsharing
