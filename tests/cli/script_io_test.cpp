// The command line for scripts (sim/cli/script_input.h): a scenario on standard input ("-"),
// `--set PATH=VALUE` overrides on run / validate / explain, and `--stdout` / `--out -`.
// (One translation unit with the other CLI tests: names here must not clash with theirs.)

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using fdsim::test::Result;
using fdsim::test::slurp;

class ScriptIoTest : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  std::vector<std::string> lines(const std::string& text) const {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
};

// A heartbeat study of a few simulated seconds (fast), two arms.
json script_scenario() {
  return json::parse(R"({
    "name": "script", "seed": 3, "horizon_s": 20, "warmup_s": 1,
    "nodes": {"count": 4},
    "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}, "loss": 0.01},
    "faults": [{"kind": "crash", "at_s": 8, "nodes": [2]}],
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}},
                           {"name": "phi", "detector": {"kind": "phi_accrual"}}]}
  })");
}

json without_stats(json doc) {
  doc.erase("run_stats");
  return doc;
}

TEST_F(ScriptIoTest, RunFromStdin_GivesTheResultOfTheSameFile) {
  write("s.json", script_scenario().dump(2));
  ASSERT_EQ(fdsim("run s.json --quiet --out files").code, 0);
  const Result r = fdsim("run - --quiet --out piped < s.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(without_stats(json::parse(slurp(dir_ + "/piped/script-seed3-rep0.json"))),
            without_stats(json::parse(slurp(dir_ + "/files/script-seed3-rep0.json"))));
}

TEST_F(ScriptIoTest, Stdout_OneJsonLinePerReplicationEqualToTheResultFiles) {
  write("s.json", script_scenario().dump(2));
  ASSERT_EQ(fdsim("run s.json --replications 2 --quiet --out files").code, 0);
  for (const std::string flag : {"--stdout", "--out -"}) {
    const Result r = fdsim("run - --replications 2 " + flag + " < s.json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto ls = lines(r.out);
    ASSERT_EQ(ls.size(), 2u) << r.out;  // nothing but the results on stdout
    for (int rep = 0; rep < 2; ++rep) {
      const json file =
          json::parse(slurp(dir_ + "/files/script-seed3-rep" + std::to_string(rep) + ".json"));
      const json line = json::parse(ls[size_t(rep)]);
      EXPECT_TRUE(line.contains("run_stats"));
      EXPECT_EQ(without_stats(line), without_stats(file)) << flag << " rep " << rep;
    }
    EXPECT_FALSE(fs::exists(dir_ + "/-")) << "--out - must not create a directory named -";
  }
}

TEST_F(ScriptIoTest, Set_OverridesFieldsInOrderAsASweepAxisWould) {
  write("s.json", script_scenario().dump(2));
  // Two overrides, one of an array element, one of an absent optional key.
  const Result r = fdsim(
      "run s.json --stdout --set '$.horizon_s=12' "
      "--set '$.detectors.arms[0].detector.timeout_ms=900' --set '$.name=\"renamed\"'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json res = json::parse(lines(r.out).at(0));
  const json& cfg = res["manifest"]["resolved_config"];
  EXPECT_EQ(res["manifest"]["scenario_name"], "renamed");
  EXPECT_EQ(cfg["horizon_s"], 12);
  EXPECT_EQ(cfg["detectors"]["arms"][0]["detector"]["timeout_ms"], 900);
  // The same as editing the file.
  json edited = script_scenario();
  edited["horizon_s"] = 12;
  edited["detectors"]["arms"][0]["detector"]["timeout_ms"] = 900;
  edited["name"] = "renamed";
  write("e.json", edited.dump());
  const Result e = fdsim("run e.json --stdout");
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_EQ(without_stats(json::parse(lines(e.out).at(0))), without_stats(res));
  // Later overrides win.
  const Result twice = fdsim("explain s.json --set '$.horizon_s=12' --set '$.horizon_s=15'");
  ASSERT_EQ(twice.code, 0) << twice.err;
  EXPECT_EQ(json::parse(twice.out)["horizon_s"], 15);
}

TEST_F(ScriptIoTest, Set_ProblemsAreBadInputNamingTheArgument) {
  write("s.json", script_scenario().dump(2));
  struct Case {
    std::string arg, expect;
  } cases[] = {
      {"'horizon_s=5'", "--set horizon_s=5: expected a JSON path"},
      {"'$.horizon_s'", "--set $.horizon_s: expected PATH=VALUE"},
      {"'$.name=renamed'", "a string needs JSON quotes: --set '$.name=\"renamed\"'"},
      {"'$.nope.deeper=1'", "s.json: --set $.nope.deeper=1: "},
      {"'$.detectors.arms[7].name=\"x\"'", "s.json: --set $.detectors.arms[7].name=\"x\": "},
  };
  for (const auto& c : cases) {
    for (const std::string cmd : {"run s.json --out o", "validate s.json", "explain s.json"}) {
      const Result r = fdsim(cmd + " --set " + c.arg);
      EXPECT_EQ(r.code, 2) << cmd << " " << c.arg;
      ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
      EXPECT_NE(r.err.find(c.expect), std::string::npos) << cmd << " " << c.arg << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ + "/o"));
  // A value the loader refuses is reported like a bad file, with the JSON path.
  const Result bad = fdsim("validate s.json --set '$.network.loss=2'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("s.json: $.network.loss: "), std::string::npos) << bad.err;
}

TEST_F(ScriptIoTest, ValidateAndExplainFromStdin) {
  write("s.json", script_scenario().dump(2));
  const Result ok = fdsim("validate - < s.json");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out.rfind("<stdin>: ok, about ", 0), 0u) << ok.out;
  json bad = script_scenario();
  bad["horizon_s"] = -1;
  bad["network"]["loss"] = "x";
  write("bad.json", bad.dump());
  const Result r = fdsim("validate - < bad.json");
  EXPECT_EQ(r.code, 2);
  ASSERT_EQ(r.err_lines().size(), 2u) << r.err;
  for (const auto& l : r.err_lines()) EXPECT_EQ(l.rfind("<stdin>: $.", 0), 0u) << l;
  // explain from stdin keeps the text's key order, as from a file.
  const Result piped = fdsim("explain - < s.json");
  const Result file = fdsim("explain s.json");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.out, file.out);
  // Empty input and a syntax error name <stdin>.
  write("empty.json", "");
  const Result empty = fdsim("validate - < empty.json");
  EXPECT_EQ(empty.code, 2);
  EXPECT_EQ(empty.err.rfind("<stdin>: ", 0), 0u) << empty.err;
  // A sweep on stdin is validated as a sweep.
  write("sweep.json", json({{"base", script_scenario()},
                            {"axes", {{{"path", "$.horizon_s"}, {"values", {10, -3}}}}}})
                          .dump());
  const Result sw = fdsim("validate - < sweep.json");
  EXPECT_EQ(sw.code, 2);
  EXPECT_NE(sw.err.find("<stdin>"), std::string::npos) << sw.err;
  EXPECT_NE(sw.err.find("$.horizon_s"), std::string::npos) << sw.err;
}

TEST_F(ScriptIoTest, StdinTwiceAndTraceToStdout_AreRefused) {
  write("s.json", script_scenario().dump(2));
  const Result twice = fdsim("validate - - < s.json");
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("standard input can be read only once"), std::string::npos) << twice.err;
  const Result trace = fdsim("run s.json --stdout --trace");
  EXPECT_EQ(trace.code, 2);
  EXPECT_NE(trace.err.find("--trace"), std::string::npos) << trace.err;
  EXPECT_TRUE(trace.out.empty());
}

}  // namespace
