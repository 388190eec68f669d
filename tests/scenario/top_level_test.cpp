// The model-independent top level of a scenario: each malformed document is checked for its
// exact problem lines, and multi-error documents for the complete list.

#include <gtest/gtest.h>

#include "sim/scenario/top_level.h"

namespace fdsim::scenario {
namespace {

// A valid document; tests break one thing at a time.
json valid() {
  return json::parse(R"({"name": "t", "horizon_s": 100, "nodes": {"count": 4},
                         "membership": {}})");
}

struct Parsed {
  TopLevel top;
  std::vector<std::string> problems;
  json resolved;
};

// Top level + model-section rules + unknown-key check, as the scenario loader does (model
// sections themselves are just consumed here).
Parsed parse(const json& doc) {
  Parsed out;
  Diagnostics diag;
  ObjectReader root(&doc, "$", diag, out.resolved);
  out.top = parse_top_level(root);
  check_model_sections(root);
  for (const char* k : {"membership", "workload", "load_sharing", "detectors", "network", "faults"})
    root.consume(k);
  root.finish();
  for (const auto& p : diag.problems) out.problems.push_back(p.str());
  return out;
}

std::vector<std::string> problems_with(const char* key, const json& value) {
  json doc = valid();
  doc[key] = value;
  return parse(doc).problems;
}

using Lines = std::vector<std::string>;

TEST(TopLevel, ValidDocument_ResolvesEveryDefault) {
  const Parsed p = parse(valid());
  ASSERT_TRUE(p.problems.empty());
  EXPECT_EQ(p.top.name, "t");
  EXPECT_EQ(p.top.seed, 1u);
  EXPECT_EQ(p.top.replications, 1);
  EXPECT_EQ(p.top.horizon, SimTime::from_seconds(100));
  EXPECT_EQ(p.top.warmup_end, SimTime::zero());
  EXPECT_EQ(p.top.nodes.count, 4u);
  EXPECT_EQ(p.resolved.dump(),
            R"({"description":"","horizon_s":100.0,"metrics":{"per_node":false},"name":"t",)"
            R"("nodes":{"count":4,"groups":{},"locators":[]},"output":{"trace":false},)"
            R"("replications":1,"seed":1,"warmup_s":0.0})");
}

TEST(TopLevel, NotAnObjectSection_Metrics) {
  EXPECT_EQ(problems_with("metrics", json::array()), Lines{"$.metrics: expected an object, got an array"});
}

TEST(TopLevel, MissingName) {
  json doc = valid();
  doc.erase("name");
  EXPECT_EQ(parse(doc).problems, Lines{"$.name: required field is missing (expected a string)"});
}

TEST(TopLevel, NameOfWrongType) {
  EXPECT_EQ(problems_with("name", 5), Lines{"$.name: expected a string, got 5"});
}

TEST(TopLevel, NameThatCannotNameAFile) {
  EXPECT_EQ(problems_with("name", "a/b"),
            Lines{"$.name: expected 1 to 100 letters, digits, '.', '_' or '-' not starting with "
                  "'.' (the name is used in result file names), got the string \"a/b\""});
  EXPECT_EQ(problems_with("name", "").size(), 1u);
  EXPECT_EQ(problems_with("name", "..").size(), 1u);
  EXPECT_TRUE(problems_with("name", "geode-crash_2.v1").empty());
}

TEST(TopLevel, NegativeSeed) {
  EXPECT_EQ(problems_with("seed", -1), Lines{"$.seed: expected an integer >= 0, got -1"});
}

TEST(TopLevel, SeedAsString) {
  EXPECT_EQ(problems_with("seed", "42"),
            Lines{"$.seed: expected an integer >= 0, got the string \"42\""});
}

TEST(TopLevel, LargestSeedIsAccepted) {
  json doc = valid();
  doc["seed"] = uint64_t(18446744073709551615ull);
  const Parsed p = parse(doc);
  EXPECT_TRUE(p.problems.empty());
  EXPECT_EQ(p.top.seed, 18446744073709551615ull);
}

TEST(TopLevel, ZeroReplications) {
  EXPECT_EQ(problems_with("replications", 0),
            Lines{"$.replications: expected an integer >= 1 and <= 1000000, got 0"});
}

TEST(TopLevel, FractionalReplications) {
  EXPECT_EQ(problems_with("replications", 2.5),
            Lines{"$.replications: expected an integer >= 1 and <= 1000000, got 2.5"});
}

TEST(TopLevel, MissingHorizon) {
  json doc = valid();
  doc.erase("horizon_s");
  EXPECT_EQ(parse(doc).problems,
            Lines{"$.horizon_s: required field is missing (expected a number > 0 and <= 1e+09)"});
}

TEST(TopLevel, NegativeHorizon) {
  EXPECT_EQ(problems_with("horizon_s", -5),
            Lines{"$.horizon_s: expected a number > 0 and <= 1000000000, got -5"});
}

TEST(TopLevel, ZeroHorizon) {
  EXPECT_EQ(problems_with("horizon_s", 0),
            Lines{"$.horizon_s: expected a number > 0 and <= 1000000000, got 0"});
}

TEST(TopLevel, HorizonNaNAsString) {
  EXPECT_EQ(problems_with("horizon_s", "NaN"),
            Lines{"$.horizon_s: expected a number > 0 and <= 1000000000, got the string \"NaN\""});
}

TEST(TopLevel, HugeHorizonBeyondSimulatedTimeRange) {
  EXPECT_EQ(problems_with("horizon_s", 1e300),
            Lines{"$.horizon_s: expected a number > 0 and <= 1000000000, got 1e+300"});
}

TEST(TopLevel, WarmupEqualToHorizon) {
  EXPECT_EQ(problems_with("warmup_s", 100),
            Lines{"$.warmup_s: expected warmup_s < horizon_s (100), got 100"});
}

TEST(TopLevel, WarmupBeyondHorizon) {
  EXPECT_EQ(problems_with("warmup_s", 250.5),
            Lines{"$.warmup_s: expected warmup_s < horizon_s (100), got 250.5"});
}

TEST(TopLevel, NegativeWarmup) {
  EXPECT_EQ(problems_with("warmup_s", -1),
            Lines{"$.warmup_s: expected a number >= 0 and <= 1000000000, got -1"});
}

TEST(TopLevel, MissingNodes) {
  json doc = valid();
  doc.erase("nodes");
  EXPECT_EQ(parse(doc).problems,
            Lines{"$.nodes: required field is missing (expected an object such as {\"count\": "
                  "10})"});
}

TEST(TopLevel, NodesAsANumber_IsOneProblemNotACascade) {
  EXPECT_EQ(problems_with("nodes", 1000),
            Lines{"$.nodes: expected an object such as {\"count\": 10}, got 1000"});
}

TEST(TopLevel, ZeroNodes) {
  EXPECT_EQ(problems_with("nodes", {{"count", 0}}),
            Lines{"$.nodes.count: expected an integer >= 1 and <= 10000000, got 0"});
}

TEST(TopLevel, UnknownKeyInNodes) {
  EXPECT_EQ(problems_with("nodes", {{"count", 3}, {"colour", "red"}}),
            Lines{"$.nodes.colour: unknown key"});
}

TEST(TopLevel, GroupWithNodeOutOfRange) {
  EXPECT_EQ(problems_with("nodes", json::parse(R"({"count": 3, "groups": {"east": [0, 7]}})")),
            Lines{"$.nodes.groups.east[1]: expected a node index >= 0 and <= 2, got 7"});
}

TEST(TopLevel, PerNodeNotABoolean) {
  EXPECT_EQ(problems_with("metrics", {{"per_node", "yes"}}),
            Lines{"$.metrics.per_node: expected true or false, got the string \"yes\""});
}

TEST(TopLevel, UnknownKeyInOutput) {
  EXPECT_EQ(problems_with("output", {{"trace", true}, {"format", "csv"}}),
            Lines{"$.output.format: unknown key"});
}

TEST(TopLevel, UnknownTopLevelKey) {
  EXPECT_EQ(problems_with("sead", 3), Lines{"$.sead: unknown key (did you mean 'seed'?)"});
}

TEST(TopLevel, DidYouMeanAlsoWhenTheSuggestedKeyIsGiven) {
  // "seed" is in the file too: the typo still gets its suggestion (issue 28).
  json doc = valid();
  doc["seed"] = 3;
  doc["sead"] = 4;
  EXPECT_EQ(parse(doc).problems,
            Lines{"$.sead: unknown key (did you mean 'seed'? it is given too: remove one)"});
}

TEST(TopLevel, NoModelSection) {
  json doc = valid();
  doc.erase("membership");
  EXPECT_EQ(parse(doc).problems,
            Lines{"$: expected a model section: 'membership' (the Geode ring), 'load_sharing' "
                  "with 'workload' (load sharing), or 'detectors' (the pairwise heartbeat "
                  "study); none is present"});
}

TEST(TopLevel, WorkloadWithoutLoadSharing) {
  EXPECT_EQ(problems_with("workload", json::object()),
            Lines{"$.workload: a 'workload' needs a 'load_sharing' section (only load sharing "
                  "runs tasks); add one or remove the workload"});
}

TEST(TopLevel, LoadSharingWithoutWorkload) {
  EXPECT_EQ(problems_with("load_sharing", json::object()),
            Lines{"$.load_sharing: a 'load_sharing' section needs a 'workload' section (task "
                  "arrivals, execution times, deadlines)"});
}

TEST(TopLevel, DetectorsNextToMembership) {
  EXPECT_EQ(problems_with("detectors", json::object()),
            Lines{"$.detectors: the heartbeat study runs only in a scenario without "
                  "'membership' (it would be ignored); put it in a scenario of its own"});
}

TEST(TopLevel, EveryProblemOfAMultiErrorDocumentIsReported) {
  const json doc = json::parse(R"({"name": 3, "seed": -2, "replications": "many",
      "horizon_s": 50, "warmup_s": 60, "nodes": {"count": 2, "extra": 1},
      "metrics": {"per_node": 1}, "output": [], "speed": "fast"})");
  EXPECT_EQ(parse(doc).problems,
            (Lines{"$.name: expected a string, got 3",
                   "$.seed: expected an integer >= 0, got -2",
                   "$.replications: expected an integer >= 1 and <= 1000000, got the string "
                   "\"many\"",
                   "$.warmup_s: expected warmup_s < horizon_s (50), got 60",
                   "$.nodes.extra: unknown key",
                   "$.metrics.per_node: expected true or false, got 1",
                   "$.output: expected an object, got an array",
                   "$: expected a model section: 'membership' (the Geode ring), 'load_sharing' "
                   "with 'workload' (load sharing), or 'detectors' (the pairwise heartbeat "
                   "study); none is present",
                   // "seed" is given too: still suggested (issue 28)
                   "$.speed: unknown key (did you mean 'seed'? it is given too: remove one)"}));
}

TEST(ScenarioName, Rules) {
  EXPECT_TRUE(valid_scenario_name("a"));
  EXPECT_TRUE(valid_scenario_name(std::string(100, 'x')));
  EXPECT_FALSE(valid_scenario_name(std::string(101, 'x')));
  EXPECT_FALSE(valid_scenario_name(".hidden"));
  EXPECT_FALSE(valid_scenario_name("with space"));
  EXPECT_FALSE(valid_scenario_name(""));
}

}  // namespace
}  // namespace fdsim::scenario
