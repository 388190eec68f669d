// fdsim run SCENARIO... : validate every scenario first (nothing runs and nothing is written if
// any has a problem), then run every replication of every scenario and write one result file
// per (scenario, seed, replication).

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/input_files.h"
#include "sim/cli/progress_line.h"
#include "sim/cli/summary.h"
#include "sim/run/result_writer.h"
#include "sim/run/run.h"
#include "sim/run/scenario_loader.h"

namespace fdsim::cli {

namespace {

struct RunArgs {
  std::vector<std::string> files;
  uint64_t seed = 0;
  int64_t replications = 0;
  std::string out_dir = "out";
  bool trace = false;
  bool quiet = false;
  bool progress = false;
  CLI::Option* seed_opt = nullptr;
  CLI::Option* replications_opt = nullptr;
};

struct Loaded {
  std::string path;
  nlohmann::json doc;  // with the seed override applied
  std::shared_ptr<const run::Scenario> scenario;
};

int run_command(const RunArgs& args) {
  // 1. Validate everything before running anything.
  std::vector<Loaded> loaded;
  std::vector<std::string> problems;
  for (const auto& path : args.files) {
    InputFile in = read_input_file(path);
    if (!in.problems.empty()) {
      problems.insert(problems.end(), in.problems.begin(), in.problems.end());
      continue;
    }
    if (in.is_sweep) {
      problems.push_back(path + ": is a sweep file; run it with: fdsim sweep " + path);
      continue;
    }
    if (*args.seed_opt && in.doc.is_object()) in.doc["seed"] = args.seed;
    run::LoadResult load = run::load_scenario_json(in.doc, path, run::directory_of(path));
    if (!load.ok()) {
      problems.insert(problems.end(), load.problems.begin(), load.problems.end());
      continue;
    }
    loaded.push_back({path, std::move(in.doc), load.scenario});
  }
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  std::error_code ec;
  std::filesystem::create_directories(args.out_dir, ec);
  if (ec || !std::filesystem::is_directory(args.out_dir)) {
    std::cerr << args.out_dir << ": cannot create the output directory"
              << (ec ? " (" + ec.message() + ")" : std::string()) << "\n";
    return kExitBadInput;
  }

  // 2. Run.
  ProgressLine progress(args.quiet, args.progress);
  int code = kExitOk;
  for (const auto& l : loaded) {
    const int64_t reps = *args.replications_opt ? args.replications : l.scenario->top.replications;
    for (int64_t rep = 0; rep < reps; ++rep) {
      run::RunOptions opts;
      opts.trace = args.trace;
      if (progress.enabled()) {
        opts.progress_info = [&progress](const run::ProgressInfo& p) { progress.update(p); };
      }
      progress.begin(l.path + " rep " + std::to_string(rep));
      run::RunOutcome outcome = run::execute(l.doc, l.path, uint64_t(rep), opts);
      progress.end();
      if (!outcome.ok) {
        for (const auto& p : outcome.problems) std::cerr << p << "\n";
        if (!outcome.internal_error.empty()) {
          std::cerr << l.path << ": internal error in replication " << rep << ": "
                    << outcome.internal_error << "\n";
          code = kExitInternal;
        } else if (code == kExitOk) {
          code = kExitBadInput;
        }
        continue;
      }
      const bool trace = args.trace || l.scenario->top.output.trace;
      run::WrittenRun w = run::write_run_files(args.out_dir, outcome.result, outcome.run_stats,
                                               trace ? &outcome.trace_lines : nullptr);
      if (!w.error.empty()) {
        std::cerr << w.error << "\n";
        code = kExitInternal;
        continue;
      }
      if (!args.quiet) {
        std::cout << "wrote " << w.result_path;
        if (!w.trace_path.empty()) std::cout << " and " << w.trace_path;
        std::cout << "\n";
        const auto& m = outcome.result["metrics"];
        for (const auto& arm : outcome.result["manifest"]["arm_order"]) {
          const std::string name = arm.get<std::string>();
          std::cout << "  " << name << ": " << headline_metrics(m[name]) << "\n";
        }
      }
    }
  }
  return code;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run scenarios and write one result file per replication");
  sub->add_option("scenarios", args->files, "Scenario files (JSON)")->required();
  args->seed_opt = sub->add_option("--seed", args->seed, "Override the scenario's seed");
  args->replications_opt =
      sub->add_option("--replications", args->replications,
                      "Override the number of replications (runs replications 0..R-1)")
          ->check(CLI::Range(int64_t(1), int64_t(1000000)));
  sub->add_option("--out", args->out_dir, "Output directory (created if needed)")
      ->capture_default_str();
  sub->add_flag("--trace", args->trace,
                "Also write the protocol-event trace <name>-seed<S>-rep<R>.trace.jsonl");
  sub->add_flag("--quiet", args->quiet, "Print nothing but errors");
  sub->add_flag("--progress", args->progress,
                "Show progress even when stderr is not a terminal");
  sub->footer(
      "Result files: OUT/<scenario name>-seed<seed>-rep<r>.json (the manifest, the metrics per "
      "arm, and \"run_stats\", the only machine-dependent part).\n"
      "Nothing is run and nothing is written if any scenario has a problem (exit code 2).\n"
      "Examples:\n"
      "  fdsim run scenarios/examples/heartbeat-study.json\n"
      "  fdsim run scenarios/examples/*.json --out out/examples --quiet\n"
      "  fdsim run scenarios/examples/geode-ring.json --seed 7 --replications 5 --trace\n");
  sub->callback([args, &exit_code] { exit_code = run_command(*args); });
}

}  // namespace fdsim::cli
