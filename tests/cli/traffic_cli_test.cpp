// The `traffic` metrics (issue 25 item 6) through `fdsim run`: hand-counted messages of a small
// Geode ring and a small load-sharing run, and agreement with each model's own counters where
// both count the same packets (SWIM, the heartbeat study, a Geode ring inside load sharing).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace fdsim::test {
namespace {

using nlohmann::json;

class CliTraffic : public TempDirTest {
 protected:
  // Runs `scenario` (one replication) and returns metrics.<arm>.
  json run_arm(const std::string& scenario, const std::string& arm) const {
    std::ofstream(dir_ + "/t.json") << scenario;
    const Result r = fdsim("run t.json --stdout --quiet");
    EXPECT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("metrics") || !j["metrics"].contains(arm)) {
      ADD_FAILURE() << "no metrics for arm " << arm << " in: " << r.out.substr(0, 400);
      return json::object();
    }
    return j["metrics"][arm];
  }
};

// Four members, constant latency, no jitter, no start offset: every member's heartbeat loop
// ticks at the whole seconds (T = M/2 = 1 s). Per tick the coordinator (node 0) sends to its
// two ring predecessors and every other member to the coordinator and its two predecessors
// other than the coordinator: 2 + 3 x 3 = 11 heartbeats. The window [20 s, 30 s] holds the
// ticks 20, 21, ..., 30 (the engine runs the events at the horizon instant): 11 ticks.
TEST_F(CliTraffic, GeodeRingHandCounted) {
  const json m = run_arm(R"({"name": "g", "seed": 1, "horizon_s": 30, "warmup_s": 20,
    "nodes": {"count": 4, "locators": [0]},
    "network": {"latency": {"model": "constant", "ms": 1}},
    "membership": {"profile": "wiki", "member_timeout_ms": 2000, "members": "all",
                   "send_jitter_ms": 0, "start_offset_max_ms": 0}})",
                         "fixed");
  ASSERT_TRUE(m.contains("traffic"));
  const json& t = m["traffic"];
  EXPECT_DOUBLE_EQ(t["window_s"].get<double>(), 10.0);
  EXPECT_EQ(t["by_type"]["messages_count"]["geode.heartbeat"], 11 * 11);
  EXPECT_EQ(t["messages_count"], 11 * 11);  // a stable view: nothing else
  // Heartbeat size: 24-byte header + request id and sequence (models/geode/messages.cpp).
  EXPECT_EQ(t["bytes_count"], 11 * 11 * 40);
  EXPECT_DOUBLE_EQ(t["messages_per_node_s"].get<double>(), 121.0 / (4 * 10.0));
  // Non-coordinators send 3 per tick: 33 in the window.
  EXPECT_DOUBLE_EQ(t["max_node_messages_per_s"].get<double>(), 33.0 / 10.0);
  EXPECT_EQ(t["dropped_count"], 0);
}

// Four nodes, periodic broadcasts every 1000 ms from t = 0, FCFS, no faults: the window
// [10 s, 40 s] holds 31 ticks per node, each a datagram to the 3 other nodes; every other
// broadcast (region changes) also goes to 3 nodes; broadcasts are 64 bytes and a transfer is
// one datagram of task_bytes (256).
TEST_F(CliTraffic, LoadSharingHandCounted) {
  const json m = run_arm(R"({"name": "l", "seed": 4, "horizon_s": 40, "warmup_s": 10,
    "nodes": {"count": 4}, "network": {"latency": {"model": "constant", "ms": 1}},
    "workload": {"arrival_rate_per_s": 0.6,
                 "execution": {"distribution": "deterministic", "value_s": 1},
                 "deadline": {"kind": "fixed", "relative_s": 6}},
    "load_sharing": {"scheduling": "fcfs",
      "arms": [{"name": "p", "diagnosis": "periodic_no_diagnosis", "period_ms": 1000}]}})",
                         "p");
  ASSERT_TRUE(m.contains("traffic"));
  const json& t = m["traffic"];
  const json& by = t["by_type"]["messages_count"];
  EXPECT_EQ(m["broadcasts_periodic_count"], 4 * 31);
  EXPECT_EQ(by["ls.broadcast.periodic"], 4 * 31 * 3);
  EXPECT_EQ(by["ls.broadcast.region_change"], 3 * m["broadcasts_region_change_count"].get<int>());
  EXPECT_EQ(by["ls.transfer"], m["transfers_attempted_count"]);
  EXPECT_EQ(t["bytes_count"].get<uint64_t>(),
            m["broadcast_bytes"].get<uint64_t>() + m["transfer_bytes"].get<uint64_t>());
  EXPECT_EQ(t["messages_count"].get<uint64_t>(),
            m["broadcast_messages_count"].get<uint64_t>() + by["ls.transfer"].get<uint64_t>());
}

// The Geode ring of a geode_ring arm runs on the same network: its heartbeats are in the arm's
// traffic, as many as the membership's own counter.
TEST_F(CliTraffic, GeodeRingInsideLoadSharing) {
  const json m = run_arm(R"({"name": "lg", "seed": 2, "horizon_s": 30, "warmup_s": 10,
    "nodes": {"count": 6}, "network": {"latency": {"model": "constant", "ms": 1}},
    "workload": {"arrival_rate_per_s": 0.5,
                 "execution": {"distribution": "exponential", "rate_per_s": 1},
                 "deadline": {"kind": "fixed", "relative_s": 6}},
    "load_sharing": {"arms": [{"name": "g", "diagnosis": "geode_ring"}]},
    "membership": {"profile": "wiki", "member_timeout_ms": 2000}})",
                         "g");
  ASSERT_TRUE(m.contains("traffic") && m.contains("membership"));
  const json& by = m["traffic"]["by_type"]["messages_count"];
  const double hb = m["membership"]["messages_per_member_per_s"]["heartbeat"].get<double>() *
                    m["membership"]["members_initial_count"].get<double>() *
                    m["traffic"]["window_s"].get<double>();
  EXPECT_GT(by["geode.heartbeat"].get<double>(), 0);
  EXPECT_NEAR(by["geode.heartbeat"].get<double>(), hb, 1e-6 * hb);
  EXPECT_GT(by["ls.broadcast.region_change"].get<double>(), 0);
}

// A geode_ring arm's own member_timeout_ms (issue 29: a frontier for the ring): the arm runs the
// membership section with that M and every default derived from it. An arm giving the section's
// own M is identical to one giving none; M = 4000 ms heartbeats half as often (T = M/2).
TEST_F(CliTraffic, GeodeRingArmsWithTheirOwnMemberTimeout) {
  const std::string head = R"({"name": "lg", "seed": 2, "horizon_s": 30, "warmup_s": 10,
    "nodes": {"count": 6}, "network": {"latency": {"model": "constant", "ms": 1}},
    "workload": {"arrival_rate_per_s": 0.5,
                 "execution": {"distribution": "exponential", "rate_per_s": 1},
                 "deadline": {"kind": "fixed", "relative_s": 6}},
    "membership": {"profile": "wiki", "member_timeout_ms": 2000},
    "load_sharing": {"arms": [)";
  const json plain = run_arm(head + R"({"name": "g", "diagnosis": "geode_ring"}]}})", "g");
  const json same = run_arm(
      head + R"({"name": "g", "diagnosis": "geode_ring", "member_timeout_ms": 2000}]}})", "g");
  const json slow = run_arm(
      head + R"({"name": "g", "diagnosis": "geode_ring", "member_timeout_ms": 4000}]}})", "g");
  ASSERT_TRUE(plain.contains("traffic") && slow.contains("traffic"));
  EXPECT_EQ(plain, same);
  const double hb2 = plain["traffic"]["by_type"]["messages_count"]["geode.heartbeat"].get<double>();
  const double hb4 = slow["traffic"]["by_type"]["messages_count"]["geode.heartbeat"].get<double>();
  EXPECT_GT(hb4, 0);
  EXPECT_NEAR(hb4 / hb2, 0.5, 0.06);
}

// SWIM's own per-kind counters count the same UDP packets.
TEST_F(CliTraffic, SwimPacketsMatchTheModelsCounters) {
  const json m = run_arm(R"({"name": "s", "seed": 1, "horizon_s": 40, "warmup_s": 10,
    "nodes": {"count": 8}, "network": {"latency": {"model": "constant", "ms": 0.2},
    "loss": 0.05}, "swim": {"arms": [{"name": "lg"}]}})",
                         "lg");
  ASSERT_TRUE(m.contains("traffic"));
  const json& by = m["traffic"]["by_type"]["messages_count"];
  const double per = 8 * m["traffic"]["window_s"].get<double>();
  for (const char* k : {"ping", "ack", "indirect_ping", "gossip"}) {
    const double own = m["messages_per_member_per_s"][k].get<double>() * per;
    EXPECT_NEAR(by[std::string("swim.") + k].get<double>(), own, 1e-6 * (own + 1)) << k;
  }
  EXPECT_GT(m["traffic"]["dropped_by_reason_count"]["lost"].get<int>(), 0);
}

// The heartbeat study's own heartbeat count is the traffic of its one message type.
TEST_F(CliTraffic, HeartbeatStudyMatchesItsCount) {
  const json m = run_arm(R"({"name": "h", "seed": 3, "horizon_s": 20, "warmup_s": 5,
    "nodes": {"count": 3}, "network": {"latency": {"model": "constant", "ms": 1}},
    "detectors": {"senders": [0, 1], "monitors_per_sender": 2, "heartbeat_period_ms": 100,
      "arms": [{"name": "f", "detector": {"kind": "fixed", "timeout_ms": 500}}]}})",
                         "f");
  ASSERT_TRUE(m.contains("traffic"));
  EXPECT_EQ(m["traffic"]["by_type"]["messages_count"]["heartbeat"], m["heartbeat_messages_count"]);
  EXPECT_EQ(m["traffic"]["messages_count"], m["heartbeat_messages_count"]);
}

}  // namespace
}  // namespace fdsim::test
