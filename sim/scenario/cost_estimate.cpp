#include "sim/scenario/cost_estimate.h"

#include <cmath>
#include <cstdio>

#include "sim/engine/budget.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::scenario {

namespace {
CostLimits g_limits;

bool within(double v, double limit) { return std::isfinite(v) && v >= 0 && v <= limit; }

std::string events_text(double v) { return std::isfinite(v) ? rate_text(v) : "inf"; }

std::string limits_text() {
  return bytes_text(cost_limits().memory_bytes) + " / " + rate_text(cost_limits().events) +
         " events";
}
}  // namespace

const CostLimits& cost_limits() { return g_limits; }
void set_cost_limits(const CostLimits& limits) { g_limits = limits; }

std::string bytes_text(double bytes) {
  // The engine's budget messages print bytes the same way (sim/engine/budget.h).
  return std::isfinite(bytes) ? budget_bytes_text(bytes) : "inf GB";
}

void add_memory(CostEstimate& c, std::string path, double bytes, std::string_view formula) {
  if (!(bytes > 0)) {
    if (std::isnan(bytes)) c.memory_bytes = bytes;
    return;
  }
  c.memory_bytes += bytes;
  if (!(bytes <= c.memory_largest)) {
    c.memory_largest = bytes;
    c.memory_path = std::move(path);
    c.memory_formula = std::string(formula);
  }
}

void add_memory(ObjectReader& r, std::string_view key, double bytes, std::string_view formula) {
  if (CostEstimate* c = r.diagnostics().cost)
    add_memory(*c, key.empty() ? r.path() : r.child_path(key), bytes, formula);
}

void add_stored_rate(ObjectReader& r, std::string_view key, double bytes_per_s,
                     std::string_view formula) {
  CostEstimate* c = r.diagnostics().cost;
  if (c == nullptr || !(bytes_per_s > 0)) return;
  if (c->stored_path.empty()) {
    c->stored_path = key.empty() ? r.path() : r.child_path(key);
    c->stored_formula = std::string(formula);
  }
  c->stored_bytes_per_s += bytes_per_s;
}

namespace {
// Events and charged work units both count against the work budget; `rate` is the total the
// amount adds to (events_per_s or work_per_s), and the largest single source of either names
// the path a refusal points at.
void add_rate(ObjectReader& r, std::string_view key, double per_s, double CostEstimate::*rate) {
  CostEstimate* c = r.diagnostics().cost;
  if (c == nullptr || !(per_s > 0)) return;
  c->*rate += per_s;
  if (!(per_s <= c->events_largest)) {
    c->events_largest = per_s;
    c->events_path = key.empty() ? r.path() : r.child_path(key);
  }
}
}  // namespace

void add_event_rate(ObjectReader& r, std::string_view key, double events_per_s) {
  add_rate(r, key, events_per_s, &CostEstimate::events_per_s);
}

void add_work_rate(ObjectReader& r, std::string_view key, double units_per_s) {
  add_rate(r, key, units_per_s, &CostEstimate::work_per_s);
}

bool refuse_memory(ObjectReader& r, std::string_view key, double bytes, std::string_view formula) {
  if (within(bytes, cost_limits().memory_bytes)) return false;
  r.error(key, "needs about " + bytes_text(bytes) + " (" + std::string(formula) +
                   "); the limit is " + limits_text() +
                   " (raise with --max-memory-gb / --max-events)");
  return true;
}

std::string cost_refusal(const CostEstimate& c, double total_events) {
  const bool memory_ok = within(c.memory_bytes, cost_limits().memory_bytes);
  const bool events_ok = within(total_events, cost_limits().events);
  if (memory_ok && events_ok) return "";
  std::string why;
  if (!memory_ok && !c.memory_formula.empty())
    why = "; the largest term is " + bytes_text(c.memory_largest) + " (" + c.memory_formula + ")";
  if (!events_ok && memory_ok && !c.events_path.empty())
    why = "; the busiest source is " + c.events_path + " at " + events_text(c.events_largest) +
          " events per simulated second, over " + rate_text(c.horizon_s) + " s x " +
          rate_text(c.simulations) + " simulations x " + rate_text(c.replications) +
          " replications";
  return "needs about " + bytes_text(c.memory_bytes) + " and " + events_text(total_events) +
         " events; the limit is " + limits_text() +
         " (raise with --max-memory-gb / --max-events)" + why;
}

std::string cost_summary(const CostEstimate& c, double total_events) {
  return "about " + bytes_text(c.memory_bytes) + " per simulation and " +
         events_text(total_events) + " events (limits " + limits_text() + ")";
}

}  // namespace fdsim::scenario
