// The event-rate budget through the real fdsim binary (issue 16: `arrival_rate_per_s: 1e300`
// and `heartbeat_period_ms: 1e-6` were accepted and the run exhausted memory). A shipped
// scenario of each model with one rate or period pushed past the budget (1e8 events per
// simulated second, sim/scenario/event_rate.h) must be bad input: exit 2, one line naming the
// file, the JSON path of the key and the estimate, and nothing written. The untouched scenario
// must still validate (so each refusal is caused by the one key changed).

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json shipped_scenario(const std::string& relative) {
  std::ifstream in(std::string(FDSIM_SOURCE_DIR) + "/scenarios/" + relative);
  return json::parse(in);
}

class EventRate : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const json& doc) const {
    std::ofstream(dir_ + "/" + name) << doc.dump(2);
  }
  // The scenario validates as shipped; with `edit` applied, `validate` and `run` refuse it
  // with exactly one line: "<file>: <path>: would schedule about <estimate> events per
  // simulated second (...)".
  void expect_refused(const json& base, const std::function<void(json&)>& edit,
                      const std::string& path, const std::string& estimate) {
    write("ok.json", base);
    const auto ok = fdsim("validate ok.json");
    ASSERT_EQ(ok.code, 0) << ok.err;
    json doc = base;
    edit(doc);
    write("fast.json", doc);
    for (const std::string cmd : {"validate fast.json", "run fast.json --out out"}) {
      const auto r = fdsim(cmd);
      EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err;
      ASSERT_EQ(r.err_lines().size(), 1u) << cmd << "\n" << r.err;
      const std::string line = r.err_lines()[0];  // err_lines() returns a fresh vector
      EXPECT_EQ(line.rfind("fast.json: " + path + ": would schedule about " + estimate +
                               " events per simulated second (",
                           0),
                0u)
          << line;
      EXPECT_NE(line.find("the limit is 1e+08"), std::string::npos) << line;
    }
    EXPECT_FALSE(fs::exists(dir_ + "/out"));
  }
};

TEST_F(EventRate, HeartbeatStudyPeriod) {
  // 8 senders x 2 monitors = 16 pairs, one heartbeat every 1e-6 ms (1 ns), 9 events each (send,
  // delivery, 7 arms' deadlines): 1.44e11 per second.
  expect_refused(
      shipped_scenario("examples/heartbeat-study.json"),
      [](json& d) {
        d["detectors"]["heartbeat_period_ms"] = 1e-6;
        d["detectors"]["send_jitter_ms"] = 0;  // must stay below half the period
      },
      "$.detectors.heartbeat_period_ms", "1.44e+11");
}

TEST_F(EventRate, HeartbeatStudyJustInsideTheBudgetIsAccepted) {
  // 16 pairs x 9 events every 0.002 ms = 7.2e7 per second: inside the budget (validate only).
  json d = shipped_scenario("examples/heartbeat-study.json");
  d["detectors"]["heartbeat_period_ms"] = 0.002;
  d["detectors"]["send_jitter_ms"] = 0;
  write("fast.json", d);
  // The total (7.2e7 x 600 s x 3 replications) is over the default 1e11: raised here, since
  // the test is about the per-source budget.
  const auto r = fdsim("validate fast.json --max-events 1e12");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(EventRate, WorkloadArrivalRate) {
  expect_refused(
      shipped_scenario("examples/load-sharing.json"),
      [](json& d) {
        // At the rate's own maximum (1e4 per node), 20 000 nodes: 2e8 per second.
        d["nodes"]["count"] = 20000;
        d["workload"]["arrival_rate_per_s"] = 1e4;
      },
      "$.workload.arrival_rate_per_s", "2e+08");
}

TEST_F(EventRate, WorkloadPhaseRate) {
  // The phase covers nodes 0..39999 of 40 000 at the rate's maximum: 4e4 x 1e4 = 4e8.
  expect_refused(
      shipped_scenario("examples/load-sharing.json"),
      [](json& d) {
        d["nodes"]["count"] = 40000;
        d["workload"]["load_phases"][0]["nodes"] = {{"from", 0}, {"to", 39999}};
        d["workload"]["load_phases"][0]["rate_per_s"] = 1e4;
      },
      "$.workload.load_phases[0].rate_per_s", "4e+08");
}

TEST_F(EventRate, FixedPeriodicPeriod) {
  // 1e6 nodes x buddy_size 10 / 1 ms = 1e10 per second.
  expect_refused(
      shipped_scenario("examples/load-sharing.json"),
      [](json& d) {
        d["nodes"]["count"] = 1000000;
        d["load_sharing"]["arms"] = json::array(
            {{{"name", "periodic"}, {"diagnosis", "fixed_periodic"}, {"timeout_ms", 5000},
              {"period_ms", 1}}});
        d.erase("membership");
      },
      "$.load_sharing.arms[0].period_ms", "1e+10");
}

TEST_F(EventRate, GeodeHeartbeatPeriod) {
  // 12 nodes x heartbeat_predecessors 2 / 1 ns = 2.4e10.
  expect_refused(
      shipped_scenario("examples/geode-ring.json"),
      [](json& d) { d["membership"]["heartbeat_period_ms"] = 1e-6; },
      "$.membership.heartbeat_period_ms", "2.4e+10");
}

TEST_F(EventRate, GeodeMemberTimeoutThatMakesTheDerivedPeriodsTooFast) {
  // member_timeout 2e-6 ms: heartbeat period 1 ns (derived), 12 x 2 / 1e-9 s = 2.4e10; the
  // problem names the key the file gives.
  expect_refused(
      shipped_scenario("examples/geode-ring.json"),
      [](json& d) { d["membership"]["member_timeout_ms"] = 2e-6; },
      "$.membership.member_timeout_ms", "2.4e+10");
}

TEST_F(EventRate, GeodeAppMessages) {
  expect_refused(
      shipped_scenario("examples/geode-ring.json"),
      [](json& d) {
        d["nodes"]["count"] = 20000;
        d["membership"]["app_messages_per_s"] = 1e4;
      },
      "$.membership.app_messages_per_s", "2e+08");
}

TEST_F(EventRate, SwimProbeInterval) {
  // nodes x (4 + 4 x indirect_checks + 3 for the TCP fallback) events per probe / 1 ns (an
  // upper bound of a probe's events, models/swim/config.cpp); the node count is the shipped one.
  const json base = shipped_scenario("examples/swim/crashed-member.json");
  const double n = base["nodes"]["count"].get<double>();
  const int64_t k = base["swim"].value("indirect_checks", int64_t{3});
  const bool tcp = base["swim"].value("tcp_fallback", true);
  char estimate[32];
  std::snprintf(estimate, sizeof estimate, "%.6g",
                n * double(4 + 4 * k + (tcp ? 3 : 0)) * 1e9);
  expect_refused(
      base, [](json& d) { d["swim"]["probe_interval_ms"] = 1e-6; }, "$.swim.probe_interval_ms",
      estimate);
}

TEST_F(EventRate, SwimGossipInterval) {
  const json base = shipped_scenario("examples/swim/crashed-member.json");
  const double n = base["nodes"]["count"].get<double>();
  const int64_t g = base["swim"].value("gossip_nodes", int64_t{3});
  char estimate[32];
  std::snprintf(estimate, sizeof estimate, "%.6g", n * double(1 + g) * 1e9);  // timer + sends
  expect_refused(
      base, [](json& d) { d["swim"]["gossip_interval_ms"] = 1e-6; }, "$.swim.gossip_interval_ms",
      estimate);
}

TEST_F(EventRate, CrashProcessRate) {
  // 8 nodes crash once every 1e-9 s on average: 8e9 per second.
  expect_refused(
      shipped_scenario("examples/heartbeat-study.json"),
      [](json& d) { d["faults"][0]["mean_up_s"] = 1e-9; }, "$.faults[0].mean_up_s", "8e+09");
}

TEST_F(EventRate, PauseProcessRate) {
  expect_refused(
      shipped_scenario("examples/heartbeat-study.json"),
      [](json& d) {
        d["faults"] = json::array({{{"kind", "pause_process"},
                                    {"nodes", "all"},
                                    {"mean_interval_s", 1e-9},
                                    {"duration_ms", 1}}});
      },
      "$.faults[0].mean_interval_s", "8e+09");
}

TEST_F(EventRate, NetworkRetransmitInterval) {
  // 12 nodes / 1e-6 ms = 1.2e10.
  expect_refused(
      shipped_scenario("examples/geode-ring.json"),
      [](json& d) { d["network"]["retransmit_ms"] = 1e-6; }, "$.network.retransmit_ms",
      "1.2e+10");
}

}  // namespace
