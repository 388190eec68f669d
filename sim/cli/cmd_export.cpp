// fdsim export SWEEP_OUT [--format csv|jsonl|both] [--out PREFIX] [--any-build]: the run
// results of a sweep output directory as one tidy table (sim/sweep/tidy_export.h).

#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/commands.h"
#include "sim/sweep/tidy_export.h"

namespace fdsim::cli {

void add_export_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<sweep::ExportOptions>();
  auto format = std::make_shared<std::string>("both");
  CLI::App* sub = app.add_subcommand(
      "export", "Write a sweep's run results as one tidy table (CSV and/or JSON Lines)");
  sub->add_option("SWEEP_OUT", opts->sweep_dir,
                  "Output directory of fdsim sweep or fdsim merge (holds sweep.json and runs/)")
      ->required();
  sub->add_option("--format", *format, "csv, jsonl or both (default both)")
      ->check(CLI::IsMember({"csv", "jsonl", "both"}));
  sub->add_option("-o,--out", opts->prefix,
                  "Output file prefix: writes PREFIX.csv / PREFIX.jsonl (default SWEEP_OUT/tidy)");
  sub->add_flag("--any-build", opts->any_build,
                "Also export results written by another fdsim version or git revision");
  sub->add_flag("-q,--quiet", opts->quiet, "No summary");
  sub->footer(
      "One row per (run, point, swept parameters, seed, replication, arm, metric, value):\n"
      "  run_id,point,<one column per axis>,seed,replication,arm,metric,value\n"
      "Parameter columns are named by the last key of the axis path (\"$.workload.\n"
      "arrival_rate_per_s\" -> arrival_rate_per_s), with earlier keys prepended on a clash\n"
      "(see docs/sweeps.md). Every result's integrity record is checked first.\n\n"
      "Examples:\n"
      "  fdsim sweep scenarios/sweeps/flagship.json --out out/flagship\n"
      "  fdsim export out/flagship                      # out/flagship/tidy.csv, tidy.jsonl\n"
      "  fdsim export out/flagship --format csv --out out/flagship-runs\n\n"
      "Exit codes: 0 ok, 2 bad input (not a sweep directory, a result that fails its\n"
      "integrity check, no results), 1 cannot write the output.\n");
  sub->callback([opts, format, &exit_code] {
    sweep::ExportOptions o = *opts;
    o.csv = *format != "jsonl";
    o.jsonl = *format != "csv";
    exit_code = sweep::export_command(o, std::cout, std::cerr);
  });
}

}  // namespace fdsim::cli
