// Sweep files: validation messages, grid and zip expansion, constraints, run identities.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/plan.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/sweep/fake_run.h"
#include "tests/sweep/test_util.h"

namespace fdsim::sweep {
namespace {

using nlohmann::json;
using testing::FakeRun;

const json kBase = json::parse(R"({"name": "fake", "replications": 2,
                                   "model": {"x": 1, "y": 0}})");

json sweep_with(json axes, json extra = json::object()) {
  json doc = {{"base", kBase}, {"axes", std::move(axes)}};
  doc.update(extra);
  return doc;
}

std::vector<std::string> spec_problems(const json& doc) {
  return parse_sweep(doc, "sweeps/x.json").problems;
}

PlanOutcome plan_of(const json& doc) {
  SpecOutcome spec = parse_sweep(doc, "sweeps/x.json");
  EXPECT_TRUE(spec.ok()) << (spec.problems.empty() ? "" : spec.problems.front());
  return make_plan(spec.spec, &FakeRun::resolve);
}

TEST(SweepFile, AxisPathMissingFromBaseIsAnError) {
  const auto problems = spec_problems(sweep_with(json::parse(R"([
      {"path": "$.model.x", "values": [1]},
      {"path": "$.membership.member_timeout_ms", "values": [1000, 2000]}])")));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "sweeps/x.json: $.axes[1].path: $.membership does not exist in the base scenario");
}

TEST(SweepFile, IndexPastTheEndOfAnArrayIsAnError) {
  json doc = sweep_with(json::parse(R"([{"path": "$.arms[2].timeout_ms", "values": [1]}])"));
  doc["base"]["arms"] = json::array({json::object(), json::object()});
  const auto problems = spec_problems(doc);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "sweeps/x.json: $.axes[0].path: $.arms[2] does not exist in the base "
                         "scenario ($.arms has 2 elements)");
}

TEST(SweepFile, OptionalLastKeyMayBeAbsentButMisspellingIsCaughtByResolve) {
  // $.model.fail_x is absent from the base but its parent exists: allowed.
  EXPECT_TRUE(spec_problems(sweep_with(json::parse(
                  R"([{"path": "$.model.fail_x", "values": [5]}])")))
                  .empty());
  // $.model.xx is allowed by the file check, and the point's scenario then fails to resolve.
  const PlanOutcome plan = plan_of(sweep_with(json::parse(
      R"([{"path": "$.model.xx", "values": [5, 6]}])")));
  // The same problem at both points: reported once, with the points.
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0], "sweeps/x.json: $.model.xx: unknown key (at every point: 0, 1)");
}

TEST(SweepFile, BadPointValueIsReportedWithItsPoint) {
  const PlanOutcome plan = plan_of(sweep_with(json::parse(
      R"([{"path": "$.model.x", "values": [1, -2, 3]}])")));
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0], "sweeps/x.json: point 1 ($.model.x = -2): sweeps/x.json: "
                              "$.model.x: expected a number >= 0, got -2");
}

TEST(SweepFile, EveryStructuralProblemIsReportedInOnePass) {
  const json doc = json::parse(R"({
      "base": {"model": {"x": 1}},
      "axes": [{"path": "model.x", "values": [1]},
               {"path": "$.model.y", "values": []},
               {"zip": [{"path": "$.model.x", "values": [1, 2]},
                        {"path": "$.seed", "values": [1]}]},
               {"path": "$.seed"},
               {"path": "$.name", "values": ["a"], "step": 2}],
      "replications": 0,
      "constraint": [{"path": "$.seed", "op": "=<", "value": 1},
                     {"path": "$.seed", "op": "<"}],
      "colour": "blue"})");
  const auto problems = spec_problems(doc);
  const std::vector<std::string> expected = {
      "sweeps/x.json: $.replications: expected an integer >= 1 and <= 1000000, got 0",
      "sweeps/x.json: $.axes[0].path: expected a JSON path like \"$.network.loss_probability\" "
      "or \"$.load_sharing.arms[1].timeout_ms\", got \"model.x\" (it must start with '$')",
      "sweeps/x.json: $.axes[1].values: expected a non-empty array of values, got an array",
      "sweeps/x.json: $.axes[2].zip[1].values: has 1 values but the first axis of this zip has "
      "2: zipped axes need the same number of values",
      "sweeps/x.json: $.axes[3].values: required field is missing (expected a non-empty array "
      "of values, a range {\"from\", \"to\", \"step\" or \"factor\"}, or \"calibrate\" instead "
      "of \"values\")",
      "sweeps/x.json: $.axes[4].step: unknown key",
      "sweeps/x.json: $.constraint[0].op: expected one of \"==\", \"!=\", \"<\", \"<=\", \">\", "
      "\">=\", got the string \"=<\"",
      "sweeps/x.json: $.constraint[1]: exactly one of \"value\" and \"other_path\" must be given",
      "sweeps/x.json: $.colour: unknown key"};
  EXPECT_EQ(problems, expected);
}

TEST(SweepFile, OverlappingAxesAreAnError) {
  const auto problems = spec_problems(sweep_with(json::parse(R"([
      {"path": "$.model", "values": [{"x": 1}]},
      {"path": "$.model.x", "values": [2]}])")));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "sweeps/x.json: $.axes[1].path: $.model.x overlaps $.model (set by "
                         "$.axes[0]): each place may be set by one axis only");
}

TEST(SweepFile, MissingBaseFileAndSyntaxErrorsNameTheFile) {
  testing::ScratchDir dir;
  testing::write_text(dir / "s.json",
                      R"({"base": "nowhere.json", "axes": [{"path": "$.a", "values": [1]}]})");
  auto out = load_sweep_file(dir / "s.json");
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0], dir / "s.json" + ": $.base: cannot load the base scenario: " +
                                 (dir / "nowhere.json") +
                                 ": cannot read the file (No such file or directory)");
  testing::write_text(dir / "bad.json", "{\n  \"base\": ,\n}");
  out = load_sweep_file(dir / "bad.json");
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0].rfind(dir / "bad.json" + ": line 2, column 11: syntax error", 0), 0u)
      << out.problems[0];
}

TEST(SweepFile, BasePathIsRelativeToTheSweepFile) {
  testing::ScratchDir dir;
  testing::write_text(dir.path() / "scenarios" / "base.json", kBase.dump());
  testing::write_text(dir.path() / "sweeps" / "s.json",
                      R"({"base": "../scenarios/base.json",
                          "axes": [{"path": "$.model.x", "values": [1, 2]}]})");
  const auto out = load_sweep_file(dir / "sweeps/s.json");
  ASSERT_TRUE(out.ok()) << out.problems.front();
  EXPECT_EQ(out.spec.base, kBase);
  EXPECT_EQ(out.spec.scenario_source, dir / "scenarios/base.json");
  EXPECT_EQ(out.spec.name, "s");
}

TEST(SweepPlan, GridIsNestedLoopsFirstAxisSlowestAndZipVariesTogether) {
  const PlanOutcome plan = plan_of(sweep_with(json::parse(R"([
      {"path": "$.model.x", "values": [1, 2]},
      {"zip": [{"path": "$.model.y", "values": [10, 20, 30]},
               {"path": "$.seed", "values": [7, 8, 9]}]}])")));
  ASSERT_TRUE(plan.ok()) << plan.problems.front();
  const auto& p = plan.plan;
  EXPECT_EQ(p.axis_paths, (std::vector<std::string>{"$.model.x", "$.model.y", "$.seed"}));
  ASSERT_EQ(p.points.size(), 6u);
  const std::vector<std::vector<int>> expected = {{1, 10, 7}, {1, 20, 8}, {1, 30, 9},
                                                  {2, 10, 7}, {2, 20, 8}, {2, 30, 9}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(json(p.points[i].params), json(expected[i])) << i;
    EXPECT_EQ(p.points[i].scenario["model"]["x"], expected[i][0]);
    EXPECT_EQ(p.points[i].scenario["model"]["y"], expected[i][1]);
    EXPECT_EQ(p.points[i].scenario["seed"], expected[i][2]);
  }
  EXPECT_EQ(describe_params(p, 4), "$.model.x = 2, $.model.y = 20, $.seed = 8");
}

TEST(SweepPlan, ConstraintDropsPointsAndRenumbers) {
  const PlanOutcome plan = plan_of(sweep_with(
      json::parse(R"([{"path": "$.model.x", "values": [1, 2, 3]},
                      {"path": "$.model.y", "values": [1, 2, 3]}])"),
      json::parse(R"({"constraint": [{"path": "$.model.x", "op": "<=", "other_path": "$.model.y"},
                                     {"path": "$.model.y", "op": "!=", "value": 2}]})")));
  ASSERT_TRUE(plan.ok()) << plan.problems.front();
  std::vector<json> kept;
  for (const auto& pt : plan.plan.points) kept.push_back(pt.params);
  EXPECT_EQ(json(kept), json::parse("[[1,1],[1,3],[2,3],[3,3]]"));
}

TEST(SweepPlan, ConstraintProblemsAreErrors) {
  PlanOutcome plan = plan_of(sweep_with(
      json::parse(R"([{"path": "$.model.x", "values": [1, 2]}])"),
      json::parse(R"({"constraint": [{"path": "$.model.z", "op": "<", "value": 1}]})")));
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0], "sweeps/x.json: $.constraint[0].path: $.model.z does not exist in "
                              "the scenario of $.model.x = 1");
  plan = plan_of(sweep_with(json::parse(R"([{"path": "$.model.x", "values": [1, 2]}])"),
                            json::parse(R"({"constraint": [{"path": "$.name", "op": "<",
                                                            "value": 1}]})")));
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0], "sweeps/x.json: $.constraint[0]: cannot order \"fake\" and 1 with "
                              "'<' (both must be numbers or both strings)");
  plan = plan_of(sweep_with(json::parse(R"([{"path": "$.model.x", "values": [1, 2]}])"),
                            json::parse(R"({"constraint": [{"path": "$.model.x", "op": ">",
                                                            "value": 5}]})")));
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0],
            "sweeps/x.json: $.constraint: no point of the grid satisfies the constraint");
}

TEST(SweepPlan, ReplicationsComeFromTheSweepElseFromEachResolvedPoint) {
  PlanOutcome plan = plan_of(sweep_with(json::parse(R"([{"path": "$.model.x", "values": [1, 2]}])")));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan.plan.points[0].run_ids.size(), 2u);  // base "replications": 2
  plan = plan_of(sweep_with(json::parse(R"([{"path": "$.model.x", "values": [1, 2]}])"),
                            {{"replications", 5}}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan.plan.points[1].run_ids.size(), 5u);
  EXPECT_EQ(plan.plan.runs.size(), 10u);
}

TEST(SweepPlan, RunIdentityIsTheResolvedScenarioAndReplicationOnly) {
  const json axes = json::parse(R"([{"path": "$.model.x", "values": [1, 2, 3]}])");
  const PlanOutcome three = plan_of(sweep_with(axes, {{"replications", 3}}));
  const PlanOutcome five = plan_of(sweep_with(axes, {{"replications", 5}}));
  ASSERT_TRUE(three.ok() && five.ok());
  // The identity ignores the replication count: raising it keeps the earlier ids ...
  for (size_t p = 0; p < 3; ++p)
    for (size_t r = 0; r < 3; ++r)
      EXPECT_EQ(three.plan.points[p].run_ids[r], five.plan.points[p].run_ids[r]);
  // ... and the run list is replication-major, so earlier runs keep their index (shards).
  for (size_t i = 0; i < three.plan.runs.size(); ++i)
    EXPECT_EQ(three.plan.runs[i].id, five.plan.runs[i].id);
  // It is the id of the resolved scenario (the fake fills defaults) and replication.
  json resolved = FakeRun::resolve(three.plan.points[1].scenario, "").resolved;
  EXPECT_EQ(three.plan.points[1].run_ids[2], run_identity(resolved, 2));
  resolved["replications"] = 99;
  EXPECT_EQ(three.plan.points[1].run_ids[2], run_identity(resolved, 2));
  EXPECT_NE(three.plan.points[1].run_ids[2], run_identity(resolved, 1));
  EXPECT_NE(three.plan.points[0].run_ids[0], three.plan.points[2].run_ids[0]);
  EXPECT_EQ(three.plan.runs.size(), 9u);
}

TEST(SweepPlan, PointsWithTheSameScenarioShareTheirRuns) {
  const PlanOutcome plan = plan_of(sweep_with(
      json::parse(R"([{"path": "$.model.x", "values": [1, 1]}])"), {{"replications", 2}}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan.plan.points[0].run_ids, plan.plan.points[1].run_ids);
  EXPECT_EQ(plan.plan.runs.size(), 2u);
}

TEST(SweepPlan, ManifestRoundTripsEverythingAggregationNeeds) {
  const PlanOutcome plan = plan_of(sweep_with(json::parse(R"([
      {"path": "$.model.x", "values": [1, 2]}, {"path": "$.name", "values": ["a", "b"]}])")));
  ASSERT_TRUE(plan.ok());
  const json manifest = json::parse(plan_manifest(plan.plan, std::string("adaptive")).dump());
  std::string error;
  const auto back = plan_from_manifest(manifest, &error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->reference_arm, std::optional<std::string>("adaptive"));
  EXPECT_EQ(back->plan.axis_paths, plan.plan.axis_paths);
  ASSERT_EQ(back->plan.points.size(), 4u);
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(back->plan.points[p].params, plan.plan.points[p].params);
    EXPECT_EQ(back->plan.points[p].run_ids, plan.plan.points[p].run_ids);
  }
  ASSERT_EQ(back->plan.runs.size(), plan.plan.runs.size());
  for (size_t i = 0; i < plan.plan.runs.size(); ++i)
    EXPECT_EQ(back->plan.runs[i].id, plan.plan.runs[i].id);
  EXPECT_EQ(plan_manifest(back->plan, std::string("adaptive")).dump(),
            plan_manifest(plan.plan, std::string("adaptive")).dump());
}

TEST(SweepFile, AxisNamesAreIdentifiersUsedOnce) {
  const auto problems = spec_problems(sweep_with(json::parse(R"([
      {"path": "$.model.x", "values": [1], "name": "pause"},
      {"zip": [{"path": "$.model.y", "values": [1], "name": "pause"},
               {"path": "$.name", "values": ["a"], "name": "2nd"}]},
      {"path": "$.replications", "values": [1], "name": "seed"},
      {"path": "$.horizon_s", "values": [1], "name": 5}])")));
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  ASSERT_EQ(problems.size(), 4u) << all;
  EXPECT_EQ(problems[0], "sweeps/x.json: $.axes[1].zip[0].name: \"pause\" already names "
                         "$.axes[0]: each axis name may be used once");
  EXPECT_EQ(problems[1], "sweeps/x.json: $.axes[1].zip[1].name: expected an identifier (a "
                         "letter or '_', then letters, digits or '_'; at most 64 characters), "
                         "got \"2nd\"");
  EXPECT_EQ(problems[2], "sweeps/x.json: $.axes[2].name: \"seed\" is a fixed column of fdsim "
                         "export (run_id, point, seed, replication, arm, metric, value): choose "
                         "another name");
  EXPECT_NE(problems[3].find("$.axes[3].name:"), std::string::npos) << problems[3];
}

TEST(SweepPlan, AxisNamesGoToTheManifestButNotIntoRunIds) {
  const json unnamed = json::parse(R"([{"path": "$.model.x", "values": [1, 2]},
                                       {"path": "$.model.y", "values": [3]}])");
  json named = unnamed;
  named[0]["name"] = "x_value";
  const PlanOutcome a = plan_of(sweep_with(unnamed));
  const PlanOutcome b = plan_of(sweep_with(named));
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t p = 0; p < 2; ++p) EXPECT_EQ(a.plan.points[p].run_ids, b.plan.points[p].run_ids);
  EXPECT_EQ(b.plan.axis_names, (std::vector<std::string>{"x_value", ""}));
  const json ma = json::parse(plan_manifest(a.plan, std::nullopt).dump());
  const json mb = json::parse(plan_manifest(b.plan, std::nullopt).dump());
  EXPECT_FALSE(ma.contains("axis_names"));  // unnamed sweeps keep their manifests
  EXPECT_EQ(mb["axis_names"], json::parse(R"({"$.model.x": "x_value"})"));
  std::string error;
  const auto back = plan_from_manifest(mb, &error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->plan.axis_names, b.plan.axis_names);
  json twice = mb;
  twice["axis_names"]["$.model.y"] = "x_value";
  EXPECT_FALSE(plan_from_manifest(twice, &error).has_value());
  EXPECT_EQ(error, "\"axis_names\" gives $.model.x and $.model.y the same name");
}

}  // namespace
}  // namespace fdsim::sweep
