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
#include "sim/cli/cost_options.h"
#include "sim/cli/explain_layout.h"
#include "sim/cli/input_files.h"
#include "sim/cli/script_input.h"
#include "sim/run/scenario_loader.h"
#include "sim/run/scenario_warnings.h"

namespace fdsim::cli {

namespace {

// `summary` receives the cost estimate of a valid scenario (sim/scenario/cost_estimate.h),
// `warnings` its warnings (sim/run/scenario_warnings.h).
std::vector<std::string> validate_one(const std::string& path,
                                      const std::vector<Override>& overrides,
                                      std::string* summary, std::vector<std::string>* warnings) {
  InputFile in = read_input_file(path);
  if (!in.problems.empty()) return in.problems;
  if (in.is_sweep) {
    if (!overrides.empty())
      return {in.source + ": --set changes scenarios; vary a sweep's base with its axes"};
    return path == kStdinName ? validate_sweep_document(in.doc, in.source, summary)
                              : validate_sweep_file(path, summary);
  }
  if (auto bad = apply_overrides(overrides, in.doc, in.source); !bad.empty()) return bad;
  run::LoadResult load = run::load_scenario_json(in.doc, in.source, run::directory_of(in.source));
  if (load.ok()) {
    *summary = scenario::cost_summary(load.scenario->cost, load.scenario->cost.total_events());
    *warnings = run::scenario_warnings(*load.scenario);
  }
  return load.problems;
}

struct ValidateArgs {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  bool quiet = false;
};

struct ExplainArgs {
  std::string file;
  std::vector<std::string> sets;
};

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* sub =
      app.add_subcommand("validate", "Check scenario and sweep files; report every problem");
  sub->add_option("files", args->files, "Scenario or sweep files (JSON); - reads standard input")
      ->required();
  sub->add_option("--set", args->sets, kSetOptionHelp)->allow_extra_args(false);
  sub->add_flag("--quiet", args->quiet, "Do not print \"<file>: ok\" for valid files");
  auto cost = std::make_shared<CostArgs>();
  add_cost_options(sub, cost);
  sub->footer(
      "Prints one line per problem on stderr (\"x.json: $.faults[2].at_s: expected a number "
      ">= 0, got -5\") and exits with 2 if any file has a problem; a valid scenario prints\n"
      "\"x.json: ok, about 12 MB per simulation and 3.4e+06 events (limits ...)\", its cost\n"
      "estimate (docs/scenario-format.md, Cost estimate); a valid sweep prints the memory of\n"
      "its costliest point's simulation and the events of all its runs. A valid scenario that\n"
      "probably does not model what was meant gets \"x.json: warning: <path>: ...\" lines on\n"
      "stderr (exit 0): a Geode membership whose single locator can crash.\n"
      "Examples:\n"
      "  fdsim validate scenarios/examples/heartbeat-study.json\n"
      "  fdsim validate scenarios/examples/*.json scenarios/sweeps/*.json\n"
      "  fdsim validate scenarios/examples/geode-ring.json --set '$.network.loss=0.2'\n"
      "  generate-scenario | fdsim validate -\n");
  sub->callback([args, cost, &exit_code] {
    apply_cost_options(*cost);
    std::vector<std::string> problems;
    const std::vector<Override> overrides = parse_overrides(args->sets, &problems);
    if (const std::string twice = stdin_used_twice(args->files); !twice.empty())
      problems.push_back(twice);
    if (!problems.empty()) {
      for (const auto& p : problems) std::cerr << p << "\n";
      exit_code = kExitBadInput;
      return;
    }
    bool any = false;
    for (const auto& f : args->files) {
      std::string summary;
      std::vector<std::string> warnings;
      const std::vector<std::string> problems = validate_one(f, overrides, &summary, &warnings);
      for (const auto& p : problems) std::cerr << p << "\n";
      if (!problems.empty()) {
        any = true;
      } else if (!args->quiet) {
        std::cout << (f == kStdinName ? kStdinSource : f) << ": ok"
                  << (summary.empty() ? "" : ", " + summary) << "\n";
      }
      for (const auto& w : warnings)
        std::cerr << (f == kStdinName ? kStdinSource : f) << ": warning: " << w << "\n";
    }
    exit_code = any ? kExitBadInput : kExitOk;
  });
}

void add_explain_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* sub = app.add_subcommand(
      "explain", "Print the resolved configuration of a scenario, with every default");
  sub->add_option("scenario", args->file, "Scenario file (JSON); - reads standard input")
      ->required();
  sub->add_option("--set", args->sets, kSetOptionHelp)->allow_extra_args(false);
  sub->footer(
      "The output is the \"resolved_config\" that goes into the result manifest, in the\n"
      "order of the scenario file (defaults the file leaves out follow, sorted), with\n"
      "node sets of consecutive nodes written {\"from\": a, \"to\": b}. It is itself a\n"
      "valid scenario that resolves to the same configuration.\n"
      "Examples:\n"
      "  fdsim explain scenarios/examples/geode-ring.json\n"
      "  fdsim explain scenarios/examples/load-sharing.json > resolved.json\n"
      "  fdsim explain scenarios/examples/load-sharing.json --set '$.load_sharing.nodes=32'\n");
  sub->callback([args, &exit_code] {
    std::vector<std::string> problems;
    const std::vector<Override> overrides = parse_overrides(args->sets, &problems);
    InputFile in;
    if (problems.empty()) {
      in = read_input_file(args->file);
      problems = in.problems;
    }
    if (problems.empty() && in.is_sweep)
      problems.push_back(in.source + ": is a sweep file; explain works on scenario files");
    if (problems.empty()) problems = apply_overrides(overrides, in.doc, in.source);
    run::LoadResult load;
    if (problems.empty()) {
      load = run::load_scenario_json(in.doc, in.source, run::directory_of(in.source));
      problems = load.problems;
    }
    if (!problems.empty()) {
      for (const auto& p : problems) std::cerr << p << "\n";
      exit_code = kExitBadInput;
      return;
    }
    // The file's key order: read it again as an ordered document (it has just been parsed
    // under the JSON limits, so this parse is safe); without it, byte order.
    std::ostringstream text;
    if (args->file == kStdinName) {
      text << in.stdin_text;
    } else {
      std::ifstream file(args->file, std::ios::binary);
      text << file.rdbuf();
    }
    const nlohmann::ordered_json original =
        nlohmann::ordered_json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    std::cout << explain_layout(load.scenario->resolved, original.is_discarded() ? nullptr : &original)
                     .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace fdsim::cli
