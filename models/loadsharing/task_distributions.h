#pragma once
// Execution-time laws and relative-deadline rules of the workload (docs/models/load-sharing.md, "Tasks").
//
// Contract: draw() uses only the Rng it is given (the node's "ls.exec" / "ls.deadline" stream),
// and how many variates one call consumes depends only on the law and its parameters (never on
// the simulation state), so the k-th task of a node gets the same attributes in every arm.
// mean_s() is the exact mean of the law (used as the "estimated mean" when schedulers do not
// know execution times, and as a prior). Drawn durations are >= 0 (negative draws cannot occur:
// every law here has non-negative support). Scenario parameters are bounded by kMaxTaskSeconds,
// and every drawn execution time and relative deadline is capped at kMaxDrawSeconds so that a
// heavy tail can never overflow simulated time (a cap no realistic parameter set reaches).

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

inline constexpr double kMaxTaskSeconds = 1e6;  // bound on time parameters of the workload
inline constexpr double kMaxDrawSeconds = 1e9;  // cap on a drawn execution time or deadline

enum class ExecLaw : uint8_t { exponential, deterministic, uniform, lognormal, empirical };

struct ExecTimeDistribution {
  ExecLaw law = ExecLaw::exponential;
  double rate_per_s = 1.0;        // exponential
  double value_s = 1.0;           // deterministic
  double min_s = 0, max_s = 0;    // uniform
  double mean_s_param = 1.0;      // lognormal: mean of the law
  double sigma = 0.5;             // lognormal: sd of the log
  std::vector<double> samples_s;  // empirical: drawn uniformly

  Duration draw(Rng& rng) const;
  double mean_s() const;
  std::string describe() const;
};

enum class DeadlineRule : uint8_t { fixed, uniform, laxity };

struct DeadlineDistribution {
  DeadlineRule rule = DeadlineRule::uniform;
  double relative_s = 10.0;          // fixed
  double min_s = 2.0, max_s = 10.0;  // uniform
  double factor = 3.0;               // laxity: relative deadline = factor x execution time

  Duration draw_relative(Rng& rng, Duration exec) const;
};

}  // namespace fdsim::loadsharing
