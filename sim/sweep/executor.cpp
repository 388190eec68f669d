#include "sim/sweep/executor.h"

#include "sim/run/run_budget.h"

#include "sim/engine/interrupt.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "sim/sweep/atomic_file.h"
#include "sim/sweep/run_store.h"

namespace fdsim::sweep {

using nlohmann::json;

std::optional<Shard> parse_shard(std::string_view text, std::string* error) {
  const size_t slash = text.find('/');
  auto number = [](std::string_view s, size_t* out) {
    if (s.empty() || s.size() > 9) return false;
    size_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + size_t(c - '0');
    }
    *out = v;
    return true;
  };
  Shard shard;
  if (slash == std::string_view::npos || !number(text.substr(0, slash), &shard.index) ||
      !number(text.substr(slash + 1), &shard.count) || shard.count == 0 ||
      shard.index >= shard.count) {
    *error = "expected K/N with 0 <= K < N (e.g. 0/4), got \"" + std::string(text) + "\"";
    return std::nullopt;
  }
  return shard;
}

namespace {

struct Failure {
  size_t run_index;
  std::string text;
};

constexpr const char* kInterruptedRun = "\x01interrupted";

// Runs one planned run; returns an empty string on success, kInterruptedRun if a signal ended
// it, else why it failed.
std::string run_one(const SweepPlan& plan, const PlannedRun& run, const RunStore& store,
                    const RunApi& api) {
  run::RunOutcome outcome;
  try {
    outcome = api.execute(plan.points[run.point].scenario, plan.scenario_source,
                          run.replication, run::RunOptions{});
  } catch (const std::exception& e) {
    outcome = {};
    outcome.internal_error = std::string("exception: ") + e.what();
  } catch (...) {
    outcome = {};
    outcome.internal_error = "unknown exception";
  }
  // An interrupted run writes nothing: it is simply not done, and a rerun runs it.
  if (!outcome.ok && interrupt_signal() != 0) return kInterruptedRun;
  std::string why;
  if (outcome.ok && (!outcome.result.is_object() || !outcome.result.contains("metrics") ||
                     !outcome.result["metrics"].is_object())) {
    outcome.ok = false;
    outcome.internal_error = "the run returned a result without a \"metrics\" object";
  }
  if (outcome.ok) {
    std::string error;
    if (store.write_result(run.id, outcome.result, outcome.run_stats, &error)) {
      store.remove_error(run.id);
      return {};
    }
    why = "cannot write the result: " + error;
  } else if (!outcome.internal_error.empty()) {
    why = "internal error: " + outcome.internal_error;
  } else {
    why = "bad input:";
    for (const auto& p : outcome.problems) why += " " + p + ";";
    if (outcome.problems.empty()) why += " (no problem reported)";
    else why.pop_back();
  }
  json err;
  err["run_id"] = run.id;
  err["point"] = run.point;
  err["params"] = describe_params(plan, run.point);
  err["replication"] = run.replication;
  err["problems"] = outcome.problems;
  err["internal_error"] = outcome.internal_error;
  err["error"] = why;
  std::string write_error;
  if (!store.write_error(run.id, err, &write_error)) why += " (and " + write_error + ")";
  return why;
}

// Under an address-space cap (ulimit -v, RLIMIT_AS) every worker's stack (RLIMIT_STACK, which
// glibc reserves for each thread, 8 MiB by default) counts against it: workers beyond half the
// cap would leave the runs no room to allocate, and a failed allocation ends the process. So
// at most (cap / 2) / stack workers; no cap: no limit.
size_t workers_within_address_space_limit() {
  rlimit as{}, stack{};
  if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  rlim_t per = 8u << 20;
  if (::getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY &&
      stack.rlim_cur > 0)
    per = stack.rlim_cur;
  return std::max<size_t>(1, size_t(as.rlim_cur / 2 / per));
}

}  // namespace

ExecuteReport execute_plan(const SweepPlan& plan, const std::filesystem::path& runs_dir,
                           const RunApi& api, const ExecuteOptions& options) {
  ExecuteReport report;
  std::error_code ec;
  std::filesystem::create_directories(runs_dir, ec);
  report.temp_files_removed = remove_temp_files(runs_dir);
  const RunStore store(runs_dir);

  std::vector<size_t> pending;  // indices into plan.runs
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    if (!options.shard.contains(i)) continue;
    ++report.total;
    const std::string why = store.verify_result(plan.runs[i].id);
    if (why.empty()) {
      ++report.reused;
    } else {
      if (why != "absent") report.distrusted.push_back(plan.runs[i].id + ": " + why);
      pending.push_back(i);
    }
  }

  std::mutex mu;
  std::condition_variable cv;
  ProgressCounts counts;
  counts.total = report.total;
  counts.done = report.reused;
  std::vector<Failure> failures;
  size_t next = 0, workers_left = 0;
  size_t allowed = SIZE_MAX;  // workers with an index at or above it take no further run

  auto worker = [&](size_t index) {
    for (;;) {
      size_t run_index;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next == pending.size() || interrupt_signal() != 0 || index >= allowed) break;
        run_index = pending[next++];
        ++counts.running;
      }
      std::string why;
      try {
        why = run_one(plan, plan.runs[run_index], store, api);
      } catch (const std::exception& e) {  // e.g. a result that cannot be serialised
        why = std::string("internal error: ") + e.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      --counts.running;
      ++counts.finished_here;
      if (why == kInterruptedRun) {
        // not done, not failed: left for the rerun
      } else if (why.empty()) {
        ++counts.done;
        ++report.executed;
      } else {
        ++counts.failed;
        const PlannedRun& run = plan.runs[run_index];
        failures.push_back({run_index, run.id + " (point " + std::to_string(run.point) + ": " +
                                           describe_params(plan, run.point) + ", replication " +
                                           std::to_string(run.replication) + "): " + why});
      }
      cv.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu);
    --workers_left;
    cv.notify_all();
  };

  ProgressReporter progress(options.progress, options.progress_out, options.progress_interval);
  const size_t jobs = std::max<size_t>(
      1, std::min({options.jobs, pending.size(), workers_within_address_space_limit()}));
  // Each simulation's memory budget takes its share of the environment's limit
  // (sim/run/run_budget.h).
  run::set_concurrent_simulations(unsigned(std::min<size_t>(jobs, 1u << 16)));
  std::vector<std::thread> threads;
  if (!pending.empty()) {
    // A thread that cannot be created (a low `ulimit -u`, a memory cap) is not an error: the
    // sweep goes on with the workers it has, or in this thread if it has none. (An exception
    // escaping here with joinable threads alive used to terminate the process.)
    // A failed creation means the threads' stacks have used up a memory or process cap: the
    // runs themselves would then fail to allocate (the new-handler ends the process). So half
    // of the workers created are retired at once (joined, which unmaps their stacks) to leave
    // the others room.
    threads.reserve(jobs);
    workers_left = jobs;
    for (size_t t = 0; t < jobs; ++t) {
      try {
        threads.emplace_back(worker, t);
      } catch (const std::system_error&) {
        size_t keep;
        {
          std::lock_guard<std::mutex> lock(mu);
          workers_left -= jobs - t;
          keep = std::max<size_t>(1, t / 2);
          allowed = keep;
        }
        for (size_t r = keep; r < threads.size(); ++r) threads[r].join();
        if (threads.size() > keep) threads.resize(keep);
        break;
      }
    }
    if (threads.empty()) {
      workers_left = 1;
      worker(0);
    }
    std::unique_lock<std::mutex> lock(mu);
    while (workers_left > 0) {
      cv.wait_for(lock, progress.tick());
      progress.update(counts);
    }
  }
  for (auto& t : threads) t.join();
  progress.finish(counts);

  std::sort(failures.begin(), failures.end(),
            [](const Failure& a, const Failure& b) { return a.run_index < b.run_index; });
  for (auto& f : failures) report.failures.push_back(std::move(f.text));
  report.interrupted_by = interrupt_signal();
  return report;
}

}  // namespace fdsim::sweep
