#pragma once
// Executes the runs of a sweep plan on a pool of worker threads, resuming what an earlier
// (possibly killed) invocation left.
//
// Contract:
// - The runs of a shard K/N are those whose index in plan.runs satisfies index % N == K.
// - A run whose valid result is already in runs/ is never executed again; every other run of
//   the shard is executed exactly once per invocation (a run that failed before is retried).
// - Each result is written atomically as soon as its run ends, so kill -9 at any instant loses
//   only the runs in flight; temp files left by a killed writer are removed at start.
// - A failed run (bad input found late, internal error, exception) writes
//   runs/<id>.error.json and the sweep goes on. Failures are reported in run-list order.
// - The files written do not depend on the number of threads (run results are deterministic).
// The caller must hold the DirectoryLock of the output directory.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sweep/plan.h"
#include "sim/sweep/progress.h"
#include "sim/sweep/run_api.h"

namespace fdsim::sweep {

struct Shard {
  size_t index = 0;
  size_t count = 1;
  bool contains(size_t run_index) const { return run_index % count == index; }
};

// "K/N" with 0 <= K < N.
std::optional<Shard> parse_shard(std::string_view text, std::string* error);

struct ExecuteOptions {
  size_t jobs = 1;
  Shard shard;
  ProgressStyle progress = ProgressStyle::kQuiet;
  std::ostream* progress_out = nullptr;
  std::chrono::milliseconds progress_interval = std::chrono::seconds(5);
};

struct ExecuteReport {
  size_t total = 0;     // runs in this shard
  size_t reused = 0;    // valid results found
  size_t executed = 0;  // ran now, with a result
  size_t temp_files_removed = 0;
  std::vector<std::string> failures;  // "<id> (point 3: $.a = 1, replication 2): why"
  // Stored results that failed verification (RunStore::verify_result) and were run again:
  // "<id>: why".
  std::vector<std::string> distrusted;
  // Set when SIGINT or SIGTERM stopped the sweep (sim/engine/interrupt.h): no new run was
  // started after the signal, the running ones ended without writing anything (neither a
  // result nor an error record), and a rerun of the same command resumes.
  int interrupted_by = 0;
};

ExecuteReport execute_plan(const SweepPlan& plan, const std::filesystem::path& runs_dir,
                           const RunApi& api, const ExecuteOptions& options);

}  // namespace fdsim::sweep
