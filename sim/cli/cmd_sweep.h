#pragma once
// `fdsim sweep` and `fdsim merge`, and the sweep-file hooks of `fdsim validate`.
// The commands themselves live in sim/sweep/commands.h; this file only wires them to CLI11
// and to the real run layer. Exit codes: 0 ok, 2 bad input, 3 some runs failed (or missing
// from a merge), 1 internal error: a subcommand that does not succeed throws
// CLI::RuntimeError(code), which CLI11_PARSE / app.exit() turn into that exit code.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace fdsim::cli {

// Registers the `sweep` and `merge` subcommands on `app`.
void add_sweep_commands(CLI::App& app);

// True if `doc` is a sweep file (an object with "base" or "axes") rather than a scenario.
bool is_sweep_file(const nlohmann::json& doc);

// Every problem of a sweep file and of the scenario of each of its points, one line each
// ("sweeps/x.json: $.axes[1].path: ..."); empty if valid. A valid sweep's cost estimate goes
// to `summary` (sweep::plan_cost_summary).
std::vector<std::string> validate_sweep_file(const std::string& path, std::string* summary);
// The same for a sweep document already read (standard input); `source` names it.
std::vector<std::string> validate_sweep_document(const nlohmann::json& doc, const std::string& source,
                                                 std::string* summary);

}  // namespace fdsim::cli
