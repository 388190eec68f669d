#include "sim/cli/cmd_sweep.h"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <thread>

#include "sim/cli/cost_options.h"
#include "sim/sweep/commands.h"
#include "sim/sweep/run_api.h"

namespace fdsim::cli {

namespace {

constexpr const char* kSweepFooter = R"(
A sweep file names a base scenario and axes of values to substitute into it:
  {"base": "../examples/heartbeat-study.json",
   "axes": [{"path": "$.detectors.arms[0].detector.timeout_ms", "values": [1500, 3000]},
            {"zip": [{"path": "$.network.loss", "values": [0.0, 0.05]},
                     {"path": "$.network.latency.median_ms", "values": [2, 20]}]}],
   "replications": 10,
   "constraint": [{"path": "$.warmup_s", "op": "<", "other_path": "$.horizon_s"}]}
One run per (point, replication); results go to OUT/runs/<run id>.json as they finish, so
rerunning the same command resumes (finished runs are skipped, raising "replications" reuses
them). Aggregates: OUT/aggregate.csv and OUT/aggregate.jsonl (mean, sd, 95% CI half-width per
point, arm and metric, plus paired differences against the reference arm). See docs/sweeps.md.

Examples:
  fdsim sweep scenarios/sweeps/timeout-grid.json --out out/timeout-grid -j 8
  fdsim sweep scenarios/sweeps/timeout-grid.json --out out/shard-1 --shard 1/4
  fdsim sweep scenarios/sweeps/timeout-grid.json --out out/timeout-grid --aggregate-only \
      --reference-arm nfd_e

Exit codes: 0 every run has a result, 2 bad input, 3 some runs failed, 1 internal error.)";

constexpr const char* kMergeFooter = R"(
Combines the output directories of the shards of one sweep (fdsim sweep --shard K/N): copies
their run results into OUT/runs and aggregates them, exactly as one unsharded sweep would.

Examples:
  fdsim merge out/shard-0 out/shard-1 out/shard-2 out/shard-3 --out out/timeout-grid
  fdsim merge out/shard-* --out out/timeout-grid --reference-arm nfd_e

Exit codes: 0 every run has a result, 2 bad input, 3 some runs are missing, 1 internal error.)";

void finish(int code) {
  if (code != sweep::kExitOk) throw CLI::RuntimeError(code);
}

}  // namespace

void add_sweep_commands(CLI::App& app) {
  auto sweep_opts = std::make_shared<sweep::SweepCommandOptions>();
  auto reference = std::make_shared<std::string>();
  const unsigned hw = std::thread::hardware_concurrency();
  sweep_opts->jobs = hw == 0 ? 1 : hw;

  CLI::App* s = app.add_subcommand("sweep", "Run a parameter sweep (grid x replications)");
  s->footer(kSweepFooter);
  s->add_option("SWEEP", sweep_opts->sweep_file, "The sweep file (JSON)")->required();
  s->add_option("-o,--out", sweep_opts->out_dir, "Output directory (created if needed)")
      ->required();
  s->add_option("-j,--jobs", sweep_opts->jobs, "Parallel runs (default: hardware threads)")
      ->check(CLI::Range(1, 4096));
  s->add_option("--shard", sweep_opts->shard,
                "Run only the runs whose index in the run list is K modulo N (K/N)");
  s->add_option("--reference-arm", *reference,
                "Arm the paired differences are taken against (default: the first arm)");
  s->add_flag("--aggregate-only", sweep_opts->aggregate_only,
              "Do not run anything: re-aggregate the results already in OUT/runs");
  s->add_flag("-q,--quiet", sweep_opts->quiet, "No progress and no summary");
  auto cost = std::make_shared<CostArgs>();
  add_cost_options(s, cost);
  s->callback([sweep_opts, reference, cost]() {
    apply_cost_options(*cost);
    sweep::SweepCommandOptions o = *sweep_opts;
    if (!reference->empty()) o.reference_arm = *reference;
    o.progress = ::isatty(STDERR_FILENO) ? sweep::ProgressStyle::kTerminal
                                         : sweep::ProgressStyle::kLines;
    finish(sweep::sweep_command(o, sweep::real_run_api(), std::cout, std::cerr));
  });

  auto merge_opts = std::make_shared<sweep::MergeCommandOptions>();
  auto merge_reference = std::make_shared<std::string>();
  CLI::App* m = app.add_subcommand("merge", "Merge the output directories of sweep shards");
  m->footer(kMergeFooter);
  m->add_option("INPUTS", merge_opts->inputs, "Shard output directories")->required();
  m->add_option("-o,--out", merge_opts->out_dir, "Merged output directory")->required();
  m->add_option("--reference-arm", *merge_reference,
                "Arm the paired differences are taken against (default: as the shards)");
  m->add_flag("-q,--quiet", merge_opts->quiet, "No summary");
  m->callback([merge_opts, merge_reference]() {
    sweep::MergeCommandOptions o = *merge_opts;
    if (!merge_reference->empty()) o.reference_arm = *merge_reference;
    finish(sweep::merge_command(o, std::cout, std::cerr));
  });
}

bool is_sweep_file(const nlohmann::json& doc) {
  return doc.is_object() && (doc.contains("base") || doc.contains("axes"));
}

std::vector<std::string> validate_sweep_file(const std::string& path, std::string* summary) {
  return sweep::validate_sweep_file(path, sweep::real_run_api(), summary);
}

std::vector<std::string> validate_sweep_document(const nlohmann::json& doc, const std::string& source,
                                                 std::string* summary) {
  return sweep::validate_sweep_document(doc, source, sweep::real_run_api(), summary);
}

}  // namespace fdsim::cli
