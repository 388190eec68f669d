#include "models/metrics/kaplan_meier.h"

#include <algorithm>
#include <limits>

namespace fdsim::metrics {

KaplanMeier::KaplanMeier(std::vector<double> events, std::vector<double> censored) {
  empty_ = events.empty() && censored.empty();
  std::sort(events.begin(), events.end());
  std::sort(censored.begin(), censored.end());
  size_t at_risk = events.size() + censored.size();
  size_t e = 0, c = 0;
  double s = 1.0;
  while (e < events.size()) {
    const double t = events[e];
    // Durations censored strictly before t leave the risk set first.
    while (c < censored.size() && censored[c] < t) {
      --at_risk;
      ++c;
    }
    size_t d = 0;
    while (e < events.size() && events[e] == t) {
      ++d;
      ++e;
    }
    s *= 1.0 - double(d) / double(at_risk);
    at_risk -= d;
    times_.push_back(t);
    surv_.push_back(s);
  }
}

double KaplanMeier::survival(double t) const {
  if (empty_) return std::numeric_limits<double>::quiet_NaN();
  // Last event time <= t.
  const auto it = std::upper_bound(times_.begin(), times_.end(), t);
  if (it == times_.begin()) return 1.0;
  return surv_[size_t(it - times_.begin()) - 1];
}

double KaplanMeier::median() const {
  for (size_t i = 0; i < times_.size(); ++i)
    if (surv_[i] <= 0.5) return times_[i];
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace fdsim::metrics
