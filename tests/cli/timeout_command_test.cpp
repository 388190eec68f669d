// fdsim timeout (sim/cli/cmd_timeout.cpp): the Hou-Shin E[W], S(t) and T_out of docs/models/hou-shin-timeout.md
// through the model's code, as a table and as JSON; bad input; and a load-sharing run with
// --trace whose broadcast and suspicion records carry the state, estimates, T_out and limit.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace timeout_command_test {

namespace fs = std::filesystem;
using fdsim::test::Result;
using nlohmann::json;

class TimeoutCommand : public fdsim::test::TempDirTest {
 protected:
};

// The oracle rows of docs/models/hou-shin-timeout.md: lambda = 0.8, mu = 1, U = {0,1}, M = {2,3,4}.
TEST_F(TimeoutCommand, Json_MatchesTheSpecOracleTable) {
  struct Row {
    const char* args;
    double mean, s5, s10, q05, q01;
  };
  for (const Row& r : {Row{"--region U --state 1", 2.81250, 0.187822, 0.047416, 9.8073, 15.6533},
                       Row{"--region M --state 2", 1.53117, 0.052787, 0.003635, 5.1013, 8.1087}}) {
    const Result res = fdsim(std::string("timeout --lambda 0.8 --mu 1 ") + r.args +
                             " --t 5 --t 10 --alpha 0.05 --alpha 0.01 --json");
    ASSERT_EQ(res.code, 0) << res.err;
    const json j = json::parse(res.out);
    EXPECT_NEAR(j["mean_exit_time_s"].get<double>(), r.mean, 1e-4 * r.mean) << r.args;
    EXPECT_NEAR(j["survival"][0]["survival"].get<double>(), r.s5, 1e-4 * r.s5) << r.args;
    EXPECT_NEAR(j["survival"][1]["survival"].get<double>(), r.s10, 1e-4 * r.s10) << r.args;
    EXPECT_NEAR(j["t_out"][0]["t_out_s"].get<double>(), r.q05, 1e-4 * r.q05) << r.args;
    EXPECT_NEAR(j["t_out"][1]["t_out_s"].get<double>(), r.q01, 1e-4 * r.q01) << r.args;
  }
}

TEST_F(TimeoutCommand, Table_AllowanceAndLossRaiseTout) {
  const Result plain = fdsim("timeout --region U --state 1 --alpha 0.01");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("E[W]"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("T_out(0.01"), std::string::npos) << plain.out;
  auto t_out = [&](const std::string& extra) {
    const Result r = fdsim("timeout --region U --state 1 --alpha 0.01 --json " + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out)["t_out"][0]["t_out_s"].get<double>();
  };
  const double base = t_out("");
  EXPECT_NEAR(t_out("--allowance-ms 20"), base + 0.020, 1e-9);
  EXPECT_GT(t_out("--loss 0.02"), base);
}

TEST_F(TimeoutCommand, BadInput_ExitTwoOneLinePerProblem) {
  const Result r = fdsim("timeout --region X --alpha 2 --mu 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines().size(), 3u) << r.err;
  const Result outside = fdsim("timeout --region U --state 3");
  EXPECT_EQ(outside.code, 2);
  EXPECT_EQ(outside.err_lines().size(), 1u) << outside.err;
}

// A load-sharing scenario traced end to end (this used to abort: the broadcast record had a
// field named "kind", which the trace format reserves).
TEST_F(TimeoutCommand, LoadSharingRunWithTrace_BroadcastAndSuspectRecordsCarryTheirFields) {
  const json s = json::parse(R"({
    "name": "ls-trace", "seed": 5, "horizon_s": 120, "warmup_s": 10,
    "nodes": {"count": 6},
    "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 4}, "loss": 0.02},
    "faults": [{"kind": "crash", "at_s": 40, "nodes": [2]}],
    "workload": {"arrival_rate_per_s": 0.8},
    "load_sharing": {"buddy_size": 4, "arms": [
      {"name": "hx", "diagnosis": "hou_shin_extra", "alpha": 0.05},
      {"name": "fp", "diagnosis": "fixed_periodic", "period_ms": 1000, "timeout_ms": 3000}]}
  })");
  std::ofstream(dir_ + "/s.json") << s.dump(2);
  const Result r = fdsim("run s.json --trace --quiet --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir_ + "/o/ls-trace-seed5-rep0.trace.jsonl");
  size_t broadcasts = 0, with_t_out = 0, suspects = 0;
  for (std::string line; std::getline(in, line);) {
    const json rec = json::parse(line);
    if (rec["kind"] == "broadcast") {
      ++broadcasts;
      EXPECT_TRUE(rec.contains("broadcast_kind")) << line;
      EXPECT_TRUE(rec.contains("region")) << line;
      EXPECT_TRUE(rec.contains("queue_length")) << line;
      EXPECT_TRUE(rec.contains("mu_per_s")) << line;
      EXPECT_TRUE(rec.contains("region_input_per_s")) << line;
      if (rec["arm"] == "hx" && rec["t_out_s"].is_number()) ++with_t_out;
    }
    if (rec["kind"] == "suspect") {
      ++suspects;
      EXPECT_TRUE(rec["limit_s"].is_number()) << line;
      EXPECT_GE(rec["silence_s"].get<double>(), rec["limit_s"].get<double>()) << line;
    }
  }
  EXPECT_GT(broadcasts, 50u);
  EXPECT_GT(with_t_out, 10u);
  EXPECT_GT(suspects, 0u);
}

// fdsim timeout --model swim against memberlist's formulas computed by hand:
// suspicionTimeout = SuspicionMult x int(max(1, log10 n) x 1000) x ProbeInterval / 1000,
// max = SuspicionMaxTimeoutMult x min, and for c of k confirmations
// floor-ms(max - ln(c + 1) / ln(k + 1) x (max - min)) (suspicion.go remainingSuspicionTime).
// n = 100: min = 4 x 2000 x 1 s / 1000 = 8 s, max = 48 s, k = 2: 48 s, 22.762 s, 8 s.
// n = 1000, K = 4: min 12 s, max 72 s: 72, 46.159, 31.043, 20.318, 12 s.
// n = 16: int(1.20412 x 1000) = 1204, min = 4.816 s. n = 3: n - 2 < k, so k = 0 and min.
TEST_F(TimeoutCommand, Swim_SuspicionTimeoutsMatchMemberlistsFormulas) {
  struct Row {
    const char* args;
    int64_t k;
    std::vector<int64_t> ms;
  };
  for (const Row& r : {Row{"--members 100", 2, {48000, 22762, 8000}},
                       Row{"--members 1000 --confirmations 4", 4,
                           {72000, 46159, 31043, 20318, 12000}},
                       Row{"--members 16", 2, {28896, 13703, 4816}},
                       Row{"--members 3", 0, {4000}},
                       Row{"--members 100 --no-lifeguard", 0, {8000}}}) {
    const Result res = fdsim(std::string("timeout --model swim --json ") + r.args);
    ASSERT_EQ(res.code, 0) << res.err;
    const json j = json::parse(res.out);
    EXPECT_EQ(j["k"].get<int64_t>(), r.k) << r.args;
    ASSERT_EQ(j["suspicion"].size(), r.ms.size()) << r.args;
    for (size_t c = 0; c < r.ms.size(); ++c)
      EXPECT_EQ(j["suspicion"][c]["timeout_ns"].get<int64_t>(), r.ms[c] * 1000000) << r.args
                                                                                    << " c " << c;
  }
  // Awareness: the probe deadline is ProbeInterval x (score + 1) for scores 0 .. 7, the direct
  // wait min(ProbeTimeout, deadline); without awareness only score 0.
  const Result res = fdsim("timeout --model swim --members 10 --probe-interval-ms 200 "
                           "--probe-timeout-ms 300 --json");
  ASSERT_EQ(res.code, 0) << res.err;
  const json j = json::parse(res.out);
  ASSERT_EQ(j["probe"].size(), 8u);
  for (int64_t s = 0; s < 8; ++s) {
    EXPECT_EQ(j["probe"][s]["deadline_ns"].get<int64_t>(), 200000000 * (s + 1));
    EXPECT_EQ(j["probe"][s]["direct_wait_ns"].get<int64_t>(), s == 0 ? 200000000 : 300000000);
  }
  EXPECT_EQ(json::parse(fdsim("timeout --model swim --members 10 --no-lifeguard --json").out)
                ["probe"].size(), 1u);
  const Result table = fdsim("timeout --model swim --members 100");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("22.762000000 s"), std::string::npos) << table.out;
  const Result bad = fdsim("timeout --model swim --suspicion-mult 0");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--members"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--suspicion-mult"), std::string::npos) << bad.err;
}

}  // namespace timeout_command_test
