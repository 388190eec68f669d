// fdsim sweep / merge end to end with the fake run layer: byte-identical aggregates whatever
// -j or sharding, resume, failures, validation, locking, progress.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/atomic_file.h"
#include "sim/sweep/commands.h"
#include "sim/sweep/progress.h"
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

// 3 x 2 points x 4 replications = 24 runs.
json demo_sweep(int replications = 4) {
  json doc = json::parse(R"({"name": "demo",
      "base": {"name": "fake", "seed": 3, "model": {"x": 1, "y": 0}},
      "axes": [{"path": "$.model.x", "values": [1, 2, 3]},
               {"path": "$.model.y", "values": [0, 0.5]}]})");
  doc["replications"] = replications;
  return doc;
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome sweep(const std::string& file, const std::string& out_dir, FakeRun& fake, size_t jobs = 1,
              const std::string& shard = "", bool aggregate_only = false) {
  SweepCommandOptions o;
  o.sweep_file = file;
  o.out_dir = out_dir;
  o.jobs = jobs;
  o.shard = shard;
  o.aggregate_only = aggregate_only;
  o.progress = ProgressStyle::kQuiet;
  std::ostringstream out, err;
  const int code = sweep_command(o, fake.api(), out, err);
  return {code, out.str(), err.str()};
}

Outcome merge(const std::vector<std::string>& inputs, const std::string& out_dir) {
  MergeCommandOptions o;
  o.inputs = inputs;
  o.out_dir = out_dir;
  std::ostringstream out, err;
  const int code = merge_command(o, out, err);
  return {code, out.str(), err.str()};
}

// A run file's text without its MAC, which is keyed by its output directory's own key
// (run_store.h): everything else must agree byte for byte.
std::string without_mac(const std::string& text) {
  const auto at = text.find("\"content_hmac_sha256\": \"");
  return at == std::string::npos ? text : text.substr(0, at) + text.substr(at + 24 + 64);
}

// The files a sweep output must agree on, byte for byte (run files apart from their MAC).
void expect_same_output(const fs::path& a, const fs::path& b) {
  for (const char* f : {"aggregate.csv", "aggregate.jsonl", "sweep.json"})
    EXPECT_EQ(read_text(a / f), read_text(b / f)) << f << ": " << a << " vs " << b;
  const auto runs = result_files(a / "runs");
  EXPECT_EQ(runs, result_files(b / "runs"));
  for (const auto& r : runs) {
    const std::string ta = read_text(a / "runs" / r);
    EXPECT_NE(ta.find("\"content_hmac_sha256\": \""), std::string::npos) << r;
    EXPECT_EQ(without_mac(ta), without_mac(read_text(b / "runs" / r))) << r;
  }
}

TEST(SweepCommand, AggregatesAreByteIdenticalWhateverJobsOrShards) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  FakeRun serial, parallel, sharded;
  const Outcome one = sweep(dir / "demo.json", dir / "j1", serial, 1);
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out, "sweep demo: 6 points, 24 runs; 0 reused, 24 executed, 0 failed; 30 "
                     "aggregate rows in " + dir / "j1/aggregate.csv\n");
  ASSERT_EQ(sweep(dir / "demo.json", dir / "j4", parallel, 4).code, 0);
  std::vector<std::string> shards;
  for (int k = 0; k < 3; ++k) {
    shards.push_back(dir / ("shard-" + std::to_string(k)));
    const Outcome s = sweep(dir / "demo.json", shards.back(), sharded, 2,
                            std::to_string(k) + "/3");
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(result_files(fs::path(shards.back()) / "runs").size(), 8u);
  }
  const Outcome m = merge(shards, dir / "merged");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(m.out, "merge demo: 3 inputs, 24 runs, 24 copied, 0 missing; 30 aggregate rows in " +
                       dir / "merged/aggregate.csv\n");
  EXPECT_EQ(serial.executions, 24);
  EXPECT_EQ(parallel.executions, 24);
  EXPECT_EQ(sharded.executions, 24);
  EXPECT_EQ(result_files(dir.path() / "j1" / "runs").size(), 24u);
  expect_same_output(dir.path() / "j1", dir.path() / "j4");
  expect_same_output(dir.path() / "j1", dir.path() / "merged");
  // 6 points x (3 fixed metrics: count, delay_s.mean, sometimes_null + 2 adaptive ones).
  const std::string csv = read_text(dir.path() / "j1" / "aggregate.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 6 * (3 + 2));
}

TEST(SweepCommand, AggregateRowsCarryTheFakeModelsKnownDifference) {
  // adaptive - fixed = y - u/2 per replication: with y = 0.5 and 4 replications of u, the
  // paired mean is 0.5 - mean(u)/2, and the fixed mean is x + mean(u).
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  FakeRun fake;
  ASSERT_EQ(sweep(dir / "demo.json", dir / "out", fake).code, 0);
  double mean_u = 0;
  for (uint64_t r = 0; r < 4; ++r) mean_u += FakeRun::u(3, r) / 4;
  bool seen = false;
  std::istringstream rows(read_text(dir.path() / "out" / "aggregate.jsonl"));
  for (std::string line; std::getline(rows, line);) {
    const json row = json::parse(line);
    if (row["params"]["$.model.x"] != 2 || row["params"]["$.model.y"] != 0.5 ||
        row["metric"] != "delay_s.mean")
      continue;
    if (row["arm"] == "fixed") {
      EXPECT_NEAR(row["mean"].get<double>(), 2 + mean_u, 1e-12);
      EXPECT_EQ(row["reference_arm"], "fixed");
      EXPECT_TRUE(row["diff_mean"].is_null());
    } else {
      seen = true;
      EXPECT_EQ(row["diff_n"], 4);
      EXPECT_NEAR(row["diff_mean"].get<double>(), 0.5 - mean_u / 2, 1e-12);
    }
  }
  EXPECT_TRUE(seen);
}

TEST(SweepCommand, RerunSkipsFinishedRunsAndMoreReplicationsReuseThem) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep(4).dump());
  FakeRun first, again, more;
  ASSERT_EQ(sweep(dir / "demo.json", dir / "out", first, 2).code, 0);
  const std::string csv = read_text(dir.path() / "out" / "aggregate.csv");
  const Outcome rerun = sweep(dir / "demo.json", dir / "out", again, 2);
  ASSERT_EQ(rerun.code, 0);
  EXPECT_EQ(again.executions, 0);
  EXPECT_NE(rerun.out.find("24 reused, 0 executed"), std::string::npos) << rerun.out;
  EXPECT_EQ(read_text(dir.path() / "out" / "aggregate.csv"), csv);
  write_text(dir / "demo.json", demo_sweep(6).dump());
  ASSERT_EQ(sweep(dir / "demo.json", dir / "out", more, 2).code, 0);
  EXPECT_EQ(more.executions, 12);  // only replications 4 and 5 of the 6 points
  EXPECT_EQ(result_files(dir.path() / "out" / "runs").size(), 36u);
}

TEST(SweepCommand, CorruptResultIsRerunAndTempFilesAreCleaned) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  FakeRun first, second;
  ASSERT_EQ(sweep(dir / "demo.json", dir / "out", first).code, 0);
  const fs::path runs = dir.path() / "out" / "runs";
  const std::string victim = *result_files(runs).begin();
  const std::string good = read_text(runs / victim);
  write_text(runs / victim, good.substr(0, good.size() / 2));  // as if written non-atomically
  write_text(runs / ("." + victim + ".tmp.4242.0"), "{\"partial");
  ASSERT_TRUE(is_temp_file_name("." + victim + ".tmp.4242.0"));
  ASSERT_EQ(sweep(dir / "demo.json", dir / "out", second).code, 0);
  EXPECT_EQ(second.executions, 1);
  EXPECT_EQ(read_text(runs / victim), good);
  for (const auto& name : testing::file_names(runs)) EXPECT_FALSE(is_temp_file_name(name)) << name;
}

TEST(SweepCommand, FailedRunsWriteErrorFilesDoNotStopTheSweepAndExitThree) {
  ScratchDir dir;
  json doc = demo_sweep();
  doc["base"]["model"]["fail_x"] = 2;
  write_text(dir / "demo.json", doc.dump());
  FakeRun fake, retry;
  const Outcome o = sweep(dir / "demo.json", dir / "out", fake, 3);
  EXPECT_EQ(o.code, kExitRunsFailed);
  EXPECT_EQ(fake.executions, 24);
  const fs::path runs = dir.path() / "out" / "runs";
  EXPECT_EQ(result_files(runs).size(), 16u);
  size_t error_files = 0;
  for (const auto& n : testing::file_names(runs)) {
    if (n.size() > 11 && n.substr(n.size() - 11) == ".error.json") {
      ++error_files;
      const json e = json::parse(read_text(runs / n));
      EXPECT_EQ(e["internal_error"], "fake failure at x = 2.0");
      EXPECT_EQ(e["run_id"].get<std::string>() + ".error.json", n);
    }
  }
  EXPECT_EQ(error_files, 8u);
  // One stderr line per failed run, in run-list order (replication-major).
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 8);
  EXPECT_NE(o.err.find("(point 2: $.model.x = 2, $.model.y = 0, replication 0): internal error: "
                       "fake failure at x = 2.0\n"),
            std::string::npos)
      << o.err;
  EXPECT_LT(o.err.find("replication 0"), o.err.find("replication 1"));
  // Retrying reruns only the failed runs.
  EXPECT_EQ(sweep(dir / "demo.json", dir / "out", retry, 3).code, kExitRunsFailed);
  EXPECT_EQ(retry.executions, 8);
}

TEST(SweepCommand, InvalidSweepExitsTwoBeforeTouchingTheOutputDirectory) {
  ScratchDir dir;
  json doc = demo_sweep();
  doc["axes"][1]["path"] = "$.model.scale.y";
  write_text(dir / "bad.json", doc.dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "bad.json", dir / "out", fake);
  EXPECT_EQ(o.code, kExitBadInput);
  EXPECT_EQ(o.err, dir / "bad.json" +
                       ": $.axes[1].path: $.model.scale does not exist in the base scenario\n");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  EXPECT_EQ(fake.executions, 0);
  EXPECT_EQ(validate_sweep_file(dir / "bad.json", fake.api()),
            std::vector<std::string>{o.err.substr(0, o.err.size() - 1)});
  EXPECT_TRUE(validate_sweep_file((write_text(dir / "ok.json", demo_sweep().dump()), dir / "ok.json"),
                                  fake.api())
                  .empty());
  EXPECT_EQ(sweep(dir / "ok.json", dir / "out", fake, 1, "3/3").code, kExitBadInput);
}

TEST(SweepCommand, AggregateOnlyRunsNothingAndCountsWhatIsThere) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  FakeRun fake, none;
  ASSERT_EQ(sweep(dir / "demo.json", dir / "full", fake).code, 0);
  ASSERT_EQ(sweep(dir / "demo.json", dir / "part", fake, 1, "1/2").code, 0);
  const Outcome o = sweep(dir / "demo.json", dir / "part", none, 1, "", true);
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(none.executions, 0);
  EXPECT_NE(o.out.find("aggregated 12 results (12 runs without a result)"), std::string::npos)
      << o.out;
  fs::remove(dir.path() / "full" / "aggregate.csv");
  ASSERT_EQ(sweep(dir / "demo.json", dir / "full", none, 1, "", true).code, 0);
  EXPECT_EQ(none.executions, 0);
  EXPECT_TRUE(fs::exists(dir.path() / "full" / "aggregate.csv"));
}

TEST(SweepCommand, SecondSweepOnTheSameOutputDirectoryIsRefused) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  std::string error;
  auto lock = DirectoryLock::acquire(dir.path() / "out", &error);
  ASSERT_TRUE(lock.has_value()) << error;
  FakeRun fake;
  const Outcome o = sweep(dir / "demo.json", dir / "out", fake);
  EXPECT_EQ(o.code, kExitBadInput);
  EXPECT_NE(o.err.find("is in use by another fdsim sweep or merge"), std::string::npos) << o.err;
  EXPECT_EQ(fake.executions, 0);
}

TEST(SweepMerge, ShardsOfDifferentSweepsAreRefusedAndMissingRunsExitThree) {
  ScratchDir dir;
  write_text(dir / "a.json", demo_sweep(4).dump());
  write_text(dir / "b.json", demo_sweep(5).dump());
  FakeRun fake;
  ASSERT_EQ(sweep(dir / "a.json", dir / "a0", fake, 1, "0/2").code, 0);
  ASSERT_EQ(sweep(dir / "b.json", dir / "b1", fake, 1, "1/2").code, 0);
  Outcome m = merge({dir / "a0", dir / "b1"}, dir / "m");
  EXPECT_EQ(m.code, kExitBadInput);
  EXPECT_NE(m.err.find("a different sweep plan"), std::string::npos) << m.err;
  m = merge({dir / "a0", dir / "nothing"}, dir / "m");
  EXPECT_EQ(m.code, kExitBadInput);
  EXPECT_NE(m.err.find(dir / "nothing/sweep.json: not a sweep output"), std::string::npos);
  m = merge({dir / "a0"}, dir / "m");
  EXPECT_EQ(m.code, kExitRunsFailed);
  EXPECT_EQ(std::count(m.err.begin(), m.err.end(), '\n'), 12);
  EXPECT_EQ(result_files(dir.path() / "m" / "runs").size(), 12u);
}

TEST(SweepProgress, MachineReadableLineAndEta) {
  ProgressCounts c;
  c.total = 40;
  c.done = 12;
  c.running = 2;
  c.finished_here = 10;
  EXPECT_EQ(progress_line(c, 31.4), "progress done=12 running=2 failed=0 total=40 eta_s=31");
  EXPECT_EQ(progress_line(c, std::nullopt), "progress done=12 running=2 failed=0 total=40 eta_s=-1");
  // 28 runs left at 10 runs per 20 s.
  EXPECT_DOUBLE_EQ(*eta_seconds(c, 20.0), 56.0);
  c.finished_here = 0;
  EXPECT_FALSE(eta_seconds(c, 20.0).has_value());
  c.failed = 1;
  EXPECT_EQ(progress_bar(c, 75.0),
            "[#########.....................] 12/40 done, 2 running, 1 failed, ETA 1m15s");
}

TEST(SweepProgress, NonTerminalSweepPrintsProgressLinesAndQuietPrintsNothing) {
  ScratchDir dir;
  write_text(dir / "demo.json", demo_sweep().dump());
  FakeRun fake;
  SweepCommandOptions o;
  o.sweep_file = dir / "demo.json";
  o.out_dir = dir / "out";
  o.jobs = 2;
  o.progress = ProgressStyle::kLines;
  o.progress_interval = std::chrono::milliseconds(0);
  std::ostringstream out, err;
  ASSERT_EQ(sweep_command(o, fake.api(), out, err), 0);
  const std::string e = err.str();
  ASSERT_FALSE(e.empty());
  std::istringstream lines(e);
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("progress done=", 0), 0u) << line;
    EXPECT_NE(line.find(" total=24 eta_s="), std::string::npos) << line;
    last = line;
  }
  EXPECT_EQ(last, "progress done=24 running=0 failed=0 total=24 eta_s=0");
  o.quiet = true;
  o.out_dir = dir / "quiet";
  std::ostringstream qout, qerr;
  ASSERT_EQ(sweep_command(o, fake.api(), qout, qerr), 0);
  EXPECT_EQ(qout.str(), "");
  EXPECT_EQ(qerr.str(), "");
}

}  // namespace
}  // namespace fdsim::sweep
