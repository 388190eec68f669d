// Out of memory through the real fdsim binary (a Geode run of 30 000 members once threw
// std::bad_alloc inside a destructor, so the process aborted). Under an address-space cap, an
// input that legitimately needs more memory than the cap must end fdsim with exit 2 and one
// budget line (sim/cli/out_of_memory.h, sim/run/run_budget.h: the command's and the run's
// memory budgets take their share of the environment's limit), never a signal, never exit 1
// "internal error", and nothing written. Failed before the run budgets: exit 1 with
// "fdsim: internal error: out of memory".

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;

class OutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-oom-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Runs `fdsim <args>` in the directory under `ulimit -v <kib>`; returns (exit code or -1 on
  // a signal, stderr).
  std::pair<int, std::string> capped(size_t kib, const std::string& args) const {
    const std::string cmd = "cd '" + dir_ + "' && ulimit -v " + std::to_string(kib) + " && '" +
                            fdsim::test::kFdsim + "' " + args + " >out.txt 2>err.txt";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, fdsim::test::slurp(dir_ + "/err.txt")};
  }
  std::string dir_;
};

TEST_F(OutOfMemory, ExitsWithOneLineUnderAMemoryCap) {
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v run";
#endif
  // A heartbeat study of 10 million nodes, each watched by its successor: a valid scenario
  // (inside every limit) whose 10 million monitoring pairs need far more than 300 MB.
  const nlohmann::json big = {
      {"name", "big"},
      {"seed", 1},
      {"horizon_s", 10},
      {"nodes", {{"count", 10000000}}},
      {"detectors",
       {{"senders", "all"},
        {"monitors_per_sender", 1},
        {"heartbeat_period_ms", 1000},
        {"arms", {{{"name", "fixed"}, {"detector", {{"kind", "fixed"}, {"timeout_ms", 3000}}}}}}}}};
  std::ofstream(dir_ + "/big.json") << big.dump();
  for (const std::string cmd : {"validate big.json", "run big.json --out o --quiet"}) {
    const auto [code, err] = capped(300000, cmd);
    EXPECT_EQ(code, 2) << cmd << "\n" << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_TRUE(err.find("memory budget exceeded") != std::string::npos ||
                err.find("needs about") != std::string::npos)
        << cmd << "\n" << err;
    EXPECT_EQ(err.find("internal error"), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists(dir_ + "/o/big-seed1-rep0.json"));
  // The same scenario, scaled down, runs under the same cap (the cap is not what fails).
  nlohmann::json small = big;
  small["nodes"]["count"] = 10;
  std::ofstream(dir_ + "/big.json") << small.dump();
  const auto [code, err] = capped(300000, "validate big.json");
  EXPECT_EQ(code, 0) << err;
}

}  // namespace
