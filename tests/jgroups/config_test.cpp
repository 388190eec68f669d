// The jgroups section: JGroups 2.12.2 defaults, overrides, arms and errors.
#include <gtest/gtest.h>

#include "models/jgroups/config.h"

namespace fdsim::jgroups {
namespace {

using nlohmann::json;

struct Parsed {
  JGroupsConfig config;
  scenario::Diagnostics diag;
  json resolved;
};

Parsed parse(const json& section, size_t nodes = 8) {
  Parsed p;
  scenario::NodesConfig n;
  n.count = nodes;
  scenario::ObjectReader r(&section, "$.jgroups", p.diag, p.resolved);
  p.config = parse_jgroups_config(r, n);
  r.finish();
  return p;
}

std::string problems(const Parsed& p) {
  std::string s;
  for (const auto& x : p.diag.problems) s += x.str() + "\n";
  return s;
}

TEST(JGroupsConfig, JGroupsDefaults) {
  const Parsed p = parse(json::object());
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const JGroupsConfig& c = p.config;
  EXPECT_EQ(c.fd_timeout, Duration::ms(3000));
  EXPECT_EQ(c.fd_max_tries, 2);
  EXPECT_EQ(c.fd_all_interval, Duration::ms(3000));
  EXPECT_EQ(c.fd_all_timeout, Duration::ms(10000));
  EXPECT_EQ(c.fd_sock_suspect_msg_interval, Duration::ms(5000));
  EXPECT_EQ(c.verify_timeout, Duration::ms(2000));
  EXPECT_EQ(c.verify_num_msgs, 1);
  EXPECT_TRUE(c.view_bundling);
  EXPECT_EQ(c.max_bundling_time, Duration::ms(50));
  EXPECT_EQ(c.view_ack_collection_timeout, Duration::ms(2000));
  ASSERT_EQ(c.arms.size(), 1u);
  EXPECT_EQ(c.arms[0].name, "fd");
  EXPECT_EQ(c.arms[0].detector, Detector::fd);
  EXPECT_EQ(p.resolved["FD"]["timeout_ms"], 3000.0);
  EXPECT_EQ(p.resolved["GMS"]["max_bundling_time_ms"], 50.0);
  EXPECT_EQ(p.resolved["arms"][0]["detector"], "FD");
}

TEST(JGroupsConfig, OverridesAndArms) {
  const Parsed p = parse(json::parse(R"({
    "FD": {"timeout_ms": 1000, "max_tries": 3},
    "FD_ALL": {"interval_ms": 500, "timeout_ms": 2000},
    "VERIFY_SUSPECT": {"timeout_ms": 500, "num_msgs": 2},
    "GMS": {"view_bundling": false},
    "arms": [{"name": "ring", "detector": "FD"}, {"name": "all", "detector": "FD_ALL"},
             {"name": "sock", "detector": "FD_SOCK"}]})"));
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  EXPECT_EQ(p.config.fd_timeout, Duration::ms(1000));
  EXPECT_EQ(p.config.fd_max_tries, 3);
  EXPECT_EQ(p.config.fd_all_interval, Duration::ms(500));
  EXPECT_EQ(p.config.verify_num_msgs, 2);
  EXPECT_FALSE(p.config.view_bundling);
  ASSERT_EQ(p.config.arms.size(), 3u);
  EXPECT_EQ(p.config.arms[1].detector, Detector::fd_all);
  EXPECT_EQ(p.config.arms[2].detector, Detector::fd_sock);
}

TEST(JGroupsConfig, ErrorsNameTheJsonPath) {
  const Parsed p = parse(json::parse(R"({
    "FD": {"timeout_ms": 0, "max_tries": -1},
    "VERIFY_SUSPECT": {"num_msgs": 0},
    "FD_ALL": {"timout_ms": 5},
    "arms": [{"name": "a", "detector": "FD_PING"}, {"name": "a"}]})"));
  const std::string s = problems(p);
  EXPECT_NE(s.find("$.jgroups.FD.timeout_ms"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.FD.max_tries"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.VERIFY_SUSPECT.num_msgs"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.FD_ALL.timout_ms"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.arms[0].detector"), std::string::npos) << s;
  EXPECT_NE(s.find("duplicate arm name"), std::string::npos) << s;
}

TEST(JGroupsConfig, OneNodeIsRefused) {
  const Parsed p = parse(json::object(), 1);
  EXPECT_FALSE(p.diag.ok());
}

TEST(JGroupsConfig, EventRateBudget) {
  const Parsed p = parse(json::parse(R"({"FD": {"timeout_ms": 1e-6}})"), 1000);
  const std::string s = problems(p);
  EXPECT_NE(s.find("$.jgroups.FD.timeout_ms: would schedule"), std::string::npos) << s;
}

}  // namespace
}  // namespace fdsim::jgroups
