#include <gtest/gtest.h>

#include <algorithm>

#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

using testing::json;
using testing::parse_sections;

bool has_problem(const std::vector<std::string>& problems, const std::string& needle) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(needle) != std::string::npos; });
}

TEST(LoadSharingConfig, AbsentSectionsResolveToDocumentedDefaults) {
  std::vector<std::string> problems;
  json resolved;
  const LoadSharingConfig c = parse_sections(nullptr, json::object(), 4, &problems, &resolved);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(c.scheduling, SchedulingPolicy::mlfs);
  EXPECT_EQ(c.exec_knowledge, ExecKnowledge::exact);
  EXPECT_EQ(c.load_index, LoadIndex::ql);
  EXPECT_EQ(c.thresholds.th_u, 1.0);
  EXPECT_EQ(c.thresholds.th_f, 4.0);
  EXPECT_EQ(c.buddy_size, 10u);
  EXPECT_EQ(c.max_hops, 1u);
  EXPECT_TRUE(c.transfers);
  EXPECT_EQ(c.transport, TransferTransport::reliable);
  EXPECT_FALSE(c.delay_allowance.has_value());
  EXPECT_EQ(c.arm_names(), std::vector<std::string>{"none"});
  EXPECT_EQ(c.workload.arrivals.size(), 4u);
  EXPECT_DOUBLE_EQ(c.workload.arrivals[3].rate_at(SimTime::zero()), 0.5);
  EXPECT_DOUBLE_EQ(c.workload.exec_law(2).mean_s(), 1.0);
  EXPECT_EQ(c.workload.deadline.rule, DeadlineRule::uniform);
  // Every default is echoed.
  const json& ls = resolved["load_sharing"];
  EXPECT_EQ(ls["scheduling"], "mlfs");
  EXPECT_EQ(ls["th_f"], 4.0);
  EXPECT_EQ(ls["arms"], json::parse(R"([{"name": "none", "diagnosis": "none"}])"));
  EXPECT_TRUE(ls["delay_allowance_ms"].is_null());
  EXPECT_EQ(resolved["workload"]["execution"]["distribution"], "exponential");
  EXPECT_EQ(resolved["workload"]["deadline"]["max_s"], 10.0);
}

TEST(LoadSharingConfig, ArmsParseWithTheirParametersAndMembershipNeeds) {
  const json ls = json::parse(R"({"arms": [
      {"name": "none", "diagnosis": "none"},
      {"name": "fixed_5s", "diagnosis": "fixed", "timeout_ms": 5000},
      {"name": "hs01", "diagnosis": "hou_shin", "alpha": 0.01},
      {"name": "hs_extra", "diagnosis": "hou_shin_extra"},
      {"name": "ring", "diagnosis": "geode_ring"},
      {"name": "oracle", "diagnosis": "oracle"}]})");
  const LoadSharingConfig c = testing::parse_ok(json::object(), ls, 8);
  EXPECT_EQ(c.arm_names(),
            (std::vector<std::string>{"none", "fixed_5s", "hs01", "hs_extra", "ring", "oracle"}));
  EXPECT_EQ(c.arms[1].timeout, Duration::s(5));
  EXPECT_DOUBLE_EQ(c.arms[2].alpha, 0.01);
  EXPECT_DOUBLE_EQ(c.arms[3].alpha, 0.05);
  for (size_t k = 0; k < c.arms.size(); ++k) EXPECT_EQ(c.arm_needs_membership(k), k == 4);
  EXPECT_FALSE(c.arm_needs_membership(99));
}

TEST(LoadSharingConfig, BadInputIsReportedWithItsPath) {
  std::vector<std::string> problems;
  const json w = json::parse(R"({"execution": {"distribution": "deterministic"},
      "deadline": {"kind": "uniform", "min_s": 5, "max_s": 2}, "bogus": 1,
      "load_phases": [{"nodes": [0, 9], "from_s": 10, "rate_per_s": -1}]})");
  const json ls = json::parse(R"({"th_u": 4, "th_f": 4, "scheduling": "edf", "arms": [
      {"name": "a", "diagnosis": "fixed"},
      {"name": "a", "diagnosis": "hou_shin", "alpha": 1},
      {"name": "b", "diagnosis": "oracle", "timeout_ms": 5}]})");
  parse_sections(w, ls, 4, &problems);
  EXPECT_TRUE(has_problem(problems, "$.workload.execution.value_s: required"));
  EXPECT_TRUE(has_problem(problems, "$.workload.deadline.max_s: expected a number >= min_s"));
  EXPECT_TRUE(has_problem(problems, "$.workload.bogus: unknown key"));
  EXPECT_TRUE(has_problem(problems, "$.workload.load_phases[0].nodes[1]"));
  EXPECT_TRUE(has_problem(problems, "$.workload.load_phases[0].rate_per_s"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.th_f: expected th_f > th_u"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.scheduling: expected one of"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[0].timeout_ms: required"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[1].name: duplicate arm name"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[1].alpha"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[2].timeout_ms: unknown key"));
}

TEST(LoadSharingConfig, AKeyOfOtherDiagnosesNamesTheDiagnosesThatTakeIt) {
  std::vector<std::string> problems;
  parse_sections(json::object(), json::parse(R"({"arms": [
      {"name": "f", "diagnosis": "fixed", "timeout_ms": 5000, "alpha": 0.05},
      {"name": "o", "diagnosis": "oracle", "period_ms": 100}]})"),
                 4, &problems);
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[0].alpha: unknown key for diagnosis "
                                    "\"fixed\": only oracle_extra, hou_shin, hou_shin_extra "
                                    "take alpha"));
  EXPECT_TRUE(has_problem(problems, "$.load_sharing.arms[1].period_ms: unknown key for "
                                    "diagnosis \"oracle\": only fixed_periodic, "
                                    "fixed_on_silence, oracle_periodic, periodic_no_diagnosis, "
                                    "fixed_heartbeat take period_ms"));
  EXPECT_EQ(problems.size(), 2u);
}

TEST(LoadSharingConfig, HouShinOnQueueLengthNeedsIntegerThresholds) {
  std::vector<std::string> problems;
  parse_sections(json::object(),
                 json::parse(R"({"th_u": 1.5, "arms": [{"name": "h", "diagnosis": "hou_shin"}]})"),
                 4, &problems);
  EXPECT_TRUE(has_problem(problems, "integer thresholds"));
  parse_sections(json::object(), json::parse(R"({"th_u": 1.5, "load_index": "cet",
                                 "arms": [{"name": "h", "diagnosis": "hou_shin"}]})"),
                 4, &problems);
  EXPECT_TRUE(problems.empty());
}

TEST(LoadSharingConfig, LoadPhasesAndExecutionOverridesApplyPerNode) {
  const json w = json::parse(R"({"arrival_rate_per_s": 0.3,
      "load_phases": [{"nodes": [1, 2], "from_s": 100, "rate_per_s": 0.9},
                      {"nodes": [2], "from_s": 100, "rate_per_s": 0.1},
                      {"from_s": 200, "rate_per_s": 0.0}],
      "execution_overrides": [{"nodes": [3], "distribution": "uniform",
                               "min_s": 1, "max_s": 2}]})");
  const LoadSharingConfig c = testing::parse_ok(w, json::object(), 4);
  const auto rate = [&](NodeId n, double t) {
    return c.workload.arrivals[n].rate_at(SimTime::from_seconds(t));
  };
  EXPECT_DOUBLE_EQ(rate(0, 150), 0.3);
  EXPECT_DOUBLE_EQ(rate(1, 150), 0.9);
  EXPECT_DOUBLE_EQ(rate(2, 150), 0.1);  // equal from_s: the later entry wins
  EXPECT_DOUBLE_EQ(rate(3, 250), 0.0);
  EXPECT_DOUBLE_EQ(c.workload.exec_law(3).mean_s(), 1.5);
  EXPECT_DOUBLE_EQ(c.workload.exec_law(0).mean_s(), 1.0);
}

TEST(LoadSharingConfig, EmpiricalExecutionTimesAreReadRelativeToTheScenario) {
  const std::string dir = std::string(FDSIM_SOURCE_DIR) + "/scenarios/examples/loadsharing";
  std::vector<std::string> problems;
  const LoadSharingConfig c = parse_sections(
      json::parse(R"({"execution": {"distribution": "empirical", "file": "exec_times_s.txt"}})"),
      json::object(), 2, &problems, nullptr, dir);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(c.workload.exec_law(0).samples_s.size(), 30u);
  EXPECT_DOUBLE_EQ(c.workload.exec_law(0).samples_s.back(), 5.0);
  parse_sections(json::parse(R"({"execution": {"distribution": "empirical", "file": "nope.txt"}})"),
                 json::object(), 2, &problems, nullptr, dir);
  EXPECT_TRUE(has_problem(problems, "$.workload.execution.file: "));
  EXPECT_TRUE(has_problem(problems, "nope.txt: cannot open the execution times file"));
}

}  // namespace
}  // namespace fdsim::loadsharing
