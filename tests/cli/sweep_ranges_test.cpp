// Sweeps the way researchers write them, through the real CLI: range and geometric-range axis
// values, bad ranges (exit 2, file + JSON path), "did you mean" for unknown keys in scenarios,
// sweeps and node sets, and a problem shared by several points reported once with its points.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SweepRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-ranges-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
    // A tiny, fast heartbeat study.
    write("base.json", R"({"name": "tiny", "horizon_s": 2, "nodes": {"count": 3},
        "network": {"loss": 0.1},
        "detectors": {"heartbeat_period_ms": 100,
                      "arms": [{"name": "fixed", "detector": {"kind": "fixed"}}]}})");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fdsim::test::Result fdsim(const std::string& args) const {
    return fdsim::test::run_fdsim(dir_, args, dir_);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  // `fdsim validate` on a sweep with these axes: its stderr lines.
  std::vector<std::string> axis_problems(const std::string& axes) const {
    write("s.json", R"({"base": "base.json", "axes": )" + axes + "}");
    const fdsim::test::Result r = fdsim("validate s.json");
    EXPECT_EQ(r.code, 2) << axes;
    return r.err_lines();
  }
  std::string dir_;
};

TEST_F(SweepRanges, ArithmeticAndGeometricRangesExpandToCleanValues) {
  write("s.json", R"({"base": "base.json", "replications": 1, "axes": [
      {"path": "$.network.loss", "values": {"from": 0.5, "to": 0.95, "step": 0.05}},
      {"path": "$.detectors.heartbeat_period_ms", "values": {"from": 64, "to": 256, "factor": 2}}]})");
  const fdsim::test::Result r = fdsim("sweep s.json --out out -j 2 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string manifest_text = fdsim::test::slurp(dir_ + "/out/sweep.json");
  const json manifest = json::parse(manifest_text);
  ASSERT_EQ(manifest["points"].size(), 30u);
  std::vector<std::string> loss, period;
  for (const auto& p : manifest["points"]) {
    const std::string l = p["params"]["$.network.loss"].dump();
    if (loss.empty() || loss.back() != l) loss.push_back(l);
    if (period.size() < 3) period.push_back(p["params"]["$.detectors.heartbeat_period_ms"].dump());
  }
  // from + i * step, rounded to 12 significant digits: 0.95 is in, and printed as 0.95.
  EXPECT_EQ(loss, (std::vector<std::string>{"0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8",
                                            "0.85", "0.9", "0.95"}));
  // Integral inputs give integers.
  EXPECT_EQ(period, (std::vector<std::string>{"64", "128", "256"}));
  EXPECT_EQ(manifest_text.find("0000000"), std::string::npos);
}

TEST_F(SweepRanges, EndpointWithinRoundingToleranceIsIncludedAndNotOvershot) {
  write("s.json", R"({"base": "base.json", "axes": [
      {"path": "$.network.loss", "values": {"from": 0.1, "to": 0.3, "step": 0.1}},
      {"path": "$.seed", "values": {"from": 1, "to": 10, "factor": 3}}]})");
  const fdsim::test::Result r = fdsim("sweep s.json --out out -j 2 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const json manifest = json::parse(fdsim::test::slurp(dir_ + "/out/sweep.json"));
  ASSERT_EQ(manifest["points"].size(), 9u);  // {0.1, 0.2, 0.3} x {1, 3, 9}
  EXPECT_EQ(manifest["points"][8]["params"]["$.network.loss"].dump(), "0.3");
  EXPECT_EQ(manifest["points"][8]["params"]["$.seed"].dump(), "9");
}

TEST_F(SweepRanges, BadRangesAreExitTwoWithFileAndPath) {
  EXPECT_EQ(axis_problems(R"([{"path": "$.seed", "values": {"from": 1, "to": 3, "step": 0}}])"),
            std::vector<std::string>{"s.json: $.axes[0].values.step: expected a number > 0, got 0"});
  EXPECT_EQ(axis_problems(R"([{"path": "$.seed", "values": {"from": 1, "to": 3, "factor": 1}}])"),
            std::vector<std::string>{
                "s.json: $.axes[0].values.factor: expected a number > 1, got 1"});
  EXPECT_EQ(axis_problems(R"([{"path": "$.seed", "values": {"from": 3, "to": 1, "step": 1}}])"),
            std::vector<std::string>{
                "s.json: $.axes[0].values.from: expected \"from\" <= \"to\", got 3 > 1"});
  EXPECT_EQ(
      axis_problems(R"([{"path": "$.seed", "values": {"from": 0, "to": 1e6, "step": 1}}])"),
      std::vector<std::string>{"s.json: $.axes[0].values: expected at most 10000 values, but the "
                               "range has 1000001"});
  EXPECT_EQ(axis_problems(
                R"([{"path": "$.seed", "values": {"from": 1, "to": 3, "step": 1, "factor": 2}}])"),
            std::vector<std::string>{
                "s.json: $.axes[0].values: only one of 'step', 'factor' may be given"});
  EXPECT_EQ(axis_problems(R"([{"path": "$.seed", "values": {"from": 1, "to": 3, "stpe": 1}}])"),
            (std::vector<std::string>{
                "s.json: $.axes[0].values: a range needs \"step\" (from, from + step, ...) or "
                "\"factor\" (from, from x factor, ...)",
                "s.json: $.axes[0].values.stpe: unknown key (did you mean 'step'?)"}));
  EXPECT_EQ(axis_problems(R"([{"path": "$.seed", "values": {"from": 0, "to": 8, "factor": 2}}])"),
            std::vector<std::string>{
                "s.json: $.axes[0].values.from: expected a number > 0 for a geometric range, got 0"});
}

TEST_F(SweepRanges, UnknownKeysGetADidYouMeanWhenClose) {
  write("bad.json", R"({"name": "x", "sead": 2, "horizon_s": 2, "colour": "red",
      "nodes": {"count": 3},
      "detectors": {"heartbeat_perod_ms": 100,
                    "arms": [{"name": "a", "detector": {"kind": "fixed", "timout_ms": 5}}]}})");
  const fdsim::test::Result r = fdsim("validate bad.json");
  EXPECT_EQ(r.code, 2);
  const std::vector<std::string> expected = {
      "bad.json: $.detectors.arms[0].detector.timout_ms: unknown key (did you mean "
      "'timeout_ms'?)",
      "bad.json: $.detectors.heartbeat_perod_ms: unknown key (did you mean 'heartbeat_period_ms'?)",
      "bad.json: $.colour: unknown key",
      "bad.json: $.sead: unknown key (did you mean 'seed'?)"};
  EXPECT_EQ(r.err_lines(), expected);
  write("groups.json", R"({"name": "x", "horizon_s": 2,
      "nodes": {"count": 3, "groups": {"g": {"from": 0, "too": 1}}},
      "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed"}}]}})");
  const fdsim::test::Result g = fdsim("validate groups.json");
  EXPECT_EQ(g.err_lines(),
            (std::vector<std::string>{
                "groups.json: $.nodes.groups.g.too: unknown key (did you mean 'to'?)",
                "groups.json: $.nodes.groups.g: a node range needs both \"from\" and \"to\""}));
  write("s.json", R"({"base": "base.json", "axis": [], "replicatons": 2})");
  const fdsim::test::Result s = fdsim("validate s.json");
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("s.json: $.axis: unknown key (did you mean 'axes'?)"), std::string::npos)
      << s.err;
  EXPECT_NE(s.err.find("s.json: $.replicatons: unknown key (did you mean 'replications'?)"),
            std::string::npos)
      << s.err;
}

TEST_F(SweepRanges, AProblemSharedByPointsIsReportedOnceWithThePoints) {
  write("base.json", R"({"name": "tiny", "horizon_s": 2, "nodes": {"count": 3}, "network": {},
      "detectors": {"heartbeat_perod_ms": 100,
                    "arms": [{"name": "fixed", "detector": {"kind": "fixed"}}]}})");
  write("s.json", R"({"base": "base.json", "axes": [
      {"path": "$.network.loss", "values": [2, 0.1]},
      {"path": "$.seed", "values": {"from": 1, "to": 3, "step": 1}}]})");
  const fdsim::test::Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2);
  const std::vector<std::string> expected = {
      "s.json: base.json: $.network.loss: expected a number >= 0 and <= 1, got 2 (at points 0-2)",
      "s.json: base.json: $.detectors.heartbeat_perod_ms: unknown key (did you mean "
      "'heartbeat_period_ms'?) (at every point: 0-5)"};
  EXPECT_EQ(r.err_lines(), expected);
}

}  // namespace
