// The fdsim binary as a user meets it: exit codes, one line per problem, no files on bad input,
// --version, --help with examples, byte-identical results of repeated runs, JSONL traces.

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"
#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using fdsim::test::Result;
using fdsim::test::slurp;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-cli-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Runs fdsim with `args` (a shell-quoted string) from the temp directory.
  Result fdsim(const std::string& args) const { return ::fdsim::test::run_fdsim(dir_, args, dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
    return name;
  }
  std::string write_json(const std::string& name, const json& doc) const {
    return write(name, doc.dump(2));
  }
  std::vector<std::string> files_in(const std::string& sub) const {
    std::vector<std::string> names;
    if (!fs::exists(dir_ + "/" + sub)) return names;
    for (const auto& e : fs::directory_iterator(dir_ + "/" + sub))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
};

// A small, fast, valid scenario: a heartbeat study with two arms and one crash.
json small_scenario() {
  return json::parse(R"({
    "name": "small", "seed": 3, "horizon_s": 30, "warmup_s": 1,
    "nodes": {"count": 4},
    "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}, "loss": 0.01},
    "faults": [{"kind": "crash", "at_s": 12, "nodes": [2]}],
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}},
                           {"name": "phi", "detector": {"kind": "phi_accrual"}}]}
  })");
}

TEST_F(CliTest, Version_PrintsVersionAndExitsZero) {
  const Result r = fdsim("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind(std::string("fdsim ") + FDSIM_VERSION + " (git ", 0), 0u) << r.out;
}

TEST_F(CliTest, Help_OfEveryCommandShowsExamples) {
  for (const char* cmd : {"", "run ", "validate ", "explain ", "trace "}) {
    const Result r = fdsim(std::string(cmd) + "--help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("Examples:"), std::string::npos) << cmd << r.out;
    EXPECT_NE(r.out.find("fdsim "), std::string::npos) << cmd;
  }
}

TEST_F(CliTest, NoSubcommand_IsBadInputOnOneLine) {
  const Result r = fdsim("");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
}

TEST_F(CliTest, UnknownOption_IsBadInputOnOneLine) {
  const Result r = fdsim("run --frobnicate x.json");
  EXPECT_EQ(r.code, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
}

TEST_F(CliTest, InvalidOptionValue_IsBadInput) {
  write_json("s.json", small_scenario());
  const Result r = fdsim("run s.json --replications 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
}

TEST_F(CliTest, BadScenario_ExitTwoOneLinePerProblemAndNoFiles) {
  json bad = small_scenario();
  bad["horizon_s"] = -5;
  bad["faults"][0]["at_s"] = -1;
  bad["detectors"]["arms"][1]["detector"]["kind"] = "psychic";
  write_json("bad.json", bad);
  write_json("good.json", small_scenario());
  const Result r = fdsim("run good.json bad.json --out results");
  EXPECT_EQ(r.code, 2);
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 3u) << r.err;
  EXPECT_EQ(lines[0], "bad.json: $.horizon_s: expected a number > 0 and <= 1000000000, got -5");
  for (const auto& l : lines) EXPECT_EQ(l.rfind("bad.json: $.", 0), 0u) << l;
  EXPECT_NE(r.err.find("$.faults[0].at_s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("$.detectors.arms[1].detector.kind"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos);
  // Nothing ran, nothing was written, not even for the good file.
  EXPECT_FALSE(fs::exists(dir_ + "/results"));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliTest, SyntaxError_IsOneLineWithLineAndColumn) {
  write("broken.json", "{\n  \"name\": \"x\",\n  \"seed\": ,\n}\n");
  const Result r = fdsim("validate broken.json");
  EXPECT_EQ(r.code, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("broken.json: line 3, column 11: syntax error", 0), 0u) << r.err;
}

TEST_F(CliTest, DirectoryAndMissingFile_AreBadInput) {
  fs::create_directory(dir_ + "/adir");
  const Result r = fdsim("validate adir missing.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines(),
            (std::vector<std::string>{"adir: is a directory, not a file",
                                      "missing.json: cannot read the file (No such file or "
                                      "directory)"}));
}

TEST_F(CliTest, Validate_ValidFileIsOk) {
  write_json("s.json", small_scenario());
  const Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 0) << r.err;
  // The cost estimate follows "ok" (sim/scenario/cost_estimate.h).
  EXPECT_EQ(r.out.rfind("s.json: ok, about ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" events (limits 16.0 GB / 1e+11 events)\n"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(CliTest, Explain_PrintsTheResolvedConfigOfTheRun) {
  write_json("s.json", small_scenario());
  const Result e = fdsim("explain s.json");
  ASSERT_EQ(e.code, 0) << e.err;
  const json resolved = json::parse(e.out);
  EXPECT_EQ(resolved["replications"], 1);                  // a default, written in
  EXPECT_EQ(resolved["network"]["retransmit_ms"], 100.0);  // a section default
  const Result r = fdsim("run s.json --quiet --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  const json result = json::parse(slurp(dir_ + "/o/small-seed3-rep0.json"));
  // explain writes node sets compactly ("senders": all 4 nodes -> {"from": 0, "to": 3});
  // run as a scenario, its output resolves to exactly the manifest's resolved_config.
  EXPECT_EQ(resolved["detectors"]["senders"], (json{{"from", 0}, {"to", 3}}));
  write("r.json", e.out);
  ASSERT_EQ(fdsim("run r.json --quiet --out o2").code, 0);
  const json again = json::parse(slurp(dir_ + "/o2/small-seed3-rep0.json"));
  EXPECT_EQ(again["manifest"]["resolved_config"], result["manifest"]["resolved_config"]);
  EXPECT_EQ(fdsim("explain r.json").out, e.out);  // a fixed point
}

TEST_F(CliTest, Explain_KeepsTheFilesKeyOrderAndWritesNodeRanges) {
  write("s.json", R"({"seed": 3, "name": "small", "horizon_s": 30, "warmup_s": 1,
    "nodes": {"count": 6, "groups": {"west": [0, 1, 2, 3], "odd": [1, 3]}},
    "network": {"loss": 0.01, "latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}},
    "faults": [{"kind": "crash", "at_s": 12, "nodes": [2]}],
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}}]}
  })");
  const Result e = fdsim("explain s.json");
  ASSERT_EQ(e.code, 0) << e.err;
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(e.out);
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  ASSERT_GE(keys.size(), 8u);
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 8),
            (std::vector<std::string>{"seed", "name", "horizon_s", "warmup_s", "nodes", "network",
                                      "faults", "detectors"}));
  std::vector<std::string> net_keys;
  for (auto it = doc["network"].begin(); it != doc["network"].end(); ++it)
    net_keys.push_back(it.key());
  EXPECT_EQ(net_keys[0], "loss");
  EXPECT_EQ(net_keys[1], "latency");
  EXPECT_EQ(doc["nodes"]["groups"]["west"], (nlohmann::ordered_json{{"from", 0}, {"to", 3}}));
  EXPECT_EQ(doc["nodes"]["groups"]["odd"], (nlohmann::ordered_json{1, 3}));
  EXPECT_EQ(doc["faults"][0]["nodes"], (nlohmann::ordered_json{2}));
  EXPECT_EQ(doc["detectors"]["senders"], (nlohmann::ordered_json{{"from", 0}, {"to", 5}}));
  EXPECT_EQ(e.out.find("\n      0,\n"), std::string::npos) << e.out;  // no long index lists
}

TEST_F(CliTest, Run_WritesOneResultPerReplicationAndSummarises) {
  write_json("s.json", small_scenario());
  const Result r = fdsim("run s.json --replications 2 --seed 9 --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files_in("o"),
            (std::vector<std::string>{"small-seed9-rep0.json", "small-seed9-rep1.json"}));
  EXPECT_NE(r.out.find("wrote o/small-seed9-rep0.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  fixed: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  phi: "), std::string::npos) << r.out;
  const json rep1 = json::parse(slurp(dir_ + "/o/small-seed9-rep1.json"));
  EXPECT_EQ(rep1["manifest"]["seed"], 9);
  EXPECT_EQ(rep1["manifest"]["replication"], 1);
  EXPECT_EQ(rep1["manifest"]["resolved_config"]["seed"], 9);
  EXPECT_TRUE(rep1["run_stats"].contains("wall_time_s"));
  EXPECT_TRUE(rep1["run_stats"].contains("peak_rss_kb"));
  // CPU time: the simulations' thread CPU time, positive, and the rate consistent with it.
  const json& stats = rep1["run_stats"];
  ASSERT_TRUE(stats.contains("cpu_time_s"));
  EXPECT_GT(stats["cpu_time_s"].get<double>(), 0.0);
  EXPECT_NEAR(stats["events_per_cpu_s"].get<double>(),
              stats["events_dispatched_count"].get<double>() / stats["cpu_time_s"].get<double>(),
              1e-6 * stats["events_per_cpu_s"].get<double>());
  double sim_cpu_s = 0;
  for (const json& sim : stats["simulations"]) sim_cpu_s += sim["cpu_time_s"].get<double>();
  EXPECT_DOUBLE_EQ(sim_cpu_s, stats["cpu_time_s"].get<double>());
}

TEST_F(CliTest, Quiet_PrintsNothing) {
  write_json("s.json", small_scenario());
  const Result r = fdsim("run s.json --quiet --out o");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// Everything before "run_stats" (the last key of a result file) must be byte-identical.
std::string without_run_stats(const std::string& text) {
  const auto at = text.find(",\n  \"run_stats\": {");
  EXPECT_NE(at, std::string::npos);
  return text.substr(0, at);
}

TEST_F(CliTest, TwoRunsOfTheSameScenarioAndSeed_GiveByteIdenticalResults) {
  write_json("s.json", small_scenario());
  ASSERT_EQ(fdsim("run s.json --quiet --out a").code, 0);
  ASSERT_EQ(fdsim("run s.json --quiet --out b").code, 0);
  const std::string a = slurp(dir_ + "/a/small-seed3-rep0.json");
  const std::string b = slurp(dir_ + "/b/small-seed3-rep0.json");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(without_run_stats(a), without_run_stats(b));
  // run_stats really is the last key and the only difference allowed.
  json ja = json::parse(a), jb = json::parse(b);
  ja.erase("run_stats");
  jb.erase("run_stats");
  EXPECT_EQ(ja.dump(), jb.dump());
  // A different seed gives a different run.
  ASSERT_EQ(fdsim("run s.json --quiet --seed 4 --out c").code, 0);
  const json jc = json::parse(slurp(dir_ + "/c/small-seed4-rep0.json"));
  EXPECT_NE(jc["manifest"]["arms"]["fixed"]["fingerprint"], ja["manifest"]["arms"]["fixed"]["fingerprint"]);
}

TEST_F(CliTest, Trace_WritesJsonLinesInTimeOrder) {
  write_json("s.json", small_scenario());
  const Result r = fdsim("run s.json --trace --quiet --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files_in("o"),
            (std::vector<std::string>{"small-seed3-rep0.json", "small-seed3-rep0.trace.jsonl"}));
  std::ifstream in(dir_ + "/o/small-seed3-rep0.trace.jsonl");
  size_t n = 0, crashes = 0;
  int64_t last_t = 0;
  for (std::string line; std::getline(in, line); ++n) {
    const json rec = json::parse(line);
    ASSERT_TRUE(rec["t_ns"].is_number_integer()) << line;
    ASSERT_TRUE(rec["kind"].is_string()) << line;
    ASSERT_TRUE(rec.contains("node")) << line;
    EXPECT_GE(rec["t_ns"].get<int64_t>(), last_t) << line;
    EXPECT_EQ(line.rfind("{\"t_ns\":", 0), 0u) << line;
    last_t = rec["t_ns"].get<int64_t>();
    if (rec["kind"] == "crash") {
      ++crashes;
      EXPECT_EQ(rec["t_ns"], int64_t(12'000'000'000));
      EXPECT_EQ(rec["node"], 2);
    }
  }
  EXPECT_GT(n, 10u);
  EXPECT_EQ(crashes, 1u);
  // The trace summary reads it back.
  const Result t = fdsim("trace o/small-seed3-rep0.trace.jsonl");
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("records by kind:"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("  crash 1\n"), std::string::npos) << t.out;
}

TEST_F(CliTest, TracePlantUml_NeedsAnArmWhenTheTraceHoldsSeveral) {
  const json ring = json::parse(R"({
    "name": "ring", "seed": 2, "horizon_s": 30, "nodes": {"count": 4},
    "faults": [{"kind": "crash", "at_s": 10, "nodes": [2]}],
    "membership": {"neighbour_check": [{"name": "fixed"},
                                       {"name": "phi", "detector": {"kind": "phi_accrual"}}]}
  })");
  write_json("ring.json", ring);
  ASSERT_EQ(fdsim("run ring.json --trace --quiet --out o").code, 0);
  const Result both = fdsim("trace o/ring-seed2-rep0.trace.jsonl --plantuml");
  EXPECT_EQ(both.code, 2);
  EXPECT_EQ(both.err_lines(),
            std::vector<std::string>{"o/ring-seed2-rep0.trace.jsonl: the trace holds 2 arms (one "
                                     "simulation each); choose one with --arm"});
  const Result unknown = fdsim("trace o/ring-seed2-rep0.trace.jsonl --plantuml --arm nope");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.err_lines(),
            std::vector<std::string>{"o/ring-seed2-rep0.trace.jsonl: no record of arm \"nope\" "
                                     "(arms: fixed, phi)"});
  const Result one = fdsim(
      "trace o/ring-seed2-rep0.trace.jsonl --plantuml --arm fixed --members 1,2,3 --from-s 9 "
      "--to-s 20");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("@startuml"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("@enduml"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find(" as n1\n"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find(" as n0\n"), std::string::npos) << one.out;  // not a member shown
  const Result window = fdsim("trace o/ring-seed2-rep0.trace.jsonl --plantuml --arm fixed "
                              "--from-s 20 --to-s 10");
  EXPECT_EQ(window.code, 2);
}

TEST_F(CliTest, TraceCommand_BadLineIsBadInput) {
  write("t.jsonl", "{\"t_ns\": 1, \"node\": 0, \"kind\": \"x\"}\nnot json\n");
  const Result r = fdsim("trace t.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines(),
            std::vector<std::string>{"t.jsonl: line 2: expected a trace record {\"t_ns\": ..., "
                                     "\"node\": ..., \"kind\": ...}"});
}

TEST_F(CliTest, RunOfASweepFile_IsRefusedWithAHint) {
  write_json("sw.json", json{{"base", "s.json"}, {"axes", json::array()}});
  const Result r = fdsim("run sw.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines(),
            std::vector<std::string>{"sw.json: is a sweep file; run it with: fdsim sweep sw.json"});
}

TEST_F(CliTest, UnwritableOutputDirectory_IsBadInput) {
  write_json("s.json", small_scenario());
  write("afile", "x");
  const Result r = fdsim("run s.json --out afile/sub");
  EXPECT_EQ(r.code, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("afile/sub: cannot create the output directory", 0), 0u) << r.err;
}

}  // namespace
