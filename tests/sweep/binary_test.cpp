// The real fdsim binary (FDSIM_BINARY_DIR/fdsim) on a small real sweep: -j 1, -j 2 and three
// shards merged give byte-identical aggregates; kill -9 then resume; validate; help.
// Skipped when the binary has not been built.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/sweep/test_util.h"

namespace fdsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_text;
using testing::result_files;
using testing::ScratchDir;
using testing::write_text;

const std::string kFdsim = FDSIM_BINARY_DIR "/fdsim";
const std::string kSource = FDSIM_SOURCE_DIR;

#define REQUIRE_FDSIM()                                                        \
  do {                                                                         \
    if (::access(kFdsim.c_str(), X_OK) != 0)                                   \
      GTEST_SKIP() << kFdsim << " is not built (build the fdsim target first)"; \
  } while (0)

struct Proc {
  int code = -1;
  std::string out, err;
};

// Runs fdsim with `args` (shell-quoted by the caller), capturing stdout and stderr.
Proc fdsim(const ScratchDir& dir, const std::string& args) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "'" + kFdsim + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  p.out = read_text(out);
  p.err = read_text(err);
  return p;
}

// 2 points x 3 replications of the heartbeat study, 60 simulated seconds.
std::string small_sweep(const ScratchDir& dir, int replications = 3) {
  json doc = {{"name", "small"},
              {"base", kSource + "/scenarios/examples/heartbeat-study.json"},
              {"axes", json::parse(R"([{"path": "$.horizon_s", "values": [60]},
                  {"path": "$.detectors.arms[0].detector.timeout_ms", "values": [2000, 4000]}])")},
              {"replications", replications}};
  write_text(dir / "small.json", doc.dump(2));
  return dir / "small.json";
}

void expect_same_aggregates(const fs::path& a, const fs::path& b) {
  for (const char* f : {"aggregate.csv", "aggregate.jsonl", "sweep.json"})
    EXPECT_EQ(read_text(a / f), read_text(b / f)) << f << ": " << a << " vs " << b;
}

TEST(FdsimSweepBinary, JobsAndShardsGiveByteIdenticalAggregates) {
  REQUIRE_FDSIM();
  ScratchDir dir;
  const std::string sweep = small_sweep(dir);
  Proc p = fdsim(dir, "sweep '" + sweep + "' --out '" + dir / "j1" + "' -j 1");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("sweep small: 2 points, 6 runs; 0 reused, 6 executed, 0 failed"),
            std::string::npos)
      << p.out;
  // Not a terminal: progress comes as machine-readable lines (at least the final one).
  EXPECT_NE(p.err.find("progress done=6 running=0 failed=0 total=6 eta_s=0"), std::string::npos)
      << p.err;
  p = fdsim(dir, "sweep '" + sweep + "' --out '" + dir / "j2" + "' -j 2 --quiet");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.out + p.err, "");
  std::string shards;
  for (int k = 0; k < 3; ++k) {
    const std::string out = dir / ("shard-" + std::to_string(k));
    p = fdsim(dir, "sweep '" + sweep + "' --out '" + out + "' -q --shard " + std::to_string(k) + "/3");
    ASSERT_EQ(p.code, 0) << p.err;
    shards += " '" + out + "'";
  }
  p = fdsim(dir, "merge" + shards + " --out '" + dir / "merged" + "'");
  ASSERT_EQ(p.code, 0) << p.err;
  expect_same_aggregates(dir.path() / "j1", dir.path() / "j2");
  expect_same_aggregates(dir.path() / "j1", dir.path() / "merged");
  // The real arms are there, in the scenario's order, with paired differences against "fixed".
  const std::string csv = read_text(dir.path() / "j1" / "aggregate.csv");
  EXPECT_EQ(csv.substr(csv.find('\n') + 1, 16), "0,60,2000,fixed,");
  EXPECT_NE(csv.find(",nfd_e,"), std::string::npos);
  // Result files equal apart from run_stats and the MAC (keyed by each directory's own key).
  for (const auto& r : result_files(dir.path() / "j1" / "runs")) {
    json a = json::parse(read_text(dir.path() / "j1" / "runs" / r));
    json b = json::parse(read_text(dir.path() / "merged" / "runs" / r));
    a.erase("run_stats");
    b.erase("run_stats");
    a["integrity"].erase("content_hmac_sha256");
    b["integrity"].erase("content_hmac_sha256");
    EXPECT_EQ(a, b) << r;
  }
}

TEST(FdsimSweepBinary, KillNineThenRerunResumesToTheSameAggregate) {
  REQUIRE_FDSIM();
  ScratchDir dir;
  const std::string sweep = small_sweep(dir, 6);  // 12 runs
  ASSERT_EQ(fdsim(dir, "sweep '" + sweep + "' --out '" + dir / "ref" + "' -j 2 -q").code, 0);
  const fs::path runs = dir.path() / "out" / "runs";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string out = dir / "out";
    ::execl(kFdsim.c_str(), kFdsim.c_str(), "sweep", sweep.c_str(), "--out", out.c_str(), "-j",
            "1", "-q", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool exited = false;
  while (result_files(runs).size() < 3 && std::chrono::steady_clock::now() < guard) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  const size_t before = result_files(runs).size();
  for (const auto& r : result_files(runs))
    EXPECT_FALSE(json::parse(read_text(runs / r), nullptr, false).is_discarded()) << r;
  const Proc p = fdsim(dir, "sweep '" + sweep + "' --out '" + dir / "out" + "' -j 2");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find(std::to_string(before) + " reused, " + std::to_string(12 - before) +
                       " executed"),
            std::string::npos)
      << p.out;
  expect_same_aggregates(dir.path() / "out", dir.path() / "ref");
}

TEST(FdsimSweepBinary, ValidateReportsSweepErrorsAndShippedSweepsAreValid) {
  REQUIRE_FDSIM();
  ScratchDir dir;
  json doc = json::parse(read_text(small_sweep(dir)));
  doc["axes"][1]["path"] = "$.detectors.arms[9].detector.timeout_ms";
  doc["axes"][0]["values"] = {60, -5};
  write_text(dir / "bad.json", doc.dump());
  Proc p = fdsim(dir, "validate '" + dir / "bad.json" + "'");
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(p.err, dir / "bad.json" + ": $.axes[1].path: $.detectors.arms[9] does not exist in "
                                      "the base scenario ($.detectors.arms has 7 elements)\n");
  doc["axes"][1]["path"] = "$.detectors.arms[1].detector.delta_ms";
  write_text(dir / "bad.json", doc.dump());
  p = fdsim(dir, "validate '" + dir / "bad.json" + "'");
  EXPECT_EQ(p.code, 2);
  // The same problem at the two points with horizon -5: one line naming both points.
  EXPECT_NE(p.err.find(dir / "bad.json" + ": " + kSource +
                       "/scenarios/examples/heartbeat-study.json: $.horizon_s: expected a number "
                       "> 0 and <= 1000000000, got -5 (at points 2, 3)\n"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(p.err.find("($.horizon_s = 60"), std::string::npos) << p.err;
  p = fdsim(dir, "sweep '" + dir / "bad.json" + "' --out '" + dir / "never" + "'");
  EXPECT_EQ(p.code, 2);
  EXPECT_FALSE(fs::exists(dir.path() / "never"));
  // Every shipped sweep file (scenarios/**: a JSON object with "base" or "axes").
  size_t sweeps = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSource + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const json doc = json::parse(read_text(entry.path()), nullptr, false);
    if (!doc.is_object() || !(doc.contains("base") || doc.contains("axes"))) continue;
    ++sweeps;
    p = fdsim(dir, "validate '" + entry.path().string() + "'");
    EXPECT_EQ(p.code, 0) << entry.path() << ": " << p.err;
  }
  EXPECT_GE(sweeps, 1u);
}

TEST(FdsimSweepBinary, HelpShowsExamplesAndExitCodes) {
  REQUIRE_FDSIM();
  ScratchDir dir;
  for (const char* cmd : {"sweep", "merge"}) {
    const Proc p = fdsim(dir, std::string(cmd) + " --help");
    EXPECT_EQ(p.code, 0);
    EXPECT_NE(p.out.find("Examples:"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("Exit codes:"), std::string::npos) << p.out;
  }
  const Proc p = fdsim(dir, "sweep --shard 2/2 --out x nothing.json");
  EXPECT_EQ(p.code, 2);
}

}  // namespace
}  // namespace fdsim::sweep
