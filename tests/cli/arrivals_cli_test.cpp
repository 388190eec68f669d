// Issue 25 item 5 through the CLI: `workload.arrival_processes` runs (a hand-counted trace
// replay; the MMPP's and the batch process's mean rate and dispersion across replications) and
// `fdsim validate` refuses bad entries with exit 2 and the JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"
#include "tests/support/sample_moments.h"

namespace fdsim::test {
namespace {

using nlohmann::json;

class CliArrivals : public TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name) << text;
  }
  // tasks_arrived_count of arm "o" for each replication of a.json.
  std::vector<double> arrived(int replications) const {
    const Result r = fdsim("run a.json --quiet --out o --replications " + std::to_string(replications));
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<double> v;
    for (int i = 0; i < replications; ++i) {
      std::ifstream in(dir_ + "/o/a-seed1-rep" + std::to_string(i) + ".json");
      const json j = json::parse(in, nullptr, false);
      if (j.is_discarded()) {
        ADD_FAILURE() << "no result for replication " << i;
        return v;
      }
      v.push_back(j["metrics"]["o"]["tasks_arrived_count"].get<double>());
    }
    return v;
  }
};

std::string arrivals_scenario(int nodes, double horizon_s, const std::string& processes) {
  return R"({"name": "a", "seed": 1, "horizon_s": )" + std::to_string(horizon_s) +
         R"(, "nodes": {"count": )" + std::to_string(nodes) +
         R"(}, "network": {"latency": {"model": "constant", "ms": 1}},
    "workload": {"arrival_processes": )" + processes + R"(,
      "execution": {"distribution": "deterministic", "value_s": 0.01},
      "deadline": {"kind": "fixed", "relative_s": 100}},
    "load_sharing": {"scheduling": "fcfs", "arms": [{"name": "o", "diagnosis": "oracle"}]}})";
}

// Three nodes replay {1, 2, 3.5} s every 5 s, the j-th starting to read it at 2j s (mod 5).
// Arrivals in [0, 19.9]: node 0 at 1, 2, 3.5, 6, 7, 8.5, ..., 16, 17, 18.5 (12); node 1 at
// 0 (row 2 - 2), 1.5, then 4, 5, 6.5, ..., 14, 15, 16.5, 19 (12); node 2 (offset 4: no row at
// or after it in the first period) at 2, 3, 4.5, ..., 17, 18, 19.5 (12).
TEST_F(CliArrivals, TraceReplayHandCounted) {
  write("t.txt", "# instants\n1\n2\n3.5\n");
  write("a.json", arrivals_scenario(3, 19.9, R"([{"nodes": "all", "model": "trace",
      "file": "t.txt", "loop": true, "period_s": 5, "node_offset_s": 2}])"));
  const std::vector<double> v = arrived(1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], 36);
}

using test_support::Moments;
Moments moments(const std::vector<double>& v) { return test_support::sample_moments(v); }

// Batch Poisson at 0.5 batches/s of exactly 4 tasks on 2 nodes over 100 s: the total count
// N is 4 x Poisson(2 x 0.5 x 100): mean 400, Var N / E N = E[B^2]/E[B] = 4.
TEST_F(CliArrivals, BatchPoissonMeanAndDispersion) {
  write("a.json", arrivals_scenario(2, 100, R"([{"nodes": "all", "model": "batch_poisson",
      "batch_rate_per_s": 0.5, "batch_size": {"distribution": "deterministic", "value": 4}}])"));
  const std::vector<double> v = arrived(60);
  ASSERT_EQ(v.size(), 60u);
  const Moments m = moments(v);
  for (double x : v) EXPECT_EQ(std::fmod(x, 4.0), 0.0) << "a batch was split";
  EXPECT_NEAR(m.mean, 400, 4 * std::sqrt(1600.0 / 60));
  EXPECT_NEAR(m.var / m.mean, 4.0, 4.0 * 4 * std::sqrt(2.0 / 59));
  std::printf("batch_poisson: mean %.1f (formula 400), dispersion %.2f (formula 4)\n", m.mean,
              m.var / m.mean);
}

// An MMPP (0.2/s for a mean 20 s, 3/s for a mean 5 s) on 4 nodes over 200 s: mean rate
// (0.2 x 20 + 3 x 5) / 25 = 0.76/s, so E N = 4 x 0.76 x 200 = 608; the dispersion of each
// node's count (hence of their sum) is 1 + 2 pi0 pi1 (r1 - r0)^2 / (mean s) (1 - (1 -
// e^{-s t}) / (s t)) with s = 1/20 + 1/5.
TEST_F(CliArrivals, MmppMeanAndDispersion) {
  write("a.json", arrivals_scenario(4, 200, R"([{"nodes": "all", "model": "mmpp2",
      "rate_low_per_s": 0.2, "rate_high_per_s": 3, "mean_low_s": 20, "mean_high_s": 5}])"));
  const std::vector<double> v = arrived(80);
  ASSERT_EQ(v.size(), 80u);
  const Moments m = moments(v);
  const double pi0 = 0.8, pi1 = 0.2, rate = 0.76, s = 0.25, t = 200;
  const double idc = 1 + 2 * pi0 * pi1 * 2.8 * 2.8 / (rate * s) * (1 - (1 - std::exp(-s * t)) / (s * t));
  EXPECT_NEAR(m.mean, 4 * rate * t, 4 * std::sqrt(m.var / 80));
  EXPECT_NEAR(m.var / m.mean, idc, idc * 4 * 1.5 * std::sqrt(2.0 / 79));
  EXPECT_GT(m.var / m.mean, 3.0);  // not Poisson
  std::printf("mmpp2: mean %.1f (formula %.1f), dispersion %.2f (formula %.2f)\n", m.mean,
              4 * rate * t, m.var / m.mean, idc);
}

TEST_F(CliArrivals, ValidateRefusesBadEntries) {
  write("dec.txt", "1\n3\n2\n");
  write("a.json", R"({"name": "a", "horizon_s": 10, "nodes": {"count": 4},
    "workload": {"load_phases": [{"nodes": [1], "from_s": 5, "rate_per_s": 1}],
      "arrival_processes": [
        {"nodes": [0, 1], "model": "mmpp2", "rate_low_per_s": 0, "rate_high_per_s": 0,
         "mean_low_s": 1, "mean_high_s": 1},
        {"nodes": [2], "model": "trace", "file": "dec.txt"},
        {"nodes": [3], "model": "batch_poisson", "batch_rate_per_s": 5000,
         "batch_size": {"distribution": "deterministic", "value": 10}},
        {"nodes": [0], "model": "trace", "file": "dec.txt", "loop": true}]},
    "load_sharing": {"arms": [{"name": "o", "diagnosis": "oracle"}]}})");
  const Result r = fdsim("validate a.json");
  EXPECT_EQ(r.code, 2);
  for (const char* want :
       {"$.workload.arrival_processes[0].rate_high_per_s: expected a number > 0",
        "$.workload.arrival_processes[0].nodes: node 1 also has load_phases",
        "$.workload.arrival_processes[1].file: ", "must not decrease",
        "$.workload.arrival_processes[2].batch_rate_per_s: batch_rate_per_s x mean batch size",
        "$.workload.arrival_processes[3].period_s: ",
        "$.workload.arrival_processes[3].nodes: node 0 already has an arrival process"})
    EXPECT_NE(r.err.find(want), std::string::npos) << want << "\nin:\n" << r.err;
  EXPECT_EQ(r.err.find("3\n2"), std::string::npos) << "the file's content was echoed";
}

}  // namespace
}  // namespace fdsim::test
