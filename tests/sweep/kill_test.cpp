// kill -9 in the middle of a sweep, then rerun: the aggregate equals the uninterrupted one, no
// finished run is executed again, and no file in runs/ is ever corrupt.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/atomic_file.h"
#include "sim/sweep/commands.h"
#include "sim/sweep/run_store.h"
#include "tests/sweep/fake_run.h"
#include "tests/sweep/test_util.h"

namespace fdsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FakeRun;
using testing::read_text;
using testing::result_files;
using testing::ScratchDir;
using testing::write_text;

constexpr int kRuns = 24;

json kill_demo_sweep() {
  return json::parse(R"({"name": "demo", "replications": 4,
      "base": {"name": "fake", "seed": 3, "model": {"x": 1, "y": 0}},
      "axes": [{"path": "$.model.x", "values": [1, 2, 3]},
               {"path": "$.model.y", "values": [0, 0.5]}]})");
}

int run_sweep(const std::string& file, const std::string& out_dir, const RunApi& api, size_t jobs) {
  SweepCommandOptions o;
  o.sweep_file = file;
  o.out_dir = out_dir;
  o.jobs = jobs;
  o.quiet = true;
  std::ostringstream out, err;
  return sweep_command(o, api, out, err);
}

std::vector<std::string> log_lines(const fs::path& p) {
  std::vector<std::string> lines;
  std::istringstream in(read_text(p));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// Forks a child running `child`; kills it with SIGKILL once `ready` says so (polled every
// 2 ms) and reaps it. Returns false if the child exited by itself first (or `ready` never held
// within a generous guard, in which case it is killed anyway).
bool run_and_kill(const std::function<int()>& child, const std::function<bool()>& ready) {
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) ::_exit(child());
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (!ready()) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    if (std::chrono::steady_clock::now() > guard) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Every file in runs/ is a temp file, a valid result or a valid error file.
void expect_no_corrupt_file(const fs::path& runs) {
  const RunStore store(runs);
  for (const auto& name : testing::file_names(runs)) {
    if (is_temp_file_name(name) || name == ".integrity-key") continue;  // run_store.h
    ASSERT_TRUE(name.size() == 21 && name.substr(16) == ".json") << "unexpected file " << name;
    EXPECT_TRUE(store.load_result(name.substr(0, 16)).has_value()) << "corrupt result " << name;
  }
}

TEST(SweepKill, SigkillAfterTenRunsThenRerun_SameAggregateAndNoRunExecutedTwice) {
  ScratchDir dir;
  write_text(dir / "demo.json", kill_demo_sweep().dump());
  FakeRun reference;
  ASSERT_EQ(run_sweep(dir / "demo.json", dir / "ref", reference.api(), 2), 0);

  // The child finishes ten runs, then every further run blocks before doing anything (so the
  // runs in flight at the kill are exactly those blocked, and they never reached the log).
  const fs::path runs = dir.path() / "out" / "runs";
  const bool killed = run_and_kill(
      [&]() {
        FakeRun fake;
        fake.log_path = dir / "log-killed";
        std::atomic<int> started{0};
        RunApi api = fake.api();
        ExecuteFn inner = api.execute;
        api.execute = [&, inner](const json& s, const std::string& src, uint64_t rep,
                                 const run::RunOptions& o) {
          if (started++ >= 10)
            for (;;) ::pause();
          return inner(s, src, rep, o);
        };
        return run_sweep(dir / "demo.json", dir / "out", api, 3);
      },
      [&]() { return result_files(runs).size() >= 10; });
  ASSERT_TRUE(killed);
  const std::set<std::string> finished = result_files(runs);
  EXPECT_EQ(finished.size(), 10u);
  expect_no_corrupt_file(runs);
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "aggregate.csv"));

  FakeRun rerun;
  rerun.log_path = dir / "log-rerun";
  ASSERT_EQ(run_sweep(dir / "demo.json", dir / "out", rerun.api(), 2), 0);
  EXPECT_EQ(rerun.executions, kRuns - 10);
  const auto killed_log = log_lines(dir.path() / "log-killed");
  const auto rerun_log = log_lines(dir.path() / "log-rerun");
  EXPECT_EQ(killed_log.size(), 10u);
  std::set<std::string> all(killed_log.begin(), killed_log.end());
  for (const auto& id : rerun_log) {
    EXPECT_EQ(finished.count(id + ".json"), 0u) << id << " was finished but ran again";
    EXPECT_TRUE(all.insert(id).second) << id << " executed twice";
  }
  EXPECT_EQ(all.size(), size_t(kRuns));
  for (const char* f : {"aggregate.csv", "aggregate.jsonl", "sweep.json"})
    EXPECT_EQ(read_text(dir.path() / "out" / f), read_text(dir.path() / "ref" / f)) << f;
}

TEST(SweepKill, SigkillAtArbitraryMomentsNeverLeavesACorruptFile) {
  ScratchDir dir;
  write_text(dir / "demo.json", kill_demo_sweep().dump());
  FakeRun reference;
  ASSERT_EQ(run_sweep(dir / "demo.json", dir / "ref", reference.api(), 2), 0);
  const fs::path runs = dir.path() / "out" / "runs";
  // Kill while results are being written (runs of about 5 ms on 3 threads), once 1, then 5,
  // then 12 results exist in total; each time the next invocation resumes. A child may finish
  // before the parent looks (a loaded machine): that iteration then kills nothing.
  int kills = 0;
  for (size_t target : {1u, 5u, 12u}) {
    kills += run_and_kill(
        [&]() {
          FakeRun fake;
          RunApi api = fake.api();
          ExecuteFn inner = api.execute;
          api.execute = [inner](const json& s, const std::string& src, uint64_t rep,
                                const run::RunOptions& o) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return inner(s, src, rep, o);
          };
          return run_sweep(dir / "demo.json", dir / "out", api, 3);
        },
        [&]() { return result_files(runs).size() >= target; });
    expect_no_corrupt_file(runs);
  }
  EXPECT_GE(kills, 1);
  const size_t done = result_files(runs).size();
  FakeRun rerun;
  ASSERT_EQ(run_sweep(dir / "demo.json", dir / "out", rerun.api(), 2), 0);
  EXPECT_EQ(size_t(rerun.executions), kRuns - done);
  for (const auto& name : testing::file_names(runs)) EXPECT_FALSE(is_temp_file_name(name)) << name;
  for (const char* f : {"aggregate.csv", "aggregate.jsonl", "sweep.json"})
    EXPECT_EQ(read_text(dir.path() / "out" / f), read_text(dir.path() / "ref" / f)) << f;
}

}  // namespace
}  // namespace fdsim::sweep
