// Issue 24, third round, through the real binary: `fdsim validate` of a sweep prints its cost
// estimate, and SWIM's own memory refusal honours --max-memory-gb.

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace robust3 {

using fdsim::test::Result;
using nlohmann::json;

class Robust3 : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
};

json small_study(double horizon_s) {
  return {{"name", "cost"},
          {"horizon_s", horizon_s},
          {"nodes", {{"count", 10}}},
          {"detectors", {{"arms", {{{"name", "f"}, {"detector", {{"kind", "fixed"}}}}}}}}};
}

// The scenario alone: 11 000 events at 100 s (110 events per simulated second: the 10 senders'
// heartbeats and the network's retransmission timer). The sweep runs it at 100 s and 1000 s,
// 3 replications each: 3 x 11 000 + 3 x 110 000 = 363 000 events. Failed before: validate
// printed only "sw.json: ok".
TEST_F(Robust3, ValidateOfASweepPrintsItsCostEstimate) {
  write("one.json", small_study(100).dump());
  Result r = fdsim("validate one.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "one.json: ok, about 87 kB per simulation and 11000 events (limits 16.0 GB / "
                   "1e+11 events)\n");

  const json sweep = {{"name", "c"},
                      {"base", small_study(100)},
                      {"axes", {{{"path", "$.horizon_s"}, {"values", {100, 1000}}}}},
                      {"replications", 3}};
  write("sw.json", sweep.dump());
  r = fdsim("validate sw.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "sw.json: ok, about 87 kB per simulation (the costliest point) and 363000 "
                   "events over 2 points and 6 runs (limits 16.0 GB / 1e+11 events)\n");
  // The limits it prints are the command line's, and standard input is read the same way.
  r = fdsim("validate - --max-events 1e6 < sw.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "<stdin>: ok, about 87 kB per simulation (the costliest point) and 363000 "
                   "events over 2 points and 6 runs (limits 16.0 GB / 1e+06 events)\n");
  r = fdsim("validate --quiet sw.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

// SWIM refused any cluster whose members' state (12 kB x n + 4 B x n^2) was over a fixed 16 GB,
// whatever --max-memory-gb said. Failed before: 100 000 members with --max-memory-gb 100 exited
// 2 ("over the bound of 16.0 GB"); 16 000 members (1.2 GB) with --max-memory-gb 1 were refused
// by the generic estimate, not by SWIM's message with the 1 GB bound.
TEST_F(Robust3, SwimMemoryRefusalHonoursMaxMemoryGb) {
  const auto swim = [](int n) {
    return json{{"name", "big"}, {"horizon_s", 10}, {"nodes", {{"count", n}}}, {"swim", json::object()}};
  };
  write("big.json", swim(100000).dump());
  Result r = fdsim("validate big.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("would need about 41.2 GB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("over the bound of 16.0 GB (raise with --max-memory-gb"), std::string::npos)
      << r.err;
  r = fdsim("validate big.json --max-memory-gb 100");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("big.json: ok, about 42.0 GB per simulation", 0), 0u) << r.out;

  write("mid.json", swim(16000).dump());
  r = fdsim("validate mid.json");
  EXPECT_EQ(r.code, 0) << r.err;
  r = fdsim("validate mid.json --max-memory-gb 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "mid.json: $.swim: nodes.count 16000: the SWIM members' state would need about 1.2 GB "
            "(4 B per entry of each member's probe order over all n nodes, n^2 entries, plus about "
            "12 kB per member), over the bound of 1.0 GB (raise with --max-memory-gb; "
            "models/swim/README.md, Memory)\n");
}

}  // namespace robust3
