#include "sim/scenario/event_rate.h"

#include <cmath>
#include <cstdio>

#include "sim/scenario/cost_estimate.h"

namespace fdsim::scenario {

std::string rate_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool check_event_rate(ObjectReader& r, std::string_view key, double events_per_s,
                      std::string_view formula) {
  add_event_rate(r, key, events_per_s);  // the total of every source (cost_estimate.h)
  if (std::isfinite(events_per_s) && events_per_s >= 0 &&
      events_per_s <= kMaxEventsPerSimulatedSecond)
    return true;
  const std::string estimate = std::isfinite(events_per_s) ? rate_text(events_per_s) : "inf";
  r.error(key, "would schedule about " + estimate + " events per simulated second (" +
                   std::string(formula) + "); the limit is " +
                   rate_text(kMaxEventsPerSimulatedSecond) +
                   " (docs/scenario-format.md, Limits)");
  return false;
}

bool check_period(ObjectReader& r, std::string_view key, Duration period, double sources,
                  std::string_view sources_text, double per_firing,
                  std::string_view per_firing_text) {
  if (period <= Duration::zero()) return true;
  const double estimate = sources * per_firing / period.seconds();
  std::string formula(sources_text);
  if (!per_firing_text.empty()) formula += " x " + std::string(per_firing_text);
  formula += " / " + std::string(key) + " (" + rate_text(period.millis()) + " ms)";
  return check_event_rate(r, key, estimate, formula);
}

}  // namespace fdsim::scenario
