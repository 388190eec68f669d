// Issue 24 (robustness, second round) and the interrupt item of issue 28, through the real
// binary: validated input never aborts, data files are read by the one guarded reader and tied
// to the run identity, and SIGINT/SIGTERM/SIGXFSZ end fdsim cleanly.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace robust24 {

namespace fs = std::filesystem;
using fdsim::test::Result;
using nlohmann::json;

json shipped(const std::string& relative) {
  return json::parse(fdsim::test::slurp(std::string(FDSIM_SOURCE_DIR) + "/scenarios/" + relative));
}

class RobustInput : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  void write_json(const std::string& name, const json& doc) const { write(name, doc.dump(2)); }
  size_t temp_files_under(const std::string& sub) const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_ + "/" + sub))
      if (e.path().filename().string().find(".tmp") != std::string::npos) ++n;
    return n;
  }
};

// The empirical-execution example with its execution file replaced by `name`, 200 s.
json with_execution_file(const std::string& name) {
  json doc = shipped("examples/loadsharing/empirical-execution.json");
  doc["workload"]["execution"]["file"] = name;
  doc["horizon_s"] = 200;
  doc["warmup_s"] = 20;
  doc["workload"].erase("load_phases");
  return doc;
}

// The execution-times file had its own reader: it echoed the file's content in its error
// (a password or environment file through a relative path), accepted values beyond its own
// range and hung on a FIFO (failed before: the first and the third assertion, and the FIFO case
// timed out).
TEST_F(RobustInput, ExecutionFileIsReadByTheGuardedReader) {
  write("secret.env", "API_TOKEN=hunter2\n");
  write_json("s.json", with_execution_file("secret.env"));
  Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("s.json: $.workload.execution.file: "), std::string::npos) << r.err;

  write("big.txt", "1.0 2e6\n");
  write_json("s.json", with_execution_file("big.txt"));
  r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("big.txt:1: expected execution times in seconds >= 0 and <= 1e+06"),
            std::string::npos)
      << r.err;

  ASSERT_EQ(::mkfifo((dir_ + "/times.fifo").c_str(), 0600), 0);
  write_json("s.json", with_execution_file("times.fifo"));
  r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("times.fifo: is not a regular file"), std::string::npos) << r.err;
}

// Run identity ignored data files: after every delay sample changed, resume reused every run
// (failed before: "1 reused" on the second sweep, and explain had no file_digest).
TEST_F(RobustInput, DataFileDigestIsPartOfTheRunIdentity) {
  json scen = shipped("examples/empirical-network.json");
  scen["horizon_s"] = 5;
  write("delays.txt", "1\n2\n3\n");
  scen["network"]["latency"]["file"] = "delays.txt";
  write_json("scen.json", scen);
  Result r = fdsim("explain scen.json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json resolved = json::parse(r.out);
  const std::string digest = resolved["network"]["latency"]["file_digest"];
  EXPECT_EQ(digest.rfind("fnv1a64:", 0), 0u) << digest;

  json sweep = {{"name", "d"},
                {"base", "scen.json"},
                {"axes", json::array({{{"path", "$.seed"}, {"values", {1}}}})}};
  write_json("sweep.json", sweep);
  r = fdsim("sweep sweep.json --out o --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  write("delays.txt", "4\n5\n6\n");
  r = fdsim("sweep sweep.json --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 reused, 1 executed"), std::string::npos) << r.out;

  // A resolved scenario that records the old digest is refused once the file changed.
  write_json("pinned.json", resolved);
  r = fdsim("validate pinned.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("pinned.json: $.network.latency.file_digest: the file's content changed"),
            std::string::npos)
      << r.err;
}

// Inputs `validate` accepted that aborted the run (SIGABRT) or hung before it started; each is
// now refused with a bound or runs to the end (all failed before: signal 6, or the timeout).
TEST_F(RobustInput, EdgeValuesThatAbortedAreRefusedOrRun) {
  // A tiny app-message rate: the exponential gap overflowed the nanosecond conversion.
  json geode = shipped("examples/geode-ring.json");
  geode["horizon_s"] = 30;
  geode["membership"]["app_messages_per_s"] = 1e-300;
  write_json("g.json", geode);
  Result r = fdsim("run g.json --quiet --out o");
  EXPECT_EQ(r.code, 0) << r.err;

  // A forgotten posterior rate rounded to a subnormal ("rounding rate did not converge").
  json ls = shipped("examples/load-sharing.json");
  ls["horizon_s"] = 100;
  ls["warmup_s"] = 10;
  ls["replications"] = 1;
  ls["load_sharing"]["estimation"]["forgetting_per_s"] = 5e-324;
  write_json("f.json", ls);
  r = fdsim("run f.json --quiet --out o");
  EXPECT_EQ(r.code, 0) << r.err;

  // Loss just below 1 with an extra-broadcast arm: counting tolerated broadcasts up to 3e16.
  json extra = shipped("examples/loadsharing/geode-ring-membership.json");
  extra["network"]["loss"] = 0.999999999;
  write_json("l.json", extra);
  r = fdsim("validate l.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("l.json: $.network.loss: arm "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing broadcasts"), std::string::npos) << r.err;

  // th_f = 2^63 wrapped the exit chain's bounds; an extreme prior made the series run for
  // minutes.
  json big = shipped("examples/loadsharing/hou-shin-arms.json");
  big["load_sharing"]["th_f"] = 9223372036854775808.0;
  big["load_sharing"]["estimation"]["arrival_prior_shape"] = 9223372036854775808.0;
  write_json("t.json", big);
  r = fdsim("validate t.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("t.json: $.load_sharing.th_f: expected a number >= 0 and <= 10000"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("t.json: $.load_sharing.estimation.arrival_prior_shape: expected a "
                       "number >= 0.001 and <= "),
            std::string::npos)
      << r.err;
  // Each number in range, but the prior rate 1e-15 per s is not.
  json slow = shipped("examples/loadsharing/hou-shin-arms.json");
  slow["load_sharing"]["estimation"]["arrival_prior_shape"] = 1e-3;
  slow["load_sharing"]["estimation"]["arrival_prior_exposure_s"] = 1e12;
  write_json("t.json", slow);
  r = fdsim("validate t.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("t.json: $.load_sharing.estimation.arrival_prior_shape: expected a prior "
                       "rate arrival_prior_shape / arrival_prior_exposure_s within [1e-9, 1e9] "
                       "per s, got 1e-15"),
            std::string::npos)
      << r.err;
}

// Starts `fdsim args` in dir, sends `sig` after `delay`, returns the exit status.
int run_and_signal(const std::string& dir, const std::string& args, int sig,
                   std::chrono::milliseconds delay, std::string* err) {
  const std::string err_path = dir + "/.sig-stderr";
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    const std::string cmd = "exec '" + fdsim::test::kFdsim + "' " + args + " >/dev/null 2>'" +
                            err_path + "'";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(delay);
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  *err = fdsim::test::slurp(err_path);
  fs::remove(err_path);
  return status;
}

// Ctrl-C and SIGTERM ended a sweep silently (issue 28, point 7): now the running simulations
// stop, nothing partial is stored, one line says how many runs are stored, the exit code is
// 128 + signal, and the same command resumes (failed before: killed by the signal, no line).
TEST_F(RobustInput, SigtermAndSigintStopASweepCleanly) {
  json scen = shipped("examples/heartbeat-study.json");
  scen["horizon_s"] = 1e6;  // long enough to be running when the signal comes
  scen["replications"] = 1;
  write_json("scen.json", scen);
  json sweep = {{"name", "long"},
                {"base", "scen.json"},
                {"axes", json::array({{{"path", "$.seed"}, {"values", {1, 2, 3}}}})}};
  write_json("sweep.json", sweep);
  for (const int sig : {SIGTERM, SIGINT}) {
    std::string err;
    const int status =
        run_and_signal(dir_, "sweep sweep.json --out o -j 2 --quiet", sig,
                       std::chrono::milliseconds(1500), &err);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << ": " << err;
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << err;
    EXPECT_NE(err.find("sweep.json: interrupted by " +
                       std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
                       ": 0 of 3 runs stored; rerun the same command to resume"),
              std::string::npos)
        << err;
    EXPECT_EQ(temp_files_under("o"), 0u);
    EXPECT_FALSE(fs::exists(dir_ + "/o/aggregate.csv"));
    size_t records = 0;
    for (const auto& e : fs::directory_iterator(dir_ + "/o/runs"))
      records += e.is_regular_file() && e.path().filename() != ".integrity-key";  // run_store.h
    EXPECT_EQ(records, 0u) << "an interrupted run wrote a result or an error record";
  }
}

// Under a file-size limit (Slurm sets one) SIGXFSZ killed fdsim with a core and left its
// temporary file; now the write fails, is reported on one line, and the temp file is removed
// (failed before: killed by signal 25).
TEST_F(RobustInput, FileSizeLimitIsAWriteErrorNotASignal) {
  json scen = shipped("examples/heartbeat-study.json");
  scen["horizon_s"] = 40;
  scen["replications"] = 1;
  write_json("scen.json", scen);
  fs::create_directories(dir_ + "/o");
  const std::string cmd = "cd '" + dir_ + "' && (ulimit -f 1; exec '" + fdsim::test::kFdsim +
                          "' run scen.json --quiet --out o) 2>'" + dir_ + "/err.txt'";
  const int status = std::system(cmd.c_str());
  const std::string err = fdsim::test::slurp(dir_ + "/err.txt");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;  // 153 = 128 + SIGXFSZ before
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_EQ(temp_files_under("o"), 0u);
}

// A kill during aggregation left ".aggregate.csv.tmp.<pid>.<n>" in OUT, never removed
// (failed before: the file was still there after the resume).
TEST_F(RobustInput, ResumeRemovesStaleTemporaryAggregates) {
  json scen = shipped("examples/heartbeat-study.json");
  scen["horizon_s"] = 40;
  scen["replications"] = 1;
  write_json("scen.json", scen);
  write_json("sweep.json", {{"name", "t"},
                            {"base", "scen.json"},
                            {"axes", json::array({{{"path", "$.seed"}, {"values", {1}}}})}});
  ASSERT_EQ(fdsim("sweep sweep.json --out o --quiet").code, 0);
  write("o/.aggregate.csv.tmp.999999.0", "partial");
  const Result r = fdsim("sweep sweep.json --out o --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/o/.aggregate.csv.tmp.999999.0"));
}

// Silent acceptances of item 12 (each was exit 0 before).
TEST_F(RobustInput, NanTraceWindowAndNegativeTimeoutStateAreRefused) {
  write("t.trace.jsonl", "");
  Result r = fdsim("trace t.trace.jsonl --from-s nan");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--from-s: expected a finite time in s"), std::string::npos) << r.err;
  r = fdsim("timeout --region U --state -1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("fdsim timeout: --state: expected a queue length >= 0, got -1"),
            std::string::npos)
      << r.err;
  r = fdsim("timeout --region U --lambda 1e300");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--lambda: expected a rate <= 1e9 per s"), std::string::npos) << r.err;
}

// Control characters in a trace went into PlantUML unescaped (a newline in a field started an
// "!include" line), and node 2^32 was drawn as node 0 (both failed before). A node id that does
// not fit is now refused with its line (exit 2), never dropped from the diagram.
TEST_F(RobustInput, PlantUmlEscapesControlCharactersAndRefusesWideNodeIds) {
  write("t.trace.jsonl",
        "{\"t_ns\": 1000, \"node\": 1, \"kind\": \"note\", \"x\": \"a\\n!include /etc/passwd\"}\n");
  Result r = fdsim("trace t.trace.jsonl --plantuml");
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);) EXPECT_NE(l.rfind("!include", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("x=a\\n!include"), std::string::npos) << r.out;

  write("w.trace.jsonl",
        "{\"t_ns\": 1000, \"node\": 1, \"kind\": \"note\"}\n"
        "{\"t_ns\": 2000, \"node\": 4294967296, \"kind\": \"wide\"}\n");
  r = fdsim("trace w.trace.jsonl --plantuml");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("w.trace.jsonl: line 2: \"node\" must be a node id"), std::string::npos)
      << r.err;
}

}  // namespace robust24
