// fdsim: the command line. Subcommands: run, validate, explain, trace, timeout, export, schema
// (sim/cli) and sweep, merge (sim/cli/cmd_sweep.h). Exit codes: 0 ok, 2 bad input (including
// command-line errors, reported on one line), 1 internal error, 3 some sweep runs failed.

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/engine/budget.h"
#include "sim/engine/interrupt.h"
#include "sim/run/run_budget.h"
#include "sim/cli/cmd_sweep.h"
#include "sim/cli/commands.h"
#include "sim/cli/huge_pages.h"
#include "sim/cli/out_of_memory.h"
#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION

int main(int argc, char** argv) {
  fdsim::cli::use_huge_pages_for_malloc(argc, argv);  // may re-execute this process once
  fdsim::install_signal_handlers();  // SIGINT/SIGTERM: clean stop; SIGXFSZ: write errors
  fdsim::cli::install_out_of_memory_handler();  // exit 2 with one line, never bad_alloc
  // The command's own memory budget (validate, a sweep's planning, the readers): its share of
  // the environment's limit (sim/run/run_budget.h); each simulation runs under its own.
  fdsim::BudgetLimits command_limits;
  command_limits.memory_bytes = fdsim::run::environment_share_bytes();
  command_limits.memory_origin = "the environment's share: 3/4 of the address-space or cgroup room";
  fdsim::RunBudget command_budget(nullptr, command_limits, {});
  CLI::App app{"fdsim " FDSIM_VERSION
               ": a deterministic discrete-event simulator for failure detection and load "
               "sharing research.",
               "fdsim"};
  app.set_version_flag("--version", std::string("fdsim ") + FDSIM_VERSION + " (git " +
                                        FDSIM_GIT_REVISION + ")");
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  fdsim run scenarios/examples/geode/crashed-member.json --out out/\n"
      "  fdsim validate scenarios/examples/*.json scenarios/sweeps/*.json\n"
      "  fdsim explain scenarios/examples/geode/crashed-member.json\n"
      "  fdsim sweep scenarios/sweeps/timeout-grid.json -j 4 --out out/grid\n"
      "  fdsim export out/grid --format csv   (one row per run, arm and metric)\n"
      "  fdsim trace out/geode-ring-seed3-rep0.trace.jsonl --plantuml --arm fixed\n"
      "  fdsim schema scenario > scenario.schema.json\n"
      "  fdsim timeout --lambda 0.8 --mu 1 --region U --state 1 --alpha 0.05 --json\n"
      "  fdsim COMMAND --help   (the options and examples of one command)\n"
      "Exit codes: 0 ok, 2 bad input, 1 internal error, 3 some sweep runs failed.\n");

  int exit_code = fdsim::cli::kExitOk;
  fdsim::cli::add_run_command(app, exit_code);
  fdsim::cli::add_validate_command(app, exit_code);
  fdsim::cli::add_explain_command(app, exit_code);
  fdsim::cli::add_trace_command(app, exit_code);
  fdsim::cli::add_timeout_command(app, exit_code);
  fdsim::cli::add_schema_command(app, exit_code);
  fdsim::cli::add_sweep_commands(app);
  fdsim::cli::add_export_command(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    // A subcommand callback asking for a given exit code (CLI11's convention).
    if (std::string(e.what()).size() > 0 && std::string(e.what()) != "Runtime error")
      std::cerr << "fdsim: " << e.what() << "\n";
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    std::cerr << "fdsim: error: " << e.what() << " (see fdsim --help)\n";
    return fdsim::cli::kExitBadInput;
  } catch (const fdsim::BudgetExceeded& e) {
    std::cerr << "fdsim: " << e.what() << "\n";
    return fdsim::cli::kExitBadInput;
  } catch (const fdsim::Interrupted&) {
    // A command with no line of its own (validate, a sweep's planning, trace): one line.
    std::cerr << "fdsim: interrupted by "
              << (fdsim::interrupt_signal() == SIGINT ? "SIGINT" : "SIGTERM") << "\n";
    return fdsim::interrupt_exit_code();
  } catch (const std::exception& e) {
    std::cerr << "fdsim: internal error: " << e.what() << "\n";
    return fdsim::cli::kExitInternal;
  }
  return exit_code;
}
