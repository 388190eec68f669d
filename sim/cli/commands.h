#pragma once
// The fdsim subcommands written by sim/cli (run, validate, explain, trace, timeout, export).
// Each add_* call registers one subcommand on `app`; its callback stores the process exit
// code in `exit_code`: 0 success, 2 bad input (one line per problem on stderr), 1 internal error.
// (`sweep` and `merge` come from cmd_sweep.h, owned by the sweep helper.)

#include <CLI/CLI.hpp>

namespace fdsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

void add_run_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);
// `timeout`: the Hou-Shin T_out, E[W] and S(t) for given parameters (cmd_timeout.cpp).
void add_timeout_command(CLI::App& app, int& exit_code);
// `schema`: the JSON Schema of scenarios or sweeps, or the format reference tables.
void add_schema_command(CLI::App& app, int& exit_code);
// `export`: a sweep output directory as one tidy table (cmd_export.cpp).
void add_export_command(CLI::App& app, int& exit_code);

}  // namespace fdsim::cli
