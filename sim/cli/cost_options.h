#pragma once
// --max-memory-gb and --max-events, the limits of the cost estimate (sim/scenario/
// cost_estimate.h), on `validate`, `run` and `sweep`.
//
// Contract: add_cost_options() registers both options on `sub`; apply_cost_options(), called
// first in the subcommand's callback (before anything is loaded), sets the process-wide limits
// from them (the defaults when absent). The values are checked by CLI11: a positive number
// (memory at most 1e6 GB, events at most 1e18), else exit 2 with CLI11's message.

#include <memory>

#include <CLI/CLI.hpp>

namespace fdsim::cli {

struct CostArgs {
  double max_memory_gb = 16;
  double max_events = 1e11;
  CLI::Option* memory_opt = nullptr;  // set by add_cost_options (was the option given?)
  CLI::Option* events_opt = nullptr;
};

void add_cost_options(CLI::App* sub, const std::shared_ptr<CostArgs>& args);
void apply_cost_options(const CostArgs& args);

}  // namespace fdsim::cli
