// The swim section: memberlist LAN defaults, overrides, arms and errors.
#include <gtest/gtest.h>

#include "models/swim/config.h"
#include "models/swim/memory_bound.h"

namespace fdsim::swim {
namespace {

using nlohmann::json;

struct Parsed {
  SwimConfig config;
  scenario::Diagnostics diag;
  json resolved;
};

Parsed parse(const json& section, size_t nodes = 8, double horizon_s = 0) {
  Parsed p;
  scenario::NodesConfig n;
  n.count = nodes;
  scenario::ObjectReader r(&section, "$.swim", p.diag, p.resolved);
  p.config = parse_swim_config(r, n, horizon_s);
  r.finish();
  return p;
}

std::string problems(const Parsed& p) {
  std::string s;
  for (const auto& x : p.diag.problems) s += x.str() + "\n";
  return s;
}

TEST(SwimConfig, MemberlistLanDefaults) {
  const Parsed p = parse(json::object());
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const SwimConfig& c = p.config;
  EXPECT_EQ(c.probe_interval, Duration::ms(1000));
  EXPECT_EQ(c.probe_timeout, Duration::ms(500));
  EXPECT_EQ(c.indirect_checks, 3);
  EXPECT_TRUE(c.tcp_fallback);
  EXPECT_EQ(c.suspicion_mult, 4);
  EXPECT_EQ(c.suspicion_max_timeout_mult, 6);
  EXPECT_EQ(c.awareness_max_multiplier, 8);
  EXPECT_EQ(c.gossip_interval, Duration::ms(200));
  EXPECT_EQ(c.gossip_nodes, 3);
  EXPECT_EQ(c.gossip_to_the_dead, Duration::ms(30000));
  EXPECT_EQ(c.retransmit_mult, 4);
  EXPECT_EQ(c.push_pull_interval, Duration::ms(30000));
  EXPECT_EQ(c.udp_buffer_bytes, 1400);
  EXPECT_EQ(c.suspicion_confirmations, 2);  // memberlist: SuspicionMult - 2
  EXPECT_EQ(p.resolved["suspicion_confirmations"], 2);
  ASSERT_EQ(c.arms.size(), 1u);
  EXPECT_EQ(c.arms[0].name, "lifeguard");
  EXPECT_TRUE(c.arms[0].awareness && c.arms[0].dynamic_suspicion && c.arms[0].nack &&
              c.arms[0].buddy);
  EXPECT_EQ(p.resolved["probe_interval_ms"], 1000.0);
  EXPECT_EQ(p.resolved["arms"][0]["name"], "lifeguard");
}

TEST(SwimConfig, ArmsSwitchLifeguardAndEachPart) {
  const Parsed p = parse(json::parse(R"({"probe_interval_ms": 200, "arms": [
      {"name": "swim", "lifeguard": false},
      {"name": "lifeguard"},
      {"name": "no-awareness", "awareness": false},
      {"name": "only-nack", "lifeguard": false, "nack": true}]})"));
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const auto& a = p.config.arms;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_FALSE(a[0].awareness || a[0].dynamic_suspicion || a[0].nack || a[0].buddy);
  EXPECT_TRUE(a[1].awareness && a[1].dynamic_suspicion && a[1].nack && a[1].buddy);
  EXPECT_TRUE(!a[2].awareness && a[2].dynamic_suspicion && a[2].nack && a[2].buddy);
  EXPECT_TRUE(!a[3].awareness && !a[3].dynamic_suspicion && a[3].nack && !a[3].buddy);
  EXPECT_EQ(p.config.probe_interval, Duration::ms(200));
  EXPECT_EQ(p.config.arm_names(),
            (std::vector<std::string>{"swim", "lifeguard", "no-awareness", "only-nack"}));
}

// Lifeguard's K: memberlist's rule follows suspicion_mult unless set; the member count and
// dynamic_suspicion decide the k a suspicion actually uses (state.go suspectNode).
TEST(SwimConfig, SuspicionConfirmationsDefaultToMemberlistsRule) {
  EXPECT_EQ(parse(json::parse(R"({"suspicion_mult": 7})")).config.suspicion_confirmations, 5);
  EXPECT_EQ(parse(json::parse(R"({"suspicion_mult": 1})")).config.suspicion_confirmations, 0);
  const Parsed p = parse(json::parse(R"({"suspicion_mult": 3, "suspicion_confirmations": 5})"));
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  EXPECT_EQ(p.config.suspicion_confirmations, 5);
  EXPECT_EQ(p.config.suspicion_k(SwimArm{}, 8), 5);
  EXPECT_EQ(p.config.suspicion_k(SwimArm{}, 7), 5);  // 7 - 2 = 5 other members suffice
  EXPECT_EQ(p.config.suspicion_k(SwimArm{}, 6), 0);  // memberlist: n - 2 < k gives k = 0
  SwimArm off;
  off.dynamic_suspicion = false;
  EXPECT_EQ(p.config.suspicion_k(off, 100), 0);
  const Parsed bad = parse(json::parse(R"({"suspicion_confirmations": -1})"));
  EXPECT_NE(problems(bad).find("$.swim.suspicion_confirmations"), std::string::npos)
      << problems(bad);
}

// The memory bound (memory_bound.h): 10 kB + 4 B per look-ahead entry per member, and 4 B x n^2
// more once the horizon covers n/2 probe intervals (materialized probe orders), over 16 GB is
// refused with the estimate.
TEST(SwimConfig, ClustersOverTheMemoryBoundAreRefusedWithTheEstimate) {
  // 100 000 members for 60 s: look-ahead 92 + 1 265 entries (lookahead_hint), 1.54 GB.
  const Parsed ok = parse(json::object(), 100000, 60);
  EXPECT_TRUE(ok.diag.ok()) << problems(ok);
  EXPECT_NEAR(swim_state_bytes(1e5, 60, 92 + 1265), 1e5 * (10e3 + 4 * 1357), 1.0);
  // 100 000 members for 50 000 s: every member may wrap: 4 B x 10^10 + 0.5 GB + 1 GB
  // + 4 B x 2 x 16 384 x 10^5 (look-ahead at its cap) = 54.6 GB.
  const std::string s = problems(parse(json::object(), 100000, 50000));
  EXPECT_NE(s.find("$.swim: nodes.count 100000"), std::string::npos) << s;
  EXPECT_NE(s.find("about 54.6 GB"), std::string::npos) << s;
  EXPECT_NE(s.find("probe orders materialize"), std::string::npos) << s;
  EXPECT_NE(s.find("16.0 GB"), std::string::npos) << s;
  // 2 000 000 members for 60 s: 2e6 x (10 kB + 4 B x 1 357) = 30.9 GB, none materialized.
  const std::string big = problems(parse(json::object(), 2000000, 60));
  EXPECT_NE(big.find("about 30.9 GB"), std::string::npos) << big;
  EXPECT_EQ(big.find("materialize"), std::string::npos) << big;
}

TEST(SwimConfig, EveryProblemReportedWithItsPath) {
  const Parsed p = parse(json::parse(R"({"probe_interval_ms": 0, "suspicion_mult": 0,
      "gossip_nodes": -1, "bogus": 1, "arms": [{"name": "a"}, {"name": "a"}, {"lifeguard": 3}]})"));
  const std::string s = problems(p);
  EXPECT_NE(s.find("$.swim.probe_interval_ms"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.suspicion_mult"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.gossip_nodes"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.bogus"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.arms[1].name: duplicate"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.arms[2].name"), std::string::npos) << s;
  EXPECT_NE(s.find("$.swim.arms[2].lifeguard"), std::string::npos) << s;
}

}  // namespace
}  // namespace fdsim::swim
