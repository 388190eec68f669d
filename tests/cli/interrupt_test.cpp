// SIGINT and SIGTERM stop fdsim cleanly wherever it is (sim/engine/budget.h: every long loop
// charges work, and charge_work polls for signals): inside one exit-time (T_out) computation
// (writing results to files or to stdout), while validate expands a large sweep grid, and
// while a sweep runs. A clean stop is the existing one: exit 130 (SIGINT) or 143 (SIGTERM), the line
// "interrupted by SIG...", no result file. The only time bound is a generous one (10 or 20 s
// on a loaded machine) that still proves the command did not run to completion; the check
// itself comes within milliseconds.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cet_scenario.h"
#include "tests/cli/fdsim_process.h"

namespace interrupt_cli {

using nlohmann::json;
namespace fs = std::filesystem;

class Interrupt : public fdsim::test::TempDirTest {
 protected:
  // Starts `fdsim args` in dir_ (stdout to out.txt, stderr to err.txt), sends `sig` after
  // `after_ms`, and returns the exit status (-1 and a failure if it did not stop within
  // `bound_s`).
  int interrupt(const std::string& args, int sig, int after_ms, int bound_s = 20) {
    const std::string cmd = "cd '" + dir_ + "' && exec '" + fdsim::test::kFdsim + "' " + args +
                            " >out.txt 2>err.txt";
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
    ::kill(pid, sig);
    const auto sent = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
      if (::waitpid(pid, &status, WNOHANG) == pid) break;
      if (std::chrono::steady_clock::now() - sent > std::chrono::seconds(bound_s)) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ADD_FAILURE() << "fdsim " << args << " did not stop within " << bound_s
                      << " s of signal " << sig;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status)) {
      ADD_FAILURE() << "ended by signal " << WTERMSIG(status);
      return -1;
    }
    return WEXITSTATUS(status);
  }
};

// tests/cli/cet_scenario.h with an arrival prior of 990 per s: near-critical T_out chains of
// 1 000 states that take the run span's fallback (models/timeout/capped_quantile.h), whose
// series charge their work. With the limits raised a 3 000 s run takes about 9 s in Release,
// most of it in those series, and SIGTERM stops it within milliseconds (the bound is 10 s).
// Before the series were charged, SIGTERM sent 1.5 s into such a run was honoured 14 s later,
// at the end of the first computation (and after more than 7 minutes when sent at 60 s).
json cet_chains(double horizon_s = 3000) {
  return fdsim::test::cet_scenario(1000, horizon_s, horizon_s / 2, 990);
}

TEST_F(Interrupt, SigtermStopsARunInsideAnExitTimeComputation) {
  write("c.json", cet_chains().dump());
  EXPECT_EQ(interrupt("run c.json --out o --quiet --max-events 1e18 --max-memory-gb 1000",
                      SIGTERM, 1500, 10),
            143)
      << file("err.txt");
  EXPECT_NE(file("err.txt").find("interrupted by SIGTERM"), std::string::npos) << file("err.txt");
  EXPECT_FALSE(fs::exists(dir_ + "/o/cet-seed8-rep0.json"));
}

// A small heartbeat scenario and a grid of 10^6 points over it: validate resolves every point
// (about a minute; no $.seed axis, which points would share: sim/sweep/seed_memo.h), and
// SIGINT stops it between two rounds of resolves on the worker threads.
TEST_F(Interrupt, SigintStopsValidateOfALargeSweepGrid) {
  const json base = {
      {"name", "small"},
      {"seed", 1},
      {"horizon_s", 10},
      {"nodes", {{"count", 2}}},
      {"network", {{"latency", {{"model", "constant"}, {"ms", 1}}}}},
      {"detectors",
       {{"senders", "all"},
        {"monitors_per_sender", 1},
        {"heartbeat_period_ms", 100},
        {"arms", {{{"name", "fixed"}, {"detector", {{"kind", "fixed"}, {"timeout_ms", 300}}}}}}}}};
  json horizons = json::array(), periods = json::array(), timeouts = json::array();
  for (int i = 0; i < 100; ++i) {
    horizons.push_back(10 + i);
    periods.push_back(100 + i);
    timeouts.push_back(1000 + i);
  }
  const json sweep = {{"name", "grid"},
                      {"base", base},
                      {"axes",
                       {{{"path", "$.horizon_s"}, {"values", horizons}},
                        {{"path", "$.detectors.heartbeat_period_ms"}, {"values", periods}},
                        {{"path", "$.detectors.arms[0].detector.timeout_ms"}, {"values", timeouts}}}}};
  write("grid.json", sweep.dump());
  EXPECT_EQ(interrupt("validate grid.json", SIGINT, 1500), 130) << file("err.txt");
  EXPECT_NE(file("err.txt").find("interrupted by SIGINT"), std::string::npos) << file("err.txt");
}

// fdsim run --stdout stops as the file-writing path does. Before, it reported the interrupt as
// "internal error in replication 0: ... interrupted by a signal" and exited 1.
TEST_F(Interrupt, SigtermStopsARunWritingToStdout) {
  write("c.json", cet_chains().dump());
  EXPECT_EQ(interrupt("run c.json --stdout --quiet --max-events 1e18 --max-memory-gb 1000",
                      SIGTERM, 1500, 10),
            143)
      << file("err.txt");
  EXPECT_NE(file("err.txt").find("c.json: interrupted by SIGTERM in replication 0: 0 results "
                                 "printed"),
            std::string::npos)
      << file("err.txt");
  EXPECT_EQ(file("err.txt").find("internal error"), std::string::npos) << file("err.txt");
  EXPECT_EQ(file("out.txt"), "");
}

// A sweep whose one point runs for minutes (a 1 ms heartbeat over 1e5 simulated seconds):
// SIGTERM stops it with no result for that run.
TEST_F(Interrupt, SigtermStopsASweep) {
  const json base = {
      {"name", "long"},
      {"seed", 1},
      {"horizon_s", 100000},
      {"nodes", {{"count", 2}}},
      {"network", {{"latency", {{"model", "constant"}, {"ms", 1}}}}},
      {"detectors",
       {{"senders", "all"},
        {"monitors_per_sender", 1},
        {"heartbeat_period_ms", 1},
        {"arms", {{{"name", "fixed"}, {"detector", {{"kind", "fixed"}, {"timeout_ms", 3}}}}}}}}};
  const json sweep = {
      {"name", "sw"}, {"base", base}, {"axes", {{{"path", "$.seed"}, {"values", {1, 2}}}}}};
  write("sw.json", sweep.dump());
  EXPECT_EQ(interrupt("sweep sw.json --out out --quiet -j 1", SIGTERM, 1500), 143)
      << file("err.txt");
  EXPECT_NE(file("err.txt").find("interrupted by SIGTERM"), std::string::npos) << file("err.txt");
}

}  // namespace interrupt_cli
