// fdsim run SCENARIO... : validate every scenario first (nothing runs and nothing is written if
// any has a problem), then run every replication of every scenario and write one result file
// per (scenario, seed, replication).

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/cost_options.h"
#include "sim/engine/interrupt.h"
#include "sim/cli/input_files.h"
#include "sim/cli/progress_line.h"
#include "sim/cli/script_input.h"
#include "sim/cli/summary.h"
#include "sim/run/result_writer.h"
#include "sim/run/run.h"
#include "sim/run/scenario_loader.h"
#include "sim/run/temp_files.h"

namespace fdsim::cli {

namespace {

struct RunArgs {
  std::vector<std::string> files;
  std::string seed_text;  // parsed strictly by parse_seed (CLI11 would wrap -1 to 2^64 - 1)
  int64_t replications = 0;
  std::string out_dir = "out";
  bool trace = false;
  bool quiet = false;
  bool progress = false;
  bool to_stdout = false;          // --stdout, or --out -
  std::vector<std::string> sets;   // --set PATH=VALUE, in order
  CLI::Option* seed_opt = nullptr;
  CLI::Option* replications_opt = nullptr;
};

struct Loaded {
  std::string path;    // as named on the command line ("-": standard input)
  std::string source;  // for messages and relative data files ("<stdin>" for "-")
  nlohmann::json doc;  // with the --set and seed overrides applied
  std::shared_ptr<const run::Scenario> scenario;
};

// A seed is a decimal integer from 0 to 2^64 - 1, nothing else: no sign, no exponent, no
// wrap-around ("-1" and "18446744073709551616" are errors, not 18446744073709551615).
std::optional<uint64_t> parse_seed(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// --stdout: every result, in the order of the files and replications, as one line of JSON each
// (JSON Lines: the result file's document, run_stats included, written compactly). Nothing else
// goes to stdout; problems and progress go to stderr as usual.
int run_to_stdout(const RunArgs& args, const std::vector<Loaded>& loaded) {
  ProgressLine progress(args.quiet, args.progress);
  int code = kExitOk;
  size_t printed = 0;  // results written to stdout (for the interrupt line)
  for (const auto& l : loaded) {
    const int64_t reps = *args.replications_opt ? args.replications : l.scenario->top.replications;
    for (int64_t rep = 0; rep < reps; ++rep) {
      run::RunOptions opts;
      if (progress.enabled()) {
        opts.progress_info = [&progress](const run::ProgressInfo& p) { progress.update(p); };
      }
      progress.begin(l.source + " rep " + std::to_string(rep));
      run::RunOutcome outcome = run::execute(l.doc, l.source, uint64_t(rep), opts);
      progress.end();
      if (interrupt_signal() != 0) {
        // SIGINT/SIGTERM (sim/engine/interrupt.h): the clean stop of the file-writing path
        // below (exit 130 / 143, one line), not an internal error; results already printed
        // stay on stdout.
        std::cerr << l.path << ": interrupted by "
                  << (interrupt_signal() == SIGINT ? "SIGINT" : "SIGTERM") << " in replication "
                  << rep << ": " << printed << " results printed\n";
        return interrupt_exit_code();
      }
      if (!outcome.ok) {
        for (const auto& p : outcome.problems) std::cerr << p << "\n";
        if (!outcome.internal_error.empty()) {
          std::cerr << l.source << ": internal error in replication " << rep << ": "
                    << outcome.internal_error << "\n";
          code = kExitInternal;
        } else if (code == kExitOk) {
          code = kExitBadInput;
        }
        continue;
      }
      ++printed;
      nlohmann::json doc = outcome.result;
      doc["run_stats"] = outcome.run_stats;
      std::cout << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"
                << std::flush;
      if (!std::cout) {
        std::cerr << "stdout: cannot write the result\n";
        return kExitInternal;
      }
    }
  }
  return code;
}

int run_command(const RunArgs& args_in) {
  RunArgs args = args_in;
  if (args.out_dir == kStdinName) args.to_stdout = true;
  // 1. Validate everything before running anything.
  std::vector<Loaded> loaded;
  std::vector<std::string> problems;
  if (args.to_stdout && args.trace) {
    std::cerr << "--trace: a trace is written into the output directory; with --stdout give "
                 "none, or use --out DIR\n";
    return kExitBadInput;
  }
  if (const std::string twice = stdin_used_twice(args.files); !twice.empty()) {
    std::cerr << twice << "\n";
    return kExitBadInput;
  }
  const std::vector<Override> overrides = parse_overrides(args.sets, &problems);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  uint64_t seed = 0;
  if (*args.seed_opt) {
    const auto parsed = parse_seed(args.seed_text);
    if (!parsed) {
      std::cerr << "--seed: expected an integer from 0 to 18446744073709551615, got \""
                << args.seed_text << "\"\n";
      return kExitBadInput;
    }
    seed = *parsed;
  }
  for (const auto& path : args.files) {
    InputFile in = read_input_file(path);
    if (!in.problems.empty()) {
      problems.insert(problems.end(), in.problems.begin(), in.problems.end());
      continue;
    }
    if (in.is_sweep) {
      problems.push_back(in.source + ": is a sweep file; run it with: fdsim sweep " + path);
      continue;
    }
    if (const auto bad = apply_overrides(overrides, in.doc, in.source); !bad.empty()) {
      problems.insert(problems.end(), bad.begin(), bad.end());
      continue;
    }
    if (*args.seed_opt && in.doc.is_object()) in.doc["seed"] = seed;
    run::LoadResult load = run::load_scenario_json(in.doc, in.source, run::directory_of(in.source));
    if (!load.ok()) {
      problems.insert(problems.end(), load.problems.begin(), load.problems.end());
      continue;
    }
    // --replications changes the command's total events (sim/scenario/cost_estimate.h).
    if (*args.replications_opt) {
      const scenario::CostEstimate& c = load.scenario->cost;
      const std::string refusal =
          scenario::cost_refusal(c, c.events_per_replication() * double(args.replications));
      if (!refusal.empty()) {
        problems.push_back(in.source + ": --replications " + std::to_string(args.replications) +
                           ": " + refusal);
        continue;
      }
    }
    loaded.push_back({path, in.source, std::move(in.doc), load.scenario});
  }
  // Two scenarios that would write the same result file (same name, seed and replication)
  // would silently overwrite each other.
  {
    std::map<std::string, std::string> writer_of;  // result stem -> first scenario path
    for (const auto& l : loaded) {
      const int64_t reps =
          *args.replications_opt ? args.replications : l.scenario->top.replications;
      for (int64_t rep = 0; rep < reps; ++rep) {
        const std::string stem =
            run::result_stem(l.scenario->top.name, l.scenario->top.seed, uint64_t(rep));
        const auto [it, fresh] = writer_of.emplace(stem, l.source);
        if (!fresh) {
          problems.push_back(l.source + ": $.name: \"" + l.scenario->top.name + "\" with seed " +
                             std::to_string(l.scenario->top.seed) + " writes " + stem +
                             ".json, as " + it->second +
                             " does; give the scenarios different names or seeds");
          break;
        }
      }
    }
  }
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  if (args.to_stdout) return run_to_stdout(args, loaded);
  std::error_code ec;
  std::filesystem::create_directories(args.out_dir, ec);
  if (ec || !std::filesystem::is_directory(args.out_dir)) {
    std::cerr << args.out_dir << ": cannot create the output directory"
              << (ec ? " (" + ec.message() + ")" : std::string()) << "\n";
    return kExitBadInput;
  }
  // An output directory that cannot be written is bad input found before any simulation (exit
  // 2, as `fdsim sweep` says of it), not a write error after the first replication.
  {
    const std::string probe =
        (std::filesystem::path(args.out_dir) / (".fdsim-write-probe." + std::to_string(::getpid())))
            .string();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::cerr << args.out_dir << ": cannot write into the output directory ("
                << std::strerror(errno) << ")\n";
      return kExitBadInput;
    }
    ::close(fd);
    ::unlink(probe.c_str());
  }
  // Temporaries of results and traces that a killed `fdsim run` left here (kill -9 during
  // --trace): those of dead processes on this host go (sim/run/temp_files.h).
  run::remove_stale_temporaries(args.out_dir);

  // 2. Run.
  ProgressLine progress(args.quiet, args.progress);
  int code = kExitOk;
  size_t stored = 0;  // result files written (for the interrupt line)
  for (const auto& l : loaded) {
    const int64_t reps = *args.replications_opt ? args.replications : l.scenario->top.replications;
    for (int64_t rep = 0; rep < reps; ++rep) {
      run::RunOptions opts;
      opts.trace = args.trace;
      opts.trace_dir = args.out_dir;  // traces stream to disk (bounded memory)
      if (progress.enabled()) {
        opts.progress_info = [&progress](const run::ProgressInfo& p) { progress.update(p); };
      }
      progress.begin(l.source + " rep " + std::to_string(rep));
      run::RunOutcome outcome = run::execute(l.doc, l.source, uint64_t(rep), opts);
      progress.end();
      if (interrupt_signal() != 0) {
        // SIGINT/SIGTERM (sim/engine/interrupt.h): the run in progress wrote nothing (its
        // trace's temporary file is removed by the trace writer); results already written
        // stay.
        std::cerr << l.path << ": interrupted by "
                  << (interrupt_signal() == SIGINT ? "SIGINT" : "SIGTERM") << " in replication "
                  << rep << ": " << stored << " result files written\n";
        return interrupt_exit_code();
      }
      if (!outcome.ok) {
        for (const auto& p : outcome.problems) std::cerr << p << "\n";
        if (!outcome.internal_error.empty()) {
          std::cerr << l.source << ": internal error in replication " << rep << ": "
                    << outcome.internal_error << "\n";
          code = kExitInternal;
        } else if (code == kExitOk) {
          code = kExitBadInput;
        }
        continue;
      }
      run::WrittenRun w =
          run::write_run_files(args.out_dir, outcome.result, outcome.run_stats, nullptr);
      if (!w.error.empty()) {
        // A write error (full disk, I/O error) ends the command: every later replication
        // would fail the same way after simulating for nothing.
        std::cerr << w.error << "\n";
        return kExitInternal;
      }
      ++stored;
      if (!args.quiet) {
        std::cout << "wrote " << w.result_path;
        if (!outcome.trace_path.empty()) std::cout << " and " << outcome.trace_path;
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
  sub->add_option("scenarios", args->files, "Scenario files (JSON); - reads standard input")
      ->required();
  sub->add_option("--set", args->sets,
kSetOptionHelp)
      ->allow_extra_args(false);
  args->seed_opt = sub->add_option("--seed", args->seed_text,
                                   "Override the scenario's seed (an integer from 0 to 2^64 - 1)");
  args->replications_opt =
      sub->add_option("--replications", args->replications,
                      "Override the number of replications (runs replications 0..R-1)")
          ->check(CLI::Range(int64_t(1), int64_t(1000000)));
  sub->add_option("--out", args->out_dir, "Output directory (created if needed); - as --stdout")
      ->capture_default_str();
  sub->add_flag("--stdout", args->to_stdout,
                "Write the results to standard output instead of files: one line of JSON per "
                "replication (the result file's document), nothing else on stdout");
  sub->add_flag("--trace", args->trace,
                "Also write the protocol-event trace <name>-seed<S>-rep<R>.trace.jsonl");
  sub->add_flag("--quiet", args->quiet, "Print nothing but errors");
  sub->add_flag("--progress", args->progress,
                "Show progress even when stderr is not a terminal");
  sub->footer(
      "Result files: OUT/<scenario name>-seed<seed>-rep<r>.json (the manifest, the metrics per "
      "arm, and \"run_stats\", the only machine-dependent part).\n"
      "Nothing is run and nothing is written if any scenario has a problem (exit code 2).\n"
      "Budgets: every simulation runs under a memory and a work budget derived from the\n"
      "estimate `fdsim validate` prints; breaking one is exit 2 with one line, no result\n"
      "file (docs/scenario-format.md, Run budgets).\n"
      "Load sharing: the arm with diagnosis \"fixed\" suspects a node after timeout_ms of\n"
      "silence since that node's last STATE BROADCAST (sent on region changes), not since a\n"
      "heartbeat; its false_suspicions_count counts load-protocol silences of live nodes, not\n"
      "heartbeat-detector mistakes (docs/models/load-sharing.md, the arm table).\n"
      "Examples:\n"
      "  fdsim run scenarios/examples/heartbeat-study.json\n"
      "  fdsim run scenarios/examples/*.json --out out/examples --quiet\n"
      "  fdsim run scenarios/examples/geode-ring.json --seed 7 --replications 5 --trace\n"
      "  fdsim run scenarios/examples/geode-ring.json --set '$.horizon_s=120' --stdout\n"
      "  generate-scenario | fdsim run - --stdout | jq .metrics\n");
  auto cost = std::make_shared<CostArgs>();
  add_cost_options(sub, cost);
  sub->callback([args, cost, &exit_code] {
    apply_cost_options(*cost);
    exit_code = run_command(*args);
  });
}

}  // namespace fdsim::cli
