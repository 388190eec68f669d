// Issue 25 items 1, 2 and 4 through the CLI: Gilbert–Elliott statistics and trace replay read
// back from a traced `fdsim run`, the starved-host example running, and `fdsim validate`
// refusing out-of-range values with exit 2 and the JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/net/bursty_loss.h"
#include "tests/cli/fdsim_process.h"

namespace fdsim::test {
namespace {

using nlohmann::json;

class CliStressors : public TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name) << text;
  }
  // Heartbeats 0 -> 1 of a traced run, in send order: (send ns, recv ns or -1 if lost).
  std::vector<std::pair<int64_t, int64_t>> heartbeats(const std::string& trace) const {
    std::ifstream in(dir_ + "/" + trace);
    std::map<uint64_t, std::pair<int64_t, int64_t>> by_id;
    for (std::string line; std::getline(in, line);) {
      const json r = json::parse(line);
      if (!r.contains("msg") || r["msg"] != "heartbeat" || r["from"] != 0 || r["to"] != 1) continue;
      const uint64_t id = r["msg_id"];
      if (r["kind"] == "send") by_id[id] = {r["t_ns"].get<int64_t>(), -1};
      if (r["kind"] == "recv") by_id[id].second = r["t_ns"].get<int64_t>();
    }
    std::vector<std::pair<int64_t, int64_t>> v;
    for (const auto& [id, p] : by_id) v.push_back(p);
    return v;
  }
};

std::string study(const std::string& network, double period_ms, double horizon_s) {
  return R"({"name": "s", "seed": 3, "horizon_s": )" + std::to_string(horizon_s) +
         R"(, "nodes": {"count": 2}, "network": )" + network +
         R"(, "detectors": {"senders": [0], "monitors_per_sender": 1, "heartbeat_period_ms": )" +
         std::to_string(period_ms) +
         R"(, "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 100000}}]}})";
}

TEST_F(CliStressors, GilbertElliottFromATracedRun) {
  write("s.json", study(R"({"latency": {"model": "constant", "ms": 1},
      "loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.05, "p_bad_to_good": 0.3,
                     "loss_good": 0.02, "loss_bad": 0.9}})",
                        5, 300));
  const Result r = fdsim("run s.json --trace --quiet --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto hb = heartbeats("o/s-seed3-rep0.trace.jsonl");
  ASSERT_GT(hb.size(), 50000u);
  size_t losses = 0, runs = 0, pairs = 0;
  for (size_t i = 0; i < hb.size(); ++i) {
    const bool lost = hb[i].second < 0;
    if (!lost) continue;
    ++losses;
    if (i == 0 || hb[i - 1].second >= 0) ++runs;
    if (i + 1 < hb.size() && hb[i + 1].second < 0) ++pairs;
  }
  net::GilbertElliott g;
  g.p_good_to_bad = 0.05;
  g.p_bad_to_good = 0.3;
  g.loss_good = 0.02;
  g.loss_bad = 0.9;
  const double n = double(hb.size()), p = g.stationary_loss();
  const double lambda = 1 - g.p_good_to_bad - g.p_bad_to_good;
  const double rate = double(losses) / n;
  EXPECT_NEAR(rate, p, 4 * std::sqrt(p * (1 - p) / n * (1 + lambda) / (1 - lambda)));
  const double L = g.mean_loss_run_packets();
  EXPECT_NEAR(double(losses) / double(runs), L, 4 * L / std::sqrt(n * p / L));
  const double p11 = double(pairs) / (n - 1);
  EXPECT_NEAR((p11 - rate * rate) / (rate * (1 - rate)), g.lag1_correlation(), 0.04);
  std::printf("GE traced run: %zu heartbeats, loss %.5f (formula %.5f), mean run %.4f (%.4f), "
              "lag-1 %.4f (%.4f)\n",
              hb.size(), rate, p, double(losses) / double(runs), L,
              (p11 - rate * rate) / (rate * (1 - rate)), g.lag1_correlation());
}

TEST_F(CliStressors, TraceReplayDeliversTheRowsInOrderAndLoops) {
  // Rows every second; heartbeats every second: consecutive heartbeats read consecutive rows.
  const std::vector<double> rows = {3, 12.5, -1, 7, 40, 5};
  std::string text = "# test trace\n";
  for (size_t i = 0; i < rows.size(); ++i)
    text += std::to_string(i * 1000) + (rows[i] < 0 ? " lost\n" : " " + std::to_string(rows[i]) + "\n");
  write("t.txt", text);
  write("s.json", study(R"({"latency": {"model": "trace", "file": "t.txt", "links": "shared"}})",
                        1000, 30));
  const Result r = fdsim("run s.json --trace --quiet --out o");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto hb = heartbeats("o/s-seed3-rep0.trace.jsonl");
  ASSERT_GE(hb.size(), 25u);
  const int64_t loop_ns = 6'000'000'000;
  size_t prev_row = 0;
  for (size_t i = 0; i < hb.size(); ++i) {
    const size_t row = size_t((hb[i].first % loop_ns) / 1'000'000'000);
    if (i > 0) {
      EXPECT_EQ(row, (prev_row + 1) % rows.size()) << "heartbeat " << i;
    }
    prev_row = row;
    if (rows[row] < 0) {
      EXPECT_EQ(hb[i].second, -1) << "heartbeat " << i << " should be lost";
    } else {
      EXPECT_EQ(hb[i].second - hb[i].first, int64_t(std::llround(rows[row] * 1e6)))
          << "heartbeat " << i;
    }
  }
}

TEST_F(CliStressors, ShippedStressorExamplesValidate) {
  for (const char* f : {"bursty-loss.json", "delay-trace.json", "starved-member.json"}) {
    // Appended, not chained: GCC 12's -Warray-bounds misfires on `std::string(x) + "..."`.
    std::string args = "validate ";
    args += f;
    std::string where = FDSIM_SOURCE_DIR;
    where += "/scenarios/examples/stressors";
    const Result r = run_fdsim(where, args, dir_);
    EXPECT_EQ(r.code, 0) << f << ": " << r.err;
  }
}

TEST_F(CliStressors, OutOfRangeValuesExitTwoWithTheJsonPath) {
  struct Case {
    const char* network;
    const char* want;
  } cases[] = {
      {R"({"loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0, "p_bad_to_good": 0.5}})",
       "$.network.loss_model.p_good_to_bad: "},
      {R"({"loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 1.5}})",
       "$.network.loss_model.p_bad_to_good: "},
      {R"({"loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5, "loss_bad": 0}})",
       "$.network.loss_model.loss_bad: loss_good and loss_bad are both 0"},
      {R"({"loss": 0.1, "loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5}})",
       "$.network: only one of 'loss', 'loss_model' may be given"},
      {R"({"links": [{"from": [0], "loss_model": {"model": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5, "scope": "rack"}}]})",
       "$.network.links[0].loss_model.scope: "},
      {R"({"latency": {"model": "trace", "file": "t.txt", "loop_ms": 500}})",
       "$.network.latency.loop_ms: expected a loop longer than the trace's last offset (1000 ms), got 500"},
      {R"({"latency": {"model": "trace", "file": "missing.txt"}})", "$.network.latency.file: "},
      {R"({"latency": {"model": "trace", "file": "t.txt", "links": "each"}})",
       "$.network.latency.links: "},
      {R"({"starved": [{"nodes": [0], "service": {"model": "constant", "ms": 1}, "queue_limit": -1}]})",
       "$.network.starved[0].queue_limit: "},
      {R"({"starved": [{"nodes": [0]}]})", "$.network.starved[0].service: required field is missing"},
      {R"({"starved": [{"service": {"model": "constant", "ms": 1}}]})", "$.network.starved[0].nodes: "},
      {R"({"starved": [{"nodes": [0], "service": {"model": "constant", "ms": 1}, "mean_normal_s": 1, "mean_starved_s": 1, "at_s": 3}]})",
       "$.network.starved[0].at_s: a process entry"},
      {R"({"starved": [{"nodes": [0], "service": {"model": "constant", "ms": 1}, "mean_normal_s": 1e-9, "mean_starved_s": 1e-9}]})",
       "$.network.starved[0].mean_normal_s: would schedule about"},
      {R"({"starved": [{"nodes": [0], "service": {"model": "constant", "ms": 1}, "drop": "middle"}]})",
       "$.network.starved[0].drop: "},
  };
  write("t.txt", "0 1\n1000 2\n");
  for (const Case& c : cases) {
    write("s.json", study(c.network, 1000, 10));
    const Result r = fdsim("validate s.json");
    EXPECT_EQ(r.code, 2) << c.network << "\n" << r.err;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << c.network << "\n" << r.err;
  }
}

}  // namespace
}  // namespace fdsim::test
