// Parsing of detector configs and of the heartbeat-study section: defaults, exact error paths,
// per-kind key checking.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/detectors/config.h"
#include "models/detectors/heartbeat_study_config.h"

namespace fdsim::detectors {
namespace {

using nlohmann::json;
using scenario::Diagnostics;
using scenario::ObjectReader;

struct ParsedDetector {
  Diagnostics diag;
  json resolved;
  DetectorConfig config;
};

ParsedDetector parse_detector(const json& doc) {
  ParsedDetector p;
  ObjectReader r(&doc, "$.detector", p.diag, p.resolved);
  p.config = parse_detector_config(r);
  r.finish();
  return p;
}

std::vector<std::string> problems(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& p : d.problems) out.push_back(p.str());
  return out;
}

TEST(DetectorConfig, EveryKindParsesWithDefaultsAndBuildsThatDetector) {
  for (const char* kind : {"fixed", "nfd_s", "nfd_e", "phi_accrual", "exponential_accrual",
                           "bertier", "quantile"}) {
    ParsedDetector p = parse_detector(json{{"kind", kind}});
    ASSERT_TRUE(p.diag.ok()) << kind << ": " << problems(p.diag).front();
    EXPECT_EQ(kind_name(p.config.kind), kind);
    auto d = make_detector(p.config, Duration::ms(1000));
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->kind(), kind);
    EXPECT_EQ(d->suspect_at(), SimTime::max());
  }
}

TEST(DetectorConfig, DefaultsAreWrittenIntoTheResolvedConfig) {
  ParsedDetector phi = parse_detector(json{{"kind", "phi_accrual"}});
  EXPECT_EQ(phi.resolved, (json{{"kind", "phi_accrual"},
                                {"threshold", 8.0},
                                {"window", 1000},
                                {"min_std_ms", 100.0},
                                {"acceptable_pause_ms", 3000.0},
                                {"first_interval_ms", nullptr}}));
  ParsedDetector q = parse_detector(json{{"kind", "quantile"}, {"alpha", 0.05}});
  EXPECT_EQ(q.resolved, (json{{"kind", "quantile"},
                              {"alpha", 0.05},
                              {"delay_allowance_ms", 0.0},
                              {"prior_shape", 1.0},
                              {"prior_excess_ms", 100.0},
                              {"forgetting_per_heartbeat", 1.0}}));
  EXPECT_DOUBLE_EQ(q.config.quantile.alpha, 0.05);
  ParsedDetector e = parse_detector(json{{"kind", "exponential_accrual"}});
  EXPECT_EQ(e.config.exponential.max_interval, Duration::ms(2000));
  EXPECT_EQ(e.config.exponential.initial_interval, Duration::ms(2000));
  ParsedDetector b = parse_detector(json{{"kind", "bertier"}, {"gamma", 0.25}});
  EXPECT_EQ(b.config.bertier.window, 100u);
  EXPECT_DOUBLE_EQ(b.config.bertier.gamma, 0.25);
  EXPECT_DOUBLE_EQ(b.config.bertier.phi, 4.0);
}

TEST(DetectorConfig, KeyOfAnotherKindIsAnUnknownKeyWithItsPath) {
  ParsedDetector p = parse_detector(json{{"kind", "fixed"}, {"timeout_ms", 500}, {"delta_ms", 5}});
  EXPECT_EQ(problems(p.diag), std::vector<std::string>{"$.detector.delta_ms: unknown key"});
  EXPECT_EQ(p.config.timeout, Duration::ms(500));
  ParsedDetector q = parse_detector(json{{"kind", "nfd_s"}, {"window", 10}, {"threshold", 3}});
  EXPECT_EQ(problems(q.diag), (std::vector<std::string>{"$.detector.threshold: unknown key",
                                                         "$.detector.window: unknown key"}));
}

TEST(DetectorConfig, OutOfRangeValuesAreReportedAtTheirPath) {
  ParsedDetector p = parse_detector(json{{"kind", "nfd_e"}, {"window", 0}, {"alpha_ms", -1}});
  const auto got = problems(p.diag);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].rfind("$.detector.alpha_ms: expected a number >= 0", 0), 0u) << got[0];
  EXPECT_EQ(got[1].rfind("$.detector.window: expected an integer >= 1", 0), 0u) << got[1];
  ParsedDetector q = parse_detector(json{{"kind", "quantile"}, {"alpha", 1}});
  EXPECT_EQ(problems(q.diag),
            std::vector<std::string>{"$.detector.alpha: expected a number > 0 and < 1, got 1"});
  ParsedDetector f = parse_detector(json{{"kind", "fixed"}, {"timeout_ms", 0}});
  ASSERT_EQ(f.diag.problems.size(), 1u);
  EXPECT_EQ(f.diag.problems[0].path, "$.detector.timeout_ms");
}

TEST(DetectorConfig, MissingOrUnknownKindIsAnError) {
  ParsedDetector p = parse_detector(json::object());
  ASSERT_FALSE(p.diag.ok());
  EXPECT_EQ(p.diag.problems[0].path, "$.detector.kind");
  ParsedDetector q = parse_detector(json{{"kind", "swim"}});
  ASSERT_FALSE(q.diag.ok());
  EXPECT_EQ(q.diag.problems[0].path, "$.detector.kind");
  EXPECT_NE(q.diag.problems[0].message.find("\"phi_accrual\""), std::string::npos);
}

struct ParsedStudy {
  Diagnostics diag;
  json resolved;
  HeartbeatStudyConfig config;
};

ParsedStudy parse_study(const json& section, size_t node_count) {
  ParsedStudy p;
  const json doc = {{"detectors", section}};
  ObjectReader root(&doc, "$", p.diag, p.resolved);
  scenario::NodesConfig nodes;
  nodes.count = node_count;
  nodes.groups["east"] = {0, 1};
  root.object("detectors", [&](ObjectReader& r) {
    p.config = parse_heartbeat_study_config(r, nodes);
  });
  root.finish();
  return p;
}

const json kArms = json::array({{{"name", "nfd"}, {"detector", {{"kind", "nfd_s"}}}}});

TEST(HeartbeatStudyConfig, MonitorJOfSenderIIsIPlusOnePlusJModN) {
  ParsedStudy p = parse_study({{"monitors_per_sender", 2}, {"arms", kArms}}, 4);
  ASSERT_TRUE(p.diag.ok()) << problems(p.diag).front();
  std::vector<std::pair<NodeId, NodeId>> got;
  for (auto mp : p.config.pairs) got.push_back({mp.sender, mp.monitor});
  EXPECT_EQ(got, (std::vector<std::pair<NodeId, NodeId>>{
                     {0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 0}, {2, 3}, {3, 0}, {3, 1}}));
  EXPECT_EQ(p.config.arm_names(), std::vector<std::string>{"nfd"});
  EXPECT_EQ(p.config.heartbeat_period, Duration::ms(1000));
  EXPECT_EQ(p.resolved["detectors"]["senders"], json({0, 1, 2, 3}));
  EXPECT_EQ(p.resolved["detectors"]["arms"][0]["detector"]["delta_ms"], 100.0);
}

TEST(HeartbeatStudyConfig, ExplicitPairsAndGroupNames) {
  ParsedStudy p = parse_study(
      {{"pairs", json::array({{{"sender", 3}, {"monitors", "east"}}, {{"sender", 0}, {"monitors", 2}}})},
       {"heartbeat_period_ms", 250},
       {"arms", kArms}},
      4);
  ASSERT_TRUE(p.diag.ok()) << problems(p.diag).front();
  std::vector<std::pair<NodeId, NodeId>> got;
  for (auto mp : p.config.pairs) got.push_back({mp.sender, mp.monitor});
  EXPECT_EQ(got, (std::vector<std::pair<NodeId, NodeId>>{{0, 2}, {3, 0}, {3, 1}}));
  EXPECT_EQ(p.config.heartbeat_period, Duration::ms(250));
}

TEST(HeartbeatStudyConfig, ErrorsCarryExactJsonPaths) {
  json arms = json::array({{{"name", "a"}, {"detector", {{"kind", "fixed"}, {"delta_ms", 3}}}},
                           {{"name", "a"}, {"detector", {{"kind", "phi_accrual"}, {"window", -1}}}},
                           {{"name", "c"}}});
  ParsedStudy p = parse_study({{"pairs", json::array({{{"sender", 1}, {"monitors", {1, 2}}}})},
                               {"send_jitter_ms", 500},
                               {"colour", "red"},
                               {"arms", arms}},
                              3);
  std::vector<std::string> paths;
  for (const auto& pr : p.diag.problems) paths.push_back(pr.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"$.detectors.arms[0].detector.delta_ms",
                                              "$.detectors.arms[1].detector.window",
                                              "$.detectors.arms[1].name",
                                              "$.detectors.arms[2].detector",
                                              "$.detectors.colour",
                                              "$.detectors.pairs[0].monitors",
                                              "$.detectors.send_jitter_ms"}))
      << ::testing::PrintToString(problems(p.diag));
}

TEST(HeartbeatStudyConfig, ArmsAreRequiredAndPairsExcludeSenders) {
  ParsedStudy p = parse_study({{"senders", "all"}, {"pairs", json::array()}}, 3);
  std::vector<std::string> paths;
  for (const auto& pr : p.diag.problems) paths.push_back(pr.path);
  EXPECT_NE(std::find(paths.begin(), paths.end(), "$.detectors.arms"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "$.detectors"), paths.end());  // only one of
}

}  // namespace
}  // namespace fdsim::detectors
