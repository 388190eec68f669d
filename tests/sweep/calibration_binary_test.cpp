// Calibrated axes with the real fdsim binary on a relation known in closed form: in
// scenarios/examples/calibration/heartbeat-cost.json every node sends heartbeats to 2 monitors
// every period P over a loss-free network, so traffic.messages_per_node_s = 2 / P (one message
// per heartbeat; the window is 1000 s, so the count is exact to one heartbeat in 1000 s / P).
// Skipped when the binary has not been built.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/sweep/test_util.h"

namespace fdsim::sweep {
// Named, not anonymous: the test sources are compiled as one unity file.
namespace calibration_binary_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_text;
using testing::ScratchDir;
using testing::write_text;

const std::string kFdsim = FDSIM_BINARY_DIR "/fdsim";
const std::string kSource = FDSIM_SOURCE_DIR;
const std::string kExample = kSource + "/scenarios/examples/calibration/heartbeat-cost-sweep.json";

struct Proc {
  int code = -1;
  std::string out, err;
};

Proc fdsim(const ScratchDir& dir, const std::string& args) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "'" + kFdsim + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

TEST(FdsimCalibration, SolvesTheHeartbeatPeriodOfATrafficTarget) {
  if (::access(kFdsim.c_str(), X_OK) != 0) GTEST_SKIP() << kFdsim << " is not built";
  ScratchDir dir;
  const Proc p = fdsim(dir, "sweep '" + kExample + "' --out '" + dir / "out" + "' -j 2");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("calibration: 2 points x 1 axis solved"), std::string::npos) << p.out;
  const json m = json::parse(read_text(dir.path() / "out" / "sweep.json"));
  const std::string path = "$.detectors.heartbeat_period_ms";
  const double target = 5.0;              // messages per node and second
  const double analytic_ms = 2.0 / target * 1000.0;  // 400 ms
  ASSERT_EQ(m["points"].size(), 2u);
  for (const auto& point : m["points"]) {
    const double period_ms = point["params"][path].get<double>();
    // Within the tolerance (0.2 %) plus one heartbeat in the 1000 s window (0.04 %).
    EXPECT_NEAR(period_ms, analytic_ms, analytic_ms * (0.002 + 0.0004)) << point.dump();
  }
  for (const auto& rec : m["calibration"]["points"]) {
    const json& a = rec["axes"][0];
    EXPECT_LE(std::fabs(a["achieved_mean"].get<double>() - target), 0.002 * target) << a.dump();
    // Each evaluation's pilot mean is 2 / P to the heartbeat.
    for (const auto& e : a["evaluations"]) {
      const double expected = 2.0 / (e["value"].get<double>() / 1000.0);
      EXPECT_NEAR(e["arm_mean"].get<double>(), expected, expected * 0.003) << e.dump();
    }
  }
  // The sweep's own replications (not the pilots) achieve the target too.
  const std::string csv = read_text(dir.path() / "out" / "aggregate.csv");
  size_t rows = 0;
  for (size_t at = csv.find(",traffic.messages_per_node_s,"); at != std::string::npos;
       at = csv.find(",traffic.messages_per_node_s,", at + 1)) {
    const size_t start = at + std::string(",traffic.messages_per_node_s,").size();
    const size_t comma = csv.find(',', start);  // n
    const double mean = std::stod(csv.substr(comma + 1));
    EXPECT_NEAR(mean, target, target * 0.0025) << csv.substr(at, 80);
    ++rows;
  }
  EXPECT_EQ(rows, 2u);
}

TEST(FdsimCalibration, RefusesAnUnbracketedTargetWithExitTwoAndTheJsonPath) {
  if (::access(kFdsim.c_str(), X_OK) != 0) GTEST_SKIP() << kFdsim << " is not built";
  ScratchDir dir;
  json doc = json::parse(read_text(kExample));
  doc["base"] = kSource + "/scenarios/examples/calibration/heartbeat-cost.json";
  doc["axes"][1]["calibrate"]["target"] = 50;  // needs P = 40 ms, outside [100, 2000]
  write_text(dir / "s.json", doc.dump());
  const Proc p = fdsim(dir, "sweep '" + dir / "s.json" + "' --out '" + dir / "out" + "' -q");
  EXPECT_EQ(p.code, 2) << p.err;
  EXPECT_NE(p.err.find(dir / "s.json" + ": $.axes[1].calibrate.bracket: point 0 "
                       "($.detectors.arms[0].detector.timeout_ms = 2000): the target is not "
                       "bracketed: arm mean of traffic.messages_per_node_s is 20 at "
                       "$.detectors.heartbeat_period_ms = 100 and 1 at 2000, target 50"),
            std::string::npos)
      << p.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "sweep.json"));
  // A malformed calibrate object is refused at validation, with its JSON path.
  doc["axes"][1]["calibrate"]["bracket"] = json::array({2000, 100});
  write_text(dir / "bad.json", doc.dump());
  const Proc v = fdsim(dir, "validate '" + dir / "bad.json" + "'");
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find(dir / "bad.json" + ": $.axes[1].calibrate.bracket: expected [lo, hi] "
                       "with lo < hi, got [2000, 100]"),
            std::string::npos)
      << v.err;
}

}  // namespace calibration_binary_test
}  // namespace fdsim::sweep
