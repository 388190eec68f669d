// fdsim validate FILE... : every problem of every file, one line each; exit 2 if any.
// fdsim explain SCENARIO : the resolved configuration, every default written in, in the
// scenario file's order with node sets written compactly (explain_layout.h).

#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/cmd_sweep.h"
#include "sim/cli/commands.h"
#include "sim/cli/explain_layout.h"
#include "sim/cli/input_files.h"
#include "sim/run/scenario_loader.h"

namespace fdsim::cli {

namespace {

std::vector<std::string> validate_one(const std::string& path) {
  InputFile in = read_input_file(path);
  if (!in.problems.empty()) return in.problems;
  if (in.is_sweep) {
    return validate_sweep_file(path);
  }
  return run::load_scenario_json(in.doc, path, run::directory_of(path)).problems;
}

struct ValidateArgs {
  std::vector<std::string> files;
  bool quiet = false;
};

struct ExplainArgs {
  std::string file;
};

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* sub =
      app.add_subcommand("validate", "Check scenario and sweep files; report every problem");
  sub->add_option("files", args->files, "Scenario or sweep files (JSON)")->required();
  sub->add_flag("--quiet", args->quiet, "Do not print \"<file>: ok\" for valid files");
  sub->footer(
      "Prints one line per problem on stderr (\"x.json: $.faults[2].at_s: expected a number "
      ">= 0, got -5\") and exits with 2 if any file has a problem.\n"
      "Examples:\n"
      "  fdsim validate scenarios/examples/heartbeat-study.json\n"
      "  fdsim validate scenarios/examples/*.json scenarios/sweeps/*.json\n");
  sub->callback([args, &exit_code] {
    bool any = false;
    for (const auto& f : args->files) {
      const std::vector<std::string> problems = validate_one(f);
      for (const auto& p : problems) std::cerr << p << "\n";
      if (!problems.empty()) {
        any = true;
      } else if (!args->quiet) {
        std::cout << f << ": ok\n";
      }
    }
    exit_code = any ? kExitBadInput : kExitOk;
  });
}

void add_explain_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* sub = app.add_subcommand(
      "explain", "Print the resolved configuration of a scenario, with every default");
  sub->add_option("scenario", args->file, "Scenario file (JSON)")->required();
  sub->footer(
      "The output is the \"resolved_config\" that goes into the result manifest, in the\n"
      "order of the scenario file (defaults the file leaves out follow, sorted), with\n"
      "node sets of consecutive nodes written {\"from\": a, \"to\": b}. It is itself a\n"
      "valid scenario that resolves to the same configuration.\n"
      "Examples:\n"
      "  fdsim explain scenarios/examples/geode-ring.json\n"
      "  fdsim explain scenarios/examples/load-sharing.json > resolved.json\n");
  sub->callback([args, &exit_code] {
    InputFile in = read_input_file(args->file);
    std::vector<std::string> problems = in.problems;
    if (problems.empty() && in.is_sweep)
      problems.push_back(args->file + ": is a sweep file; explain works on scenario files");
    run::LoadResult load;
    if (problems.empty()) {
      load = run::load_scenario_json(in.doc, args->file, run::directory_of(args->file));
      problems = load.problems;
    }
    if (!problems.empty()) {
      for (const auto& p : problems) std::cerr << p << "\n";
      exit_code = kExitBadInput;
      return;
    }
    // The file's key order: read it again as an ordered document (it has just been parsed
    // under the JSON limits, so this parse is safe); without it, byte order.
    std::ifstream file(args->file, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    const nlohmann::ordered_json original =
        nlohmann::ordered_json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    std::cout << explain_layout(load.scenario->resolved, original.is_discarded() ? nullptr : &original)
                     .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace fdsim::cli
