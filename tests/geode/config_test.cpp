// The membership section: profile defaults, derived values, overrides, arms, and errors.
#include <gtest/gtest.h>

#include "models/geode/config.h"

namespace fdsim::geode {
namespace {

using nlohmann::json;

struct Parsed {
  GeodeConfig config;
  scenario::Diagnostics diag;
  json resolved;
};

Parsed parse(const json& membership, size_t nodes = 10, std::vector<NodeId> locators = {}) {
  Parsed p;
  scenario::NodesConfig n;
  n.count = nodes;
  n.locators = std::move(locators);
  scenario::ObjectReader r(&membership, "$.membership", p.diag, p.resolved);
  p.config = parse_geode_config(r, n);
  r.finish();
  return p;
}

std::string problems(const Parsed& p) {
  std::string s;
  for (const auto& x : p.diag.problems) s += x.str() + "\n";
  return s;
}

}  // namespace

TEST(GeodeConfig, WikiDefaultsForMemberTimeout5000) {
  const Parsed p = parse(json::object());
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const GeodeConfig& c = p.config;
  EXPECT_EQ(c.profile, Profile::wiki);
  EXPECT_EQ(c.member_timeout, Duration::ms(5000));
  EXPECT_EQ(c.heartbeat_period, Duration::ms(2500));
  EXPECT_EQ(c.monitor_period, Duration::ms(2500));
  EXPECT_EQ(c.check_threshold, Duration::ms(5000));
  EXPECT_EQ(c.heartbeat_request_wait, Duration::ms(5000));
  EXPECT_EQ(c.heartbeat_predecessors, 2u);
  EXPECT_EQ(c.small_view_size, 4u);
  EXPECT_EQ(c.max_suspect_recipients, 7u);
  EXPECT_EQ(c.preferred_in_fanout, 5u);
  EXPECT_TRUE(c.random_recipient);
  EXPECT_EQ(c.final_check_timeout, Duration::ms(5000));
  EXPECT_EQ(c.final_check_retry, Duration::ms(100));
  EXPECT_EQ(c.request_collection, Duration::ms(300));
  EXPECT_EQ(c.view_ack_timeout, Duration::ms(12437));  // 2.4874 * 5000 = 12437
  EXPECT_TRUE(c.partition_detection);
  EXPECT_EQ(c.members.size(), 10u);
  EXPECT_EQ(c.arm_names(), std::vector<std::string>{"fixed"});
  EXPECT_EQ(p.resolved["profile"], "wiki");
  EXPECT_EQ(p.resolved["check_threshold_ms"], 5000.0);
  EXPECT_EQ(p.resolved["neighbour_check"], json::array({{{"name", "fixed"}}}));
}

TEST(GeodeConfig, CurrentDefaultsAndValuesDerivedFromTheResolvedM) {
  const Parsed p = parse({{"profile", "current"}, {"member_timeout_ms", 1000}});
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const GeodeConfig& c = p.config;
  EXPECT_EQ(c.heartbeat_period, Duration::ms(500));
  EXPECT_EQ(c.check_threshold, Duration::ms(500));  // M - T
  EXPECT_EQ(c.small_view_size, 9u);
  EXPECT_EQ(c.max_suspect_recipients, 10u);
  EXPECT_EQ(c.preferred_in_fanout, 10u);
  EXPECT_FALSE(c.random_recipient);
  EXPECT_EQ(c.final_check_timeout, Duration::ms(1000));
  EXPECT_EQ(c.view_ack_timeout, Duration::ms(2487));  // 2.4874 * 1000
  EXPECT_EQ(default_view_ack_timeout(Duration::ms(100)), Duration::ms(1500));    // clamped low
  EXPECT_EQ(default_view_ack_timeout(Duration::ms(60000)), Duration::ms(12437)); // clamped high
}

TEST(GeodeConfig, ExplicitValuesOverrideOneByOne) {
  const Parsed p = parse({{"profile", "current"},
                          {"member_timeout_ms", 2000},
                          {"check_threshold_ms", 1700},
                          {"small_view_size", 3},
                          {"random_recipient", true},
                          {"members", json::array({1, 2, 3})},
                          {"start_offset_max_ms", 250}});
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  EXPECT_EQ(p.config.check_threshold, Duration::ms(1700));
  EXPECT_EQ(p.config.heartbeat_period, Duration::ms(1000));
  EXPECT_EQ(p.config.small_view_size, 3u);
  EXPECT_TRUE(p.config.random_recipient);
  EXPECT_EQ(p.config.members, (std::vector<NodeId>{1, 2, 3}));
  EXPECT_EQ(p.config.start_offset_max, Duration::ms(250));
}

TEST(GeodeConfig, DetectorArms) {
  const Parsed p = parse({{"neighbour_check",
                           json::array({{{"name", "fixed"}},
                                        {{"name", "phi"},
                                         {"detector", {{"kind", "phi_accrual"}, {"threshold", 8}}}}})}});
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  EXPECT_EQ(p.config.arm_names(), (std::vector<std::string>{"fixed", "phi"}));
  EXPECT_FALSE(p.config.arms[0].detector.has_value());
  ASSERT_TRUE(p.config.arms[1].detector.has_value());
  EXPECT_EQ(p.config.arms[1].detector->kind, detectors::DetectorKind::phi_accrual);
}

TEST(GeodeConfig, ProblemsAreReportedWithTheirPaths) {
  const Parsed p = parse({{"profile", "newest"},
                          {"member_timeout_ms", -5},
                          {"heartbeat_period_ms", 0},
                          {"bogus", 1},
                          {"members", json::array({0, 12})},
                          {"neighbour_check",
                           json::array({{{"name", "phi"}}, {{"name", "fixed"}}, {{"name", "fixed"}}})}});
  const std::string all = problems(p);
  EXPECT_NE(all.find("$.membership.profile: expected one of \"wiki\", \"current\""), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.member_timeout_ms: expected a number > 0"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.heartbeat_period_ms: expected a number > 0"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.bogus: unknown key"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.members[1]"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.neighbour_check[0].detector: required"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.neighbour_check[2].name: duplicate arm name \"fixed\""), std::string::npos) << all;
}

}  // namespace fdsim::geode

namespace fdsim::geode {

TEST(GeodeConfig, SourceRuleParametersDefaultsAndOverrides) {
  const Parsed w = parse(json::object());
  ASSERT_TRUE(w.diag.ok()) << problems(w);
  EXPECT_EQ(w.config.reliable_retransmit, Duration::zero());  // the network's channel
  EXPECT_EQ(w.config.app_messages_per_s, 0.0);
  EXPECT_TRUE(w.config.member_weights.empty());
  EXPECT_FALSE(w.config.source_rules());
  const Parsed c = parse({{"profile", "current"}});
  ASSERT_TRUE(c.diag.ok()) << problems(c);
  EXPECT_EQ(c.config.reliable_retransmit, Duration::ms(500));  // UNICAST3 xmit_interval
  EXPECT_TRUE(c.config.source_rules());
  EXPECT_EQ(c.resolved["reliable_retransmit_ms"], 500.0);
  const Parsed o = parse({{"profile", "current"},
                          {"reliable_retransmit_ms", 250},
                          {"app_messages_per_s", 4.5},
                          {"member_weights", json::array({0, 20, 0})}},
                         3);
  ASSERT_TRUE(o.diag.ok()) << problems(o);
  EXPECT_EQ(o.config.reliable_retransmit, Duration::ms(250));
  EXPECT_EQ(o.config.app_messages_per_s, 4.5);
  EXPECT_EQ(o.config.member_weights, (std::vector<int64_t>{0, 20, 0}));
  const Parsed bad = parse({{"reliable_retransmit_ms", -1},
                            {"app_messages_per_s", -2},
                            {"member_weights", json::array({0, 300})}},
                           3);
  const std::string all = problems(bad);
  EXPECT_NE(all.find("$.membership.reliable_retransmit_ms: expected a number >= 0"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.app_messages_per_s: expected a number >= 0"), std::string::npos) << all;
  EXPECT_NE(all.find("$.membership.member_weights"), std::string::npos) << all;
  const Parsed count = parse({{"member_weights", json::array({1, 2})}}, 3);
  EXPECT_NE(problems(count).find("$.membership.member_weights: expected one weight per node (3), got 2"),
            std::string::npos)
      << problems(count);
}

}  // namespace fdsim::geode
