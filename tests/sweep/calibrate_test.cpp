// Calibrated sweep axes (sim/sweep/calibrate.h) with the fake run layer, whose metrics are
// known functions of the leaves: fixed.delay_s.mean = x + u(seed, rep) and adaptive.delay_s.mean
// = x + y + u(seed, rep) / 2 (tests/sweep/fake_run.h). So the pilot mean of fixed at x is
// x + mean_k u(seed, 2^40 + k): the solved x is known exactly.
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/calibrate.h"
#include "sim/sweep/commands.h"
#include "sim/sweep/progress.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/sweep/fake_run.h"
#include "tests/sweep/test_util.h"

namespace fdsim::sweep {
// Named, not anonymous: the test sources are compiled as one unity file.
namespace calibrate_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FakeRun;
using testing::read_text;
using testing::ScratchDir;
using testing::write_text;

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

// Points y = 0, 0.5 (and seed 3); x calibrated so that fixed.delay_s.mean hits `target`.
json calibrated_sweep(const json& target, const json& bracket = json::array({0, 10}),
                      int pilots = 3) {
  json doc = json::parse(R"({"name": "cal",
      "base": {"name": "fake", "seed": 3, "model": {"x": 1, "y": 0}},
      "axes": [{"path": "$.model.y", "values": [0, 0.5]},
               {"name": "x", "path": "$.model.x",
                "calibrate": {"arm": "fixed", "metric": "delay_s.mean",
                              "tolerance_rel": 0.001}}],
      "replications": 2})");
  doc["axes"][1]["calibrate"]["target"] = target;
  doc["axes"][1]["calibrate"]["bracket"] = bracket;
  doc["axes"][1]["calibrate"]["pilot_replications"] = pilots;
  return doc;
}

double pilot_mean_u(uint64_t seed, int pilots) {
  double s = 0;
  for (int k = 0; k < pilots; ++k) s += FakeRun::u(seed, kPilotReplicationBase + uint64_t(k));
  return s / pilots;
}

TEST(Calibrate, SolvesAKnownLinearRelationToItsTolerance) {
  ScratchDir dir;
  write_text(dir / "cal.json", calibrated_sweep(5.0).dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "cal.json", dir / "out", fake);
  ASSERT_EQ(o.code, 0) << o.err;
  const json m = json::parse(read_text(dir.path() / "out" / "sweep.json"));
  ASSERT_TRUE(m.contains("calibration")) << m.dump();
  const double exact_x = 5.0 - pilot_mean_u(3, 3);  // fixed's pilot mean = x + mean u
  ASSERT_EQ(m["points"].size(), 2u);
  for (const auto& point : m["points"]) {
    const double x = point["params"]["$.model.x"].get<double>();
    EXPECT_NEAR(x, exact_x, 0.001 * 5.0) << point.dump();
  }
  for (const auto& rec : m["calibration"]["points"]) {
    const json& a = rec["axes"][0];
    EXPECT_LE(std::fabs(a["achieved_mean"].get<double>() - 5.0), 0.001 * 5.0) << a.dump();
    EXPECT_DOUBLE_EQ(a["target_mean"].get<double>(), 5.0);
    EXPECT_GE(a["evaluations"].size(), 3u);  // both ends and at least one step
  }
  // The runs are those of the solved scenarios: the aggregate's fixed mean over the 2
  // replications is x + mean u over replications 0 and 1.
  const std::string agg = read_text(dir.path() / "out" / "aggregate.csv");
  EXPECT_NE(agg.find("delay_s.mean"), std::string::npos);
  EXPECT_NE(o.out.find("calibration: 2 points x 1 axis solved"), std::string::npos) << o.out;
}

TEST(Calibrate, HitsAnotherArmsMeanOfTheSameRuns) {
  // y calibrated so that adaptive (x + y + u/2) equals fixed (x + u): y = mean u / 2.
  ScratchDir dir;
  json doc = json::parse(R"({"name": "cal-arm",
      "base": {"name": "fake", "seed": 5, "model": {"x": 2, "y": 0}},
      "axes": [{"path": "$.model.x", "values": [2, 4]},
               {"path": "$.model.y",
                "calibrate": {"arm": "adaptive", "metric": "delay_s.mean",
                              "target": {"arm": "fixed"}, "tolerance_rel": 0.0005,
                              "bracket": [-1, 1], "pilot_replications": 4}}],
      "replications": 1})");
  write_text(dir / "cal.json", doc.dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "cal.json", dir / "out", fake);
  ASSERT_EQ(o.code, 0) << o.err;
  const json m = json::parse(read_text(dir.path() / "out" / "sweep.json"));
  const double exact_y = pilot_mean_u(5, 4) / 2;
  for (const auto& point : m["points"]) {
    const double x = point["params"]["$.model.x"].get<double>();
    // |g| <= 0.0005 x target (~x): y within that of exact.
    EXPECT_NEAR(point["params"]["$.model.y"].get<double>(), exact_y, 0.0005 * (x + 1))
        << point.dump();
  }
}

TEST(Calibrate, LinkedLeavesFollowTheCalibratedValue) {
  // y linked to x (y = 0.5 x + 1): adaptive = x + y + u/2 = 1.5 x + 1 + u/2 hits 10 at
  // x = (9 - mean u / 2) / 1.5.
  ScratchDir dir;
  json doc = json::parse(R"({"name": "linked",
      "base": {"name": "fake", "seed": 4, "model": {"x": 1, "y": 0}},
      "axes": [{"path": "$.model.x",
                "calibrate": {"arm": "adaptive", "metric": "delay_s.mean", "target": 10,
                              "tolerance_rel": 0.0001, "bracket": [0, 20],
                              "pilot_replications": 2,
                              "linked": [{"path": "$.model.y", "scale": 0.5, "offset": 1}]}}],
      "replications": 1})");
  write_text(dir / "l.json", doc.dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "l.json", dir / "out", fake);
  ASSERT_EQ(o.code, 0) << o.err;
  const json m = json::parse(read_text(dir.path() / "out" / "sweep.json"));
  const double x = m["points"][0]["params"]["$.model.x"].get<double>();
  EXPECT_NEAR(x, (9 - pilot_mean_u(4, 2) / 2) / 1.5, 0.0001 * 10 / 1.5);
  // The point's runs are those of the scenario with y = 0.5 x + 1 (rounded to 12 digits).
  json solved = {{"name", "fake"}, {"seed", 4}, {"model", {{"x", x}, {"y", round12(0.5 * x + 1)}}}};
  const auto res = FakeRun::resolve(solved, "l.json");
  ASSERT_TRUE(res.ok);
  EXPECT_EQ(m["points"][0]["run_ids"][0], run_identity(res.resolved, 0));
  EXPECT_EQ(m["calibration"]["axes"][0]["linked"][0]["path"], "$.model.y");
  // A linked leaf may not be an axis's place.
  doc["axes"].push_back(json::parse(R"({"path": "$.model.y", "values": [0]})"));
  write_text(dir / "l2.json", doc.dump());
  const Outcome bad = sweep(dir / "l2.json", dir / "out2", fake);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("$.axes[0].calibrate.linked[0].path: $.model.y overlaps the axis "
                         "$.model.y"),
            std::string::npos)
      << bad.err;
}

TEST(Calibrate, RefusesATargetOutsideTheBracketWithItsJsonPath) {
  ScratchDir dir;
  write_text(dir / "cal.json", calibrated_sweep(100.0).dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "cal.json", dir / "out", fake);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find(dir / "cal.json" + ": $.axes[1].calibrate.bracket: point 0 ($.model.y = 0)"
                       ": the target is not bracketed"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "sweep.json"));  // nothing planned, nothing run
}

TEST(Calibrate, RefusesAMetricThatIsNotMonotoneInTheBracket) {
  // fixed.wave = sin(wave): -0.1 lies between sin(0) = 0 and sin(6) = -0.28, but sin rises to
  // 1 in between, so the first step (false position, near 2.1) finds 0.86 and the solve stops.
  ScratchDir dir;
  json doc = json::parse(R"({"name": "wave",
      "base": {"name": "fake", "seed": 3, "model": {"x": 1, "y": 0, "wave": 0}},
      "axes": [{"path": "$.model.wave",
                "calibrate": {"arm": "fixed", "metric": "wave", "target": -0.1,
                              "bracket": [0, 6], "pilot_replications": 1}}]})");
  write_text(dir / "wave.json", doc.dump());
  FakeRun fake;
  const Outcome o = sweep(dir / "wave.json", dir / "out", fake);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find(dir / "wave.json" + ": $.axes[0].calibrate.bracket: point 0: arm mean "
                       "of wave minus its target is not monotone in $.model.wave over the "
                       "bracket (0 at 0, "),
            std::string::npos)
      << o.err;
  // Narrowed to a falling part, [2, 4.5], it solves sin(wave) = -0.1 (wave = pi + 0.1002).
  doc["axes"][0]["calibrate"]["bracket"] = json::array({2, 4.5});
  write_text(dir / "wave2.json", doc.dump());
  const Outcome ok = sweep(dir / "wave2.json", dir / "out2", fake);
  ASSERT_EQ(ok.code, 0) << ok.err;
  const json m = json::parse(read_text(dir.path() / "out2" / "sweep.json"));
  const double wave = m["points"][0]["params"]["$.model.wave"].get<double>();
  EXPECT_LE(std::fabs(std::sin(wave) + 0.1), 0.002 * 0.1) << wave;
}

TEST(Calibrate, ResumeReusesThePilotsAndGivesTheSameBytes) {
  ScratchDir dir;
  write_text(dir / "cal.json", calibrated_sweep(5.0).dump());
  FakeRun fake;
  ASSERT_EQ(sweep(dir / "cal.json", dir / "a", fake).code, 0);
  const int first = fake.executions.load();
  const std::string manifest = read_text(dir.path() / "a" / "sweep.json");
  const std::string agg = read_text(dir.path() / "a" / "aggregate.csv");
  const Outcome again = sweep(dir / "cal.json", dir / "a", fake);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(fake.executions.load(), first);  // neither pilots nor runs are run again
  EXPECT_EQ(read_text(dir.path() / "a" / "sweep.json"), manifest);
  EXPECT_EQ(read_text(dir.path() / "a" / "aggregate.csv"), agg);
  // --aggregate-only solves from the stored pilots alone.
  EXPECT_EQ(sweep(dir / "cal.json", dir / "a", fake, 1, "", true).code, 0);
  EXPECT_EQ(fake.executions.load(), first);
  // Without them it refuses (exit 2), it does not run pilots.
  const Outcome bare = sweep(dir / "cal.json", dir / "b", fake, 1, "", true);
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.err.find("calibration pilot runs are not stored"), std::string::npos) << bare.err;
}

TEST(Calibrate, SameBytesWithAnyJobCountAndAsMergedShards) {
  ScratchDir dir;
  write_text(dir / "cal.json", calibrated_sweep(5.0).dump());
  FakeRun fake;
  ASSERT_EQ(sweep(dir / "cal.json", dir / "j1", fake, 1).code, 0);
  ASSERT_EQ(sweep(dir / "cal.json", dir / "j3", fake, 3).code, 0);
  for (const char* f : {"sweep.json", "aggregate.csv"})
    EXPECT_EQ(read_text(dir.path() / "j1" / f), read_text(dir.path() / "j3" / f)) << f;
  ASSERT_EQ(sweep(dir / "cal.json", dir / "s0", fake, 1, "0/2").code, 0);
  ASSERT_EQ(sweep(dir / "cal.json", dir / "s1", fake, 1, "1/2").code, 0);
  MergeCommandOptions mo;
  mo.inputs = {dir / "s0", dir / "s1"};
  mo.out_dir = dir / "merged";
  std::ostringstream out, err;
  ASSERT_EQ(merge_command(mo, out, err), 0) << err.str();
  for (const char* f : {"sweep.json", "aggregate.csv"})
    EXPECT_EQ(read_text(dir.path() / "j1" / f), read_text(dir.path() / "merged" / f)) << f;
}

TEST(Calibrate, MergeRefusesShardsOfDifferentCalibrations) {
  ScratchDir dir;
  write_text(dir / "a.json", calibrated_sweep(5.0).dump());
  write_text(dir / "b.json", calibrated_sweep(6.0).dump());
  FakeRun fake;
  ASSERT_EQ(sweep(dir / "a.json", dir / "s0", fake, 1, "0/2").code, 0);
  ASSERT_EQ(sweep(dir / "b.json", dir / "s1", fake, 1, "1/2").code, 0);
  MergeCommandOptions mo;
  mo.inputs = {dir / "s0", dir / "s1"};
  mo.out_dir = dir / "merged";
  std::ostringstream out, err;
  EXPECT_EQ(merge_command(mo, out, err), 2);
  EXPECT_NE(err.str().find("a different sweep plan"), std::string::npos) << err.str();
}

// Each malformed calibrate object is reported with its JSON path, all in one pass.
TEST(Calibrate, ValidationNamesEveryMalformedCalibrateObject) {
  json doc = json::parse(R"({"name": "bad",
      "base": {"name": "fake", "model": {"x": 1, "y": 0}},
      "axes": [
        {"path": "$.model.x", "calibrate": {"metric": "m", "target": 1, "bracket": [5, 1]}},
        {"path": "$.model.y", "values": [1], "calibrate": {"metric": "m", "target": 1,
                                                           "bracket": [0, 1]}},
        {"zip": [{"path": "$.seed", "calibrate": {"metric": "m", "target": 1,
                                                   "bracket": [0, 1]}}]},
        {"path": "$.name", "calibrate": {"target": "high", "bracket": [0],
                                         "tolerance_rel": 0, "pilot_replications": 0,
                                         "tolerence": 1}},
        {"path": "$.replications", "calibrate": {"metric": "m", "target": 0,
                                                 "bracket": [0, 1],
                                                 "arm": "a", "max_iterations": 1000}},
        {"path": "$.description", "calibrate": {"metric": "m", "arm": "a",
                                                "target": {"arm": "a"}, "bracket": [0, 1]}}
      ]})");
  const SpecOutcome s = parse_sweep(doc, "bad.json");
  std::string all;
  for (const auto& p : s.problems) all += p + "\n";
  for (const char* expected : {
           "bad.json: $.axes[0].calibrate.bracket: expected [lo, hi] with lo < hi, got [5, 1]",
           "bad.json: $.axes[1]: exactly one of \"values\" and \"calibrate\" must be given",
           "bad.json: $.axes[2].zip[0].calibrate: a calibrated axis cannot be a zip member",
           "bad.json: $.axes[3].calibrate.metric: required field is missing",
           "bad.json: $.axes[3].calibrate.target: expected a number, or {\"arm\"",
           "bad.json: $.axes[3].calibrate.bracket: expected [lo, hi] (two numbers), got an array",
           "bad.json: $.axes[3].calibrate.tolerance_rel: expected a number > 0",
           "bad.json: $.axes[3].calibrate.pilot_replications: expected an integer >= 1",
           "bad.json: $.axes[3].calibrate.tolerence: unknown key",
           "bad.json: $.axes[4].calibrate.target: expected a finite number other than 0",
           "bad.json: $.axes[4].calibrate.max_iterations: expected an integer",
           "bad.json: $.axes[5].calibrate.target: the target arm \"a\" is the calibrated arm",
       })
    EXPECT_NE(all.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << all;
}

TEST(Calibrate, UnknownArmOrMetricIsBadInputNamingTheField) {
  ScratchDir dir;
  json doc = calibrated_sweep(5.0);
  doc["axes"][1]["calibrate"]["arm"] = "fixd";
  write_text(dir / "arm.json", doc.dump());
  FakeRun fake;
  Outcome o = sweep(dir / "arm.json", dir / "o1", fake);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("$.axes[1].calibrate.arm: no arm \"fixd\" in the results (arms: fixed, "
                       "adaptive)"),
            std::string::npos)
      << o.err;
  doc = calibrated_sweep(5.0);
  doc["axes"][1]["calibrate"]["metric"] = "delay_s.median";
  write_text(dir / "metric.json", doc.dump());
  o = sweep(dir / "metric.json", dir / "o2", fake);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("$.axes[1].calibrate.metric: arm \"fixed\" has no numeric metric "
                       "\"delay_s.median\""),
            std::string::npos)
      << o.err;
}

}  // namespace calibrate_test
}  // namespace fdsim::sweep
