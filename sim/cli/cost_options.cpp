#include "sim/cli/cost_options.h"

#include "sim/scenario/cost_estimate.h"

namespace fdsim::cli {

void add_cost_options(CLI::App* sub, const std::shared_ptr<CostArgs>& args) {
  args->memory_opt =
      sub->add_option("--max-memory-gb", args->max_memory_gb,
                      "Memory limit per simulation, GB (default 16). Validation refuses a "
                      "scenario estimated above it; when given, it is also every simulation's "
                      "run budget (by default the budget is 2 x the estimate + 64 MB, capped by "
                      "this limit and by the environment's address-space or cgroup limit; "
                      "docs/scenario-format.md, Run budgets)")
          ->check(CLI::Range(1e-6, 1e6));
  args->events_opt =
      sub->add_option("--max-events", args->max_events,
                      "Event limit (default 1e11). Validation refuses a scenario or sweep "
                      "estimated above it in all; when given, it is also every simulation's work "
                      "budget (events plus work inside events; by default 2 x the estimate + "
                      "1e6)")
          ->check(CLI::Range(1.0, 1e18));
}

void apply_cost_options(const CostArgs& args) {
  scenario::CostLimits limits;
  limits.memory_bytes = args.max_memory_gb * 1e9;
  limits.events = args.max_events;
  limits.memory_explicit = args.memory_opt != nullptr && args.memory_opt->count() > 0;
  limits.events_explicit = args.events_opt != nullptr && args.events_opt->count() > 0;
  scenario::set_cost_limits(limits);
}

}  // namespace fdsim::cli
