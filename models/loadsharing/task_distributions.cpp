#include "models/loadsharing/task_distributions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fdsim::loadsharing {

namespace {
Duration capped_seconds(double s) { return Duration::from_seconds(std::min(s, kMaxDrawSeconds)); }
}  // namespace

Duration ExecTimeDistribution::draw(Rng& rng) const {
  switch (law) {
    case ExecLaw::exponential:
      return capped_seconds(rng.exponential(rate_per_s));
    case ExecLaw::deterministic:
      return capped_seconds(value_s);
    case ExecLaw::uniform:
      return capped_seconds(rng.uniform(min_s, max_s));
    case ExecLaw::lognormal: {
      // Parameterised by the mean: E = exp(m + sigma^2 / 2).
      const double m = std::log(mean_s_param) - 0.5 * sigma * sigma;
      return capped_seconds(rng.lognormal(m, sigma));
    }
    case ExecLaw::empirical: {
      const int64_t k = rng.uniform_int(0, int64_t(samples_s.size()) - 1);
      return capped_seconds(samples_s[size_t(k)]);
    }
  }
  return Duration::zero();
}

double ExecTimeDistribution::mean_s() const {
  switch (law) {
    case ExecLaw::exponential:
      return 1.0 / rate_per_s;
    case ExecLaw::deterministic:
      return value_s;
    case ExecLaw::uniform:
      return 0.5 * (min_s + max_s);
    case ExecLaw::lognormal:
      return mean_s_param;
    case ExecLaw::empirical: {
      double s = 0;
      for (double x : samples_s) s += x;
      return samples_s.empty() ? 0.0 : s / double(samples_s.size());
    }
  }
  return 0;
}

std::string ExecTimeDistribution::describe() const {
  char buf[96];
  switch (law) {
    case ExecLaw::exponential:
      std::snprintf(buf, sizeof buf, "exponential(rate %g/s)", rate_per_s);
      break;
    case ExecLaw::deterministic:
      std::snprintf(buf, sizeof buf, "deterministic(%g s)", value_s);
      break;
    case ExecLaw::uniform:
      std::snprintf(buf, sizeof buf, "uniform(%g s, %g s)", min_s, max_s);
      break;
    case ExecLaw::lognormal:
      std::snprintf(buf, sizeof buf, "lognormal(mean %g s, sigma %g)", mean_s_param, sigma);
      break;
    case ExecLaw::empirical:
      std::snprintf(buf, sizeof buf, "empirical(%zu samples)", samples_s.size());
      break;
  }
  return buf;
}

Duration DeadlineDistribution::draw_relative(Rng& rng, Duration exec) const {
  switch (rule) {
    case DeadlineRule::fixed:
      return capped_seconds(relative_s);
    case DeadlineRule::uniform:
      return capped_seconds(rng.uniform(min_s, max_s));
    case DeadlineRule::laxity:
      return capped_seconds(factor * exec.seconds());
  }
  return Duration::zero();
}

}  // namespace fdsim::loadsharing
