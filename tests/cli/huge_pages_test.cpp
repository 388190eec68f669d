// `fdsim run` re-executes itself with glibc's huge-page malloc on a kernel in "madvise" mode
// (sim/cli/huge_pages.h), FDSIM_HUGE_PAGES=0 turns it off, a tunable given by the user is left
// alone, and the result is the same either way.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace fdsim::test {
namespace {

using nlohmann::json;

bool kernel_in_madvise_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(f, line) && line.find("[madvise]") != std::string::npos;
}

class CliHugePages : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    write("s.json", R"({"name": "hp", "seed": 3, "horizon_s": 20, "nodes": {"count": 6},
      "network": {"latency": {"model": "exponential", "min_ms": 0.2, "mean_ms": 1}, "loss": 0.01},
      "faults": [{"kind": "crash", "at_s": 5, "nodes": [2]}],
      "swim": {"arms": [{"name": "lifeguard"}]}})");
  }
  // The result of `env <env> fdsim run s.json --stdout --quiet`.
  json run_with(const std::string& env) const {
    const std::string cmd = "cd '" + dir_ + "' && env " + env + " '" + kFdsim +
                            "' run s.json --stdout --quiet >out.json 2>err.txt";
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << file("err.txt");
    return json::parse(file("out.json"), nullptr, false);
  }
};

TEST_F(CliHugePages, OnWhereTheKernelAdvisesOffOnRequestAndTheResultIsTheSame) {
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "a sanitizer build does not re-execute (its allocator ignores the tunable)";
#endif
  const json on = run_with("-u GLIBC_TUNABLES");
  const json off = run_with("-u GLIBC_TUNABLES FDSIM_HUGE_PAGES=0");
  ASSERT_FALSE(on.is_discarded());
  ASSERT_FALSE(off.is_discarded());
  EXPECT_EQ(on["run_stats"]["malloc_page_kb"], kernel_in_madvise_mode() ? 2048 : 4);
  EXPECT_EQ(off["run_stats"]["malloc_page_kb"], 4);
  EXPECT_EQ(on["metrics"], off["metrics"]);
  EXPECT_FALSE(on["metrics"].empty());
}

TEST_F(CliHugePages, ATunableTheUserGaveIsKept) {
  const json j = run_with("GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["run_stats"]["malloc_page_kb"], 4);
}

}  // namespace
}  // namespace fdsim::test
