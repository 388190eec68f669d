// The `faults` scenario section: every kind parses; problems are reported at exact paths.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/faults/faults_fixture.h"

namespace fdsim::faults {
namespace {

using testing_support::parse_faults;
using testing_support::ParsedFaults;
using nlohmann::json;

bool has_problem(const ParsedFaults& p, const std::string& text) {
  const auto v = p.problems();
  return std::find(v.begin(), v.end(), text) != v.end();
}

TEST(FaultsConfig, AbsentSectionMeansNoFaults) {
  scenario::Diagnostics diag;
  json resolved;
  const json doc = json::object();
  scenario::ObjectReader root(&doc, "$", diag, resolved);
  const FaultsConfig cfg = parse_faults_config(root, testing_support::test_nodes(3));
  EXPECT_TRUE(diag.ok());
  EXPECT_TRUE(cfg.empty());
  EXPECT_EQ(resolved["faults"], json::array());
}

TEST(FaultsConfig, EveryScheduledKindParsesWithItsTimes) {
  const ParsedFaults p = parse_faults(json::parse(R"([
    {"kind": "crash", "at_s": 10, "nodes": [1]},
    {"kind": "recover", "at_ms": 20500, "nodes": "left"},
    {"kind": "pause", "at_s": 3, "duration_ms": 250, "nodes": [2]},
    {"kind": "sick", "at_s": 4, "nodes": "all"},
    {"kind": "play_dead", "at_s": 5, "duration_s": 2, "nodes": [3]},
    {"kind": "partition", "at_s": 6, "heal_at_s": 9, "a": "left", "b": "right", "one_way": true},
    {"kind": "loss_burst", "at_s": 7, "duration_s": 1, "from": [0], "loss": 0.5},
    {"kind": "delay_spike", "at_s": 8, "duration_ms": 500, "to": [1], "extra_ms": 40}
  ])"));
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  const auto& s = p.cfg.scheduled;
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s[0].kind, FaultKind::crash);
  EXPECT_EQ(s[0].at, SimTime::from_seconds(10));
  EXPECT_EQ(s[0].nodes, (std::vector<NodeId>{1}));
  EXPECT_EQ(s[1].at, SimTime::from_seconds(20.5));
  EXPECT_EQ(s[1].nodes, (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(s[2].end, SimTime::from_seconds(3.25));
  EXPECT_FALSE(s[3].end.has_value());
  EXPECT_EQ(s[3].nodes.size(), 4u);
  EXPECT_EQ(s[4].end, SimTime::from_seconds(7));
  EXPECT_EQ(s[5].a, (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(s[5].b, (std::vector<NodeId>{2, 3}));
  EXPECT_TRUE(s[5].one_way);
  EXPECT_EQ(s[5].end, SimTime::from_seconds(9));
  EXPECT_EQ(s[6].loss, 0.5);
  EXPECT_TRUE(s[6].b.empty());
  EXPECT_EQ(s[7].extra, Duration::ms(40));
  EXPECT_EQ(s[7].end, SimTime::from_seconds(8.5));
  // The resolved echo spells out defaults (one_way, open-ended durations).
  EXPECT_EQ(p.resolved["faults"][3]["duration_s"], nullptr);
  EXPECT_EQ(p.resolved["faults"][1]["nodes"], json({0, 1}));
}

TEST(FaultsConfig, ProcessesParseAndGetDistinctStreamNames) {
  const ParsedFaults p = parse_faults(json::parse(R"([
    {"kind": "crash_process", "nodes": "all", "mean_up_s": 100, "mean_down_s": 5},
    {"kind": "crash_process", "nodes": [0], "mean_up_s": 50, "start_s": 10, "stop_s": 20},
    {"kind": "pause_process", "nodes": "right", "mean_interval_s": 30, "duration_ms": 200},
    {"kind": "pause_process", "nodes": [1], "mean_interval_s": 30,
     "duration": {"model": "exponential", "min_ms": 10, "mean_ms": 100}}
  ])"));
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  ASSERT_EQ(p.cfg.crash_processes.size(), 2u);
  EXPECT_EQ(p.cfg.crash_processes[0].stream, "faults.crash_process");
  EXPECT_EQ(p.cfg.crash_processes[1].stream, "faults.crash_process#1");
  EXPECT_EQ(p.cfg.crash_processes[0].mean_down_s, 5);
  EXPECT_FALSE(p.cfg.crash_processes[1].mean_down_s.has_value());
  EXPECT_EQ(p.cfg.crash_processes[1].start, SimTime::from_seconds(10));
  EXPECT_EQ(p.cfg.crash_processes[1].stop, SimTime::from_seconds(20));
  ASSERT_EQ(p.cfg.pause_processes.size(), 2u);
  EXPECT_EQ(p.cfg.pause_processes[0].stream, "faults.pause_process");
  EXPECT_TRUE(p.cfg.pause_processes[0].duration->deterministic());
  EXPECT_DOUBLE_EQ(p.cfg.pause_processes[0].duration->mean_ms(), 200);
  EXPECT_DOUBLE_EQ(p.cfg.pause_processes[1].duration->mean_ms(), 100);
}

TEST(FaultsConfig, UnknownKindListsTheAllowedKinds) {
  const ParsedFaults p = parse_faults(json::parse(R"([{"kind": "explode", "at_s": 1, "nodes": [0]}])"));
  EXPECT_EQ(p.problems(),
            (std::vector<std::string>{
                "$.faults[0].kind: expected one of \"crash\", \"recover\", \"pause\", \"sick\", "
                "\"play_dead\", \"partition\", \"loss_burst\", \"delay_spike\", "
                "\"crash_process\", \"pause_process\", \"group_crash_process\", "
                "\"crash_storm\", \"churn\", got the string \"explode\""}));
}

TEST(FaultsConfig, TimeProblemsCarryTheirExactPath) {
  const ParsedFaults p = parse_faults(json::parse(R"([
    {"kind": "crash", "at_s": -1, "nodes": [0]},
    {"kind": "crash", "at_s": 1, "at_ms": 1000, "nodes": [0]},
    {"kind": "crash", "nodes": [0]},
    {"kind": "pause", "at_s": 1, "nodes": [0]},
    {"kind": "partition", "at_s": 5, "heal_at_s": 5, "a": [0]},
    {"kind": "pause", "at_s": 1, "duration_ms": 0, "nodes": [0]}
  ])"));
  EXPECT_TRUE(has_problem(p, "$.faults[0].at_s: expected a number >= 0 and <= 1000000000, got -1"));
  EXPECT_TRUE(has_problem(p, "$.faults[1]: only one of 'at_s', 'at_ms' may be given"));
  EXPECT_TRUE(has_problem(
      p, "$.faults[2].at_s: required field is missing (expected a number >= 0; or give 'at_ms')"));
  EXPECT_TRUE(has_problem(
      p, "$.faults[3].duration_s: required field is missing (expected a number > 0; or give "
         "'duration_ms')"));
  EXPECT_TRUE(has_problem(p, "$.faults[4].heal_at_s: expected a heal time after the start (5 s), got 5 s"));
  EXPECT_TRUE(has_problem(
      p, "$.faults[5].duration_ms: expected a number > 0 and <= 1000000000000, got 0"));
  EXPECT_EQ(p.problems().size(), 6u) << ::testing::PrintToString(p.problems());
  EXPECT_TRUE(p.cfg.scheduled.empty());
}

TEST(FaultsConfig, NodeSetAndValueProblemsCarryTheirExactPath) {
  const ParsedFaults p = parse_faults(json::parse(R"([
    {"kind": "crash", "at_s": 1},
    {"kind": "crash", "at_s": 1, "nodes": [7]},
    {"kind": "partition", "at_s": 1, "a": [0, 1], "b": [1, 2]},
    {"kind": "loss_burst", "at_s": 1, "duration_s": 1, "loss": 0},
    {"kind": "delay_spike", "at_s": 1, "duration_s": 1},
    {"kind": "crash_process", "nodes": [0], "mean_up_s": 0},
    {"kind": "pause_process", "nodes": [0], "mean_interval_s": 1},
    {"kind": "crash", "at_s": 1, "nodes": [0], "color": "red"}
  ])"));
  EXPECT_TRUE(has_problem(p, "$.faults[0].nodes: required field is missing (expected a node set)"));
  EXPECT_TRUE(has_problem(p, "$.faults[1].nodes[0]: expected a node index >= 0 and <= 3, got 7"));
  EXPECT_TRUE(has_problem(
      p, "$.faults[2].b: expected groups a and b to be disjoint, but node 1 is in both"));
  EXPECT_TRUE(has_problem(p, "$.faults[3].loss: expected a number > 0 and <= 1, got 0"));
  EXPECT_TRUE(has_problem(p, "$.faults[4].extra_ms: required field is missing (expected a number > 0)"));
  EXPECT_TRUE(has_problem(p, "$.faults[5].mean_up_s: expected a number > 0 and <= 1000000000, got 0"));
  EXPECT_TRUE(has_problem(p, "$.faults[6]: required: one of 'duration_ms', 'duration_s' or "
                             "'duration' (a distribution object)"));
  EXPECT_TRUE(has_problem(p, "$.faults[7].color: unknown key"));
  EXPECT_EQ(p.problems().size(), 8u) << ::testing::PrintToString(p.problems());
}

TEST(FaultsConfig, PauseDurationDistributionErrorsAreNested) {
  const ParsedFaults p = parse_faults(json::parse(R"([
    {"kind": "pause_process", "nodes": [0], "mean_interval_s": 1,
     "duration": {"model": "pareto", "min_ms": 10, "alpha": 0.5}}
  ])"));
  EXPECT_EQ(p.problems(), (std::vector<std::string>{"$.faults[0].duration.alpha: expected a number "
                                                    "> 1 and <= 1000000000, got 0.5"}));
}

TEST(FaultsConfig, ResolvedConfigParsesAgainToTheSameFaults) {
  const json input = json::parse(R"([
    {"kind": "sick", "at_ms": 1500, "nodes": [1]},
    {"kind": "partition", "at_s": 2, "a": [0]},
    {"kind": "crash_process", "nodes": [2], "mean_up_s": 10}
  ])");
  const ParsedFaults first = parse_faults(input);
  ASSERT_TRUE(first.diag.ok()) << first.problems().front();
  const ParsedFaults second = parse_faults(first.resolved["faults"]);
  ASSERT_TRUE(second.diag.ok()) << second.problems().front();
  EXPECT_EQ(second.resolved, first.resolved);
  EXPECT_EQ(second.cfg.scheduled[0].at, SimTime::from_seconds(1.5));
  EXPECT_FALSE(second.cfg.scheduled[1].end.has_value());
  EXPECT_FALSE(second.cfg.crash_processes[0].mean_down_s.has_value());
}

}  // namespace
}  // namespace fdsim::faults
