// Hostile input through the real fdsim binary (issue 16): each test reproduces one way fdsim
// used to crash, hang, grow without bound, or accept bad input silently, and checks the
// contract instead: exit 2 with one line per problem naming the file (and JSON path), exit 1
// with one line for internal and write errors, never a signal, nothing written on bad input.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;
using fdsim::test::Result;
using nlohmann::json;

class Robustness : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  bool exists(const std::string& name) const { return fs::exists(dir_ + "/" + name); }
};

// A small valid scenario (heartbeat study, 4 nodes, 20 s).
json small() {
  return json::parse(R"({
    "name": "small", "seed": 3, "horizon_s": 20, "warmup_s": 1, "nodes": {"count": 4},
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}}]}
  })");
}

std::string nested_arrays(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// Every line of stderr names the given file.
void expect_lines_name(const Result& r, const std::string& file) {
  ASSERT_FALSE(r.err_lines().empty());
  for (const auto& l : r.err_lines()) EXPECT_EQ(l.rfind(file + ": ", 0), 0u) << l;
}

TEST_F(Robustness, DeepNestingInASweepIsBadInputNotAStackOverflow) {
  // 100 000 nested arrays in an axis value used to overflow the stack (SIGSEGV) in a
  // recursive copy while the sweep was parsed.
  write("deep.json", R"({"base": {"name": "x"}, "axes": [{"path": "$.seed", "values": [)" +
                         nested_arrays(100000) + "]}]}");
  const Result r = fdsim("sweep deep.json --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("deep.json: $.axes[0].values[0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nested deeper than the limit of 256"), std::string::npos) << r.err;
  EXPECT_FALSE(exists("o/runs"));
}

TEST_F(Robustness, DeepNestingInAManifestIsBadInputForMerge) {
  fs::create_directories(dir_ + "/shard");
  write("shard/sweep.json", "{\"plan\": " + nested_arrays(100000) + "}");
  const Result r = fdsim("merge shard --out merged");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("nested deeper than the limit of 256"), std::string::npos) << r.err;
}

TEST_F(Robustness, DeepNestingInValidateCostsLinearMemory) {
  // 80 KB of nesting used to exhaust 4 GB (a path string per level, each as long as the
  // depth). Under a 512 MB address-space cap it must now answer exit 2 at once.
  write("deep.json", "{\"a\": " + nested_arrays(40000) + "}");
  const Result r = fdsim("validate deep.json");
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err_lines()[0].rfind("deep.json: $.a", 0), 0u) << r.err;
}

TEST_F(Robustness, AFifoOrADeviceIsRefusedNotReadForever) {
  ASSERT_EQ(::mkfifo((dir_ + "/pipe.json").c_str(), 0600), 0);
  Result r = fdsim("validate pipe.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err_lines(), std::vector<std::string>{
                               "pipe.json: is not a regular file (a FIFO, device or socket is not "
                               "read)"});
  r = fdsim("validate /dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  expect_lines_name(r, "/dev/zero");
}

TEST_F(Robustness, SweepAndValidateReadJsonAlike) {
  // 1e400 in an axis value: exit 1 from sweep but 2 from validate, before one reader.
  write("big.json", R"({"base": {"name": "x"}, "axes": [{"path": "$.seed", "values": [1e400]}]})");
  Result r = fdsim("sweep big.json --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  expect_lines_name(r, "big.json");
  // Duplicate keys, in the sweep file and in its base scenario: rejected by both commands.
  write("dup.json", R"({"base": {"name": "x"}, "base": {"name": "y"}, "axes": []})");
  r = fdsim("sweep dup.json --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("dup.json: $.base: duplicate key"), std::string::npos) << r.err;
  write("base.json", R"({"name": "x", "name": "y"})");
  write("s.json", R"({"base": "base.json", "axes": [{"path": "$.seed", "values": [1, 2]}]})");
  r = fdsim("sweep s.json --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("duplicate key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("base.json: $.name"), std::string::npos) << r.err;
}

TEST_F(Robustness, TraceOnALoadSharingScenarioIsWrittenNotAnAbort) {
  const std::string src = std::string(FDSIM_SOURCE_DIR) + "/scenarios/examples/loadsharing/hou-shin-arms.json";
  json doc = json::parse(fdsim::test::slurp(src));
  doc["horizon_s"] = 60;
  doc["replications"] = 1;
  doc["warmup_s"] = 10;
  write("ls.json", doc.dump());
  const Result r = fdsim("run ls.json --trace --quiet --out o");
  EXPECT_EQ(r.code, 0) << r.err;
  bool found = false;
  for (const auto& e : fs::directory_iterator(dir_ + "/o"))
    if (e.path().string().ends_with(".trace.jsonl")) found = fs::file_size(e.path()) > 0;
  EXPECT_TRUE(found);
}

TEST_F(Robustness, SeedsOutsideZeroToTwoToThe64AreRefused) {
  write("s.json", small().dump());
  for (const char* bad : {"-1", "18446744073709551616", "1e3", "12abc", "' '"}) {
    const Result r = fdsim(std::string("run s.json --quiet --out o --seed ") + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_EQ(r.err_lines()[0].rfind("--seed: expected an integer from 0 to 18446744073709551615", 0),
              0u)
        << r.err;
  }
  EXPECT_FALSE(exists("o"));
  const Result ok = fdsim("run s.json --quiet --out o --seed 18446744073709551615");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(exists("o/small-seed18446744073709551615-rep0.json"));
}

TEST_F(Robustness, TwoScenariosWritingTheSameFileAreBadInput) {
  json a = small(), b = small();
  b["horizon_s"] = 25;  // a different scenario with the same name and seed
  write("a.json", a.dump());
  write("b.json", b.dump());
  const Result r = fdsim("run a.json b.json --quiet --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err_lines()[0].rfind("b.json: $.name: ", 0), 0u) << r.err;
  EXPECT_FALSE(exists("o"));
}

TEST_F(Robustness, ABadTraceRecordIsBadInputNotAnInternalError) {
  write("t.jsonl",
        "{\"t_ns\": 1, \"node\": 0, \"kind\": \"tick\", \"arm\": \"a\"}\n"
        "{\"t_ns\": 2, \"node\": 0, \"kind\": \"tick\", \"arm\": null}\n");
  const Result r = fdsim("trace t.jsonl");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err_lines(),
            std::vector<std::string>{"t.jsonl: line 2: \"arm\" must be a string"});
}

TEST_F(Robustness, ADelayFileIsNeverEchoed) {
  write("secret.txt", "1.0\nthe password is hunter2\n");
  json doc = small();
  doc["network"] = {{"latency", {{"model", "empirical"}, {"file", "secret.txt"}}}};
  write("s.json", doc.dump());
  const Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("secret.txt:2:"), std::string::npos) << r.err;
}

TEST_F(Robustness, HugeNodeRangesAreRefusedBeforeTheyAreExpanded) {
  // Fifty groups {"from": 0, "to": 9999999} (2 KB) took more than 3 GB in validate.
  json doc = small();
  doc["nodes"] = {{"count", 10000000}, {"groups", json::object()}};
  for (int i = 0; i < 50; ++i)
    doc["nodes"]["groups"]["g" + std::to_string(i)] = {{"from", 0}, {"to", 9999999}};
  write("n.json", doc.dump());
  const Result r = fdsim("validate n.json");
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("n.json: $.nodes.groups.g"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("more than the limit of 16777216 node indices"), std::string::npos) << r.err;
}

TEST_F(Robustness, ATimeThatRoundsToZeroNanosecondsIsRefused) {
  // member_timeout_ms 1e-7 passed validation and the run then never advanced.
  json doc = json::parse(fdsim::test::slurp(std::string(FDSIM_SOURCE_DIR) +
                                            "/scenarios/examples/geode-ring.json"));
  doc["membership"]["member_timeout_ms"] = 1e-7;
  write("g.json", doc.dump());
  const Result r = fdsim("validate g.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err_lines(),
            std::vector<std::string>{"g.json: $.membership.member_timeout_ms: expected a time of "
                                     "at least 1 ns (1e-06 ms), got 1e-07, which rounds to 0 ns"});
}

TEST_F(Robustness, ASweepSurvivesWorkerThreadsThatCannotBeCreated) {
  // -j 600 under a memory cap: thread creation fails (each thread reserves an 8 MiB stack);
  // it used to end in "terminate called without an active exception" (SIGABRT), and later, in
  // about one run in three, in "out of memory" (the stacks left the runs no room). The sweep now
  // starts at most (cap / 2) / stack workers and retires half of its workers if a creation
  // fails anyway. One malloc arena, so that the cap hits thread stacks and not the per-thread
  // arenas of glibc.
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v run";
#endif
  json base = small();
  base["horizon_s"] = 2;
  base["warmup_s"] = 0.5;
  write("base.json", base.dump());
  json values = json::array();
  for (int i = 1; i <= 80; ++i) values.push_back(i);
  write("s.json", json{{"base", "base.json"},
                       {"axes", {{{"path", "$.seed"}, {"values", values}}}}}
                      .dump());
  const std::string cmd = "cd '" + dir_ + "' && ulimit -v 400000 && MALLOC_ARENA_MAX=1 '" + fdsim::test::kFdsim +
                          "' sweep s.json -j 600 --quiet --out o >/dev/null 2>err.txt";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal";
  EXPECT_EQ(WEXITSTATUS(status), 0) << fdsim::test::slurp(dir_ + "/err.txt");
  size_t results = 0;
  for (const auto& e : fs::directory_iterator(dir_ + "/o/runs"))
    if (e.path().extension() == ".json") ++results;
  EXPECT_EQ(results, 80u);
}

// A two-point sweep of the small scenario, run into `out`; returns the run files.
std::vector<fs::path> sweep_two_points(const Robustness& t, const std::string& dir,
                                       const std::string& out) {
  json base = small();
  base["horizon_s"] = 5;
  std::ofstream(dir + "/base.json") << base.dump();
  std::ofstream(dir + "/s.json") << json{{"base", "base.json"},
                                         {"axes", {{{"path", "$.seed"}, {"values", {1, 2}}}}}}
                                        .dump();
  const Result r = fdsim::test::run_fdsim(dir, "sweep s.json --quiet --out " + out, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir + "/" + out + "/runs"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  (void)t;
  return files;
}

TEST_F(Robustness, ResumeRerunsAHandEditedResult) {
  const auto files = sweep_two_points(*this, dir_, "o");
  ASSERT_EQ(files.size(), 2u);
  json doc = json::parse(fdsim::test::slurp(files[0].string()));
  doc["metrics"]["fixed"]["edited"] = 1e308;
  std::ofstream(files[0]) << doc.dump(2);
  const Result r = fdsim("sweep s.json --out o");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("not reused, run again: " + files[0].stem().string() +
                       ": its content does not match its integrity hash"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 reused, 1 executed"), std::string::npos) << r.out;
  EXPECT_FALSE(json::parse(fdsim::test::slurp(files[0].string()))["metrics"]["fixed"].contains("edited"));
}

TEST_F(Robustness, MergeRefusesARunFileCopiedUnderAnotherIdOrFromAnotherRevision) {
  const auto files = sweep_two_points(*this, dir_, "a");
  ASSERT_EQ(files.size(), 2u);
  // A result copied under the other run's id.
  fs::copy_file(files[0], files[1], fs::copy_options::overwrite_existing);
  Result r = fdsim("merge a --out m");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("a/runs/" + files[1].filename().string() +
                       ": not merged: it is the result of run \"" +
                       files[0].stem().string() + "\""),
            std::string::npos)
      << r.err;
  // A shard written by another revision (its own hash consistent).
  sweep_two_points(*this, dir_, "b");
  const fs::path f = dir_ + "/b/runs/" + files[0].filename().string();
  json doc = json::parse(fdsim::test::slurp(f.string()));
  doc["manifest"]["git_revision"] = "0123456789ab";
  std::ofstream(f) << doc.dump(2);
  r = fdsim("merge b --out m2");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("not merged: "), std::string::npos) << r.err;
}

TEST_F(Robustness, AKeyWithANewlineIsReportedOnOneLine) {
  write("k.json", R"({"name": "x", "seed": 1, "a\nb": 1})");
  const Result r = fdsim("validate k.json");
  EXPECT_EQ(r.code, 2) << r.err;
  bool found = false;
  for (const auto& l : r.err_lines()) {
    EXPECT_EQ(l.rfind("k.json: ", 0), 0u) << "a line that does not name the file: " << l;
    if (l.find("$.a\\nb") != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << r.err;
}

TEST_F(Robustness, AStringValueWithANewlineIsQuotedOnOneLine) {
  // Found by tests/fuzz/cli_mutation_fuzz.py (seed 2): "got the string" split the line.
  write("s.json", "\"\\n\"");
  const Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err_lines(), std::vector<std::string>{
                               "s.json: $: expected a JSON object (a scenario), got the string "
                               "\"\\n\""});
}

TEST_F(Robustness, AnUnwritableOutputDirectoryIsBadInputForRunAndSweep) {
  // /proc/self/fdinfo is a directory nobody, not even root, can create files in.
  write("s.json", small().dump());
  Result r = fdsim("run s.json --quiet --out /proc/self/fdinfo");
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err_lines()[0].rfind("/proc/self/fdinfo: cannot write into the output directory", 0), 0u)
      << r.err;
  write("w.json", json{{"base", "s.json"}, {"axes", {{{"path", "$.seed"}, {"values", {1}}}}}}.dump());
  r = fdsim("sweep w.json --quiet --out /proc/self/fdinfo");
  EXPECT_EQ(r.code, 2) << r.err;
}

TEST_F(Robustness, ASweepFileNameThatIsNotUtf8Works) {
  // It used to exit 1 (the manifest's JSON dump threw on the name) and leave OUT/.lock.
  json base = small();
  base["horizon_s"] = 3;
  write("base.json", base.dump());
  write("s\xff.json", json{{"base", "base.json"}, {"axes", {{{"path", "$.seed"}, {"values", {1}}}}}}.dump());
  const Result r = fdsim("sweep \"$(printf 's\\377.json')\" --quiet --out o");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(exists("o/aggregate.csv"));
}

}  // namespace
