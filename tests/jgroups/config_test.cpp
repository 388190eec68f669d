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
  EXPECT_EQ(c.arms[0].detectors, std::vector<Detector>{Detector::fd});
  EXPECT_FALSE(c.arms[0].merge2);
  EXPECT_EQ(c.fd_sock_conn_timeout, Duration::ms(1000));
  EXPECT_FALSE(c.crash_is_host);
  EXPECT_EQ(c.merge_min_interval, Duration::ms(5000));
  EXPECT_EQ(c.merge_max_interval, Duration::ms(20000));
  EXPECT_EQ(c.merge_timeout, Duration::ms(5000));
  EXPECT_EQ(c.discovery_timeout, Duration::ms(3000));
  EXPECT_EQ(c.discovery_num_initial_members, 2);
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
  EXPECT_EQ(p.config.arms[1].detectors, std::vector<Detector>{Detector::fd_all});
  EXPECT_EQ(p.config.arms[2].detectors, std::vector<Detector>{Detector::fd_sock});
}

// The shipped stacks: several detectors, bottom to top; MERGE2; FD_SOCK's connect timeout.
TEST(JGroupsConfig, ShippedStacks) {
  const Parsed p = parse(json::parse(R"({
    "FD_SOCK": {"sock_conn_timeout_ms": 2500},
    "MERGE2": {"min_interval_ms": 10000, "max_interval_ms": 30000},
    "TCPPING": {"timeout_ms": 2000, "num_initial_members": 3},
    "GMS": {"merge_timeout_ms": 4000},
    "crash_kind": "host",
    "arms": [{"name": "tcp", "detectors": ["FD_SOCK", "FD"], "merge2": true},
             {"name": "udp", "detectors": ["FD_SOCK", "FD_ALL"]}]})"));
  ASSERT_TRUE(p.diag.ok()) << problems(p);
  const JGroupsConfig& c = p.config;
  EXPECT_EQ(c.arms[0].detectors, (std::vector<Detector>{Detector::fd_sock, Detector::fd}));
  EXPECT_TRUE(c.arms[0].merge2);
  EXPECT_FALSE(c.arms[1].merge2);
  EXPECT_TRUE(c.arms[0].below(Detector::fd_sock, Detector::fd));
  EXPECT_FALSE(c.arms[0].below(Detector::fd, Detector::fd_sock));
  EXPECT_FALSE(c.arms[1].below(Detector::fd, Detector::fd_all));
  EXPECT_EQ(c.arms[1].stack_name(), "FD_SOCK+FD_ALL");
  EXPECT_EQ(c.fd_sock_conn_timeout, Duration::ms(2500));
  EXPECT_TRUE(c.crash_is_host);
  EXPECT_EQ(c.merge_min_interval, Duration::ms(10000));
  EXPECT_EQ(c.merge_max_interval, Duration::ms(30000));
  EXPECT_EQ(c.discovery_timeout, Duration::ms(2000));
  EXPECT_EQ(c.discovery_num_initial_members, 3);
  EXPECT_EQ(c.merge_timeout, Duration::ms(4000));
}

TEST(JGroupsConfig, StackErrorsNameTheJsonPath) {
  const Parsed p = parse(json::parse(R"({
    "MERGE2": {"min_interval_ms": 5000, "max_interval_ms": 5000},
    "crash_kind": "machine",
    "arms": [{"name": "a", "detectors": ["FD_SOCK", "FD_SOCK"]},
             {"name": "b", "detectors": ["FD", "PING"]},
             {"name": "c", "detector": "FD", "detectors": ["FD"]},
             {"name": "d", "detectors": []}]})"));
  const std::string s = problems(p);
  EXPECT_NE(s.find("$.jgroups.MERGE2.max_interval_ms"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.crash_kind"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.arms[0].detectors[1]"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.arms[1].detectors[1]"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.arms[2].detectors: give either"), std::string::npos) << s;
  EXPECT_NE(s.find("$.jgroups.arms[3].detectors: expected at least one"), std::string::npos) << s;
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

// are_you_dead_send_time: absent leaves none and writes nothing to the resolved config (the
// run identity of older scenarios is unchanged); a latency-model object is read as the network's
// (sim/net/config.h), errors named by their JSON path.
TEST(JGroupsConfig, AreYouDeadSendTime) {
  const Parsed none = parse(json::object());
  ASSERT_TRUE(none.diag.ok()) << problems(none);
  EXPECT_EQ(none.config.are_you_dead_send_time, nullptr);
  EXPECT_FALSE(none.resolved.contains("are_you_dead_send_time"));
  const Parsed set = parse({{"are_you_dead_send_time", {{"model", "uniform"}, {"min_ms", 1}, {"max_ms", 9}}}});
  ASSERT_TRUE(set.diag.ok()) << problems(set);
  ASSERT_NE(set.config.are_you_dead_send_time, nullptr);
  EXPECT_DOUBLE_EQ(set.config.are_you_dead_send_time->mean_ms(), 5.0);
  EXPECT_EQ(set.resolved["are_you_dead_send_time"]["model"], "uniform");
  const Parsed bad = parse({{"are_you_dead_send_time", {{"model", "uniform"}, {"min_ms", 9}, {"max_ms", 1}}}});
  EXPECT_FALSE(bad.diag.ok());
  EXPECT_NE(problems(bad).find("$.jgroups.are_you_dead_send_time.max_ms"), std::string::npos)
      << problems(bad);
}

}  // namespace
}  // namespace fdsim::jgroups
