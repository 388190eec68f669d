#include "sim/cli/cost_options.h"

#include "sim/scenario/cost_estimate.h"

namespace fdsim::cli {

void add_cost_options(CLI::App* sub, const std::shared_ptr<CostArgs>& args) {
  sub->add_option("--max-memory-gb", args->max_memory_gb,
                  "Refuse a scenario whose estimated memory per simulation exceeds this "
                  "(GB, default 16; docs/scenario-format.md, Cost estimate)")
      ->check(CLI::Range(1e-6, 1e6));
  sub->add_option("--max-events", args->max_events,
                  "Refuse a scenario or sweep whose estimated events in all exceed this "
                  "(default 1e11)")
      ->check(CLI::Range(1.0, 1e18));
}

void apply_cost_options(const CostArgs& args) {
  scenario::CostLimits limits;
  limits.memory_bytes = args.max_memory_gb * 1e9;
  limits.events = args.max_events;
  scenario::set_cost_limits(limits);
}

}  // namespace fdsim::cli
