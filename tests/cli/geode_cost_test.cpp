// The Geode suspicion fan-out in the cost estimate (models/geode/config.cpp,
// docs/scenario-format.md "Cost estimate"): a fan-out to the whole view makes every suspicion
// n messages sent in one event, so a partition that silences half the ring puts up to n^2
// suspicions in flight at once, and every member records every other.

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace geode_cost_cli {

using nlohmann::json;

class GeodeCost : public fdsim::test::TempDirTest {};

json fanout(int n) {
  return {{"name", "fanout"},
          {"seed", 1},
          {"horizon_s", 200},
          {"nodes", {{"count", n}, {"locators", {0, 1}}}},
          {"network", {{"latency", {{"model", "constant"}, {"ms", 1}}}}},
          {"faults",
           {{{"kind", "partition"},
             {"at_s", 120},
             {"a", {{"from", 0}, {"to", n / 2 - 1}}},
             {"b", {{"from", n / 2}, {"to", n - 1}}}}}},
          {"membership",
           {{"profile", "current"},
            {"member_timeout_ms", 5000},
            {"small_view_size", 1000000},
            {"max_suspect_recipients", 1000000}}}};
}

// 10^4 members: validation said "about 201 MB" and the run held 3.9 GB 30 s after the
// partition (an allocation failed under a 4 GB cap). Now the burst and the tables are terms
// of their own: 22.6 GB, refused.
TEST_F(GeodeCost, AFanOutToTheWholeViewIsRefusedAtValidation) {
  write("f.json", fanout(10000).dump());
  const fdsim::test::Result r = fdsim("validate f.json");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("f.json: $.membership: needs about 22.6 GB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("suspicions in flight: n x 10000 recipients x 160 B"), std::string::npos)
      << r.err;
}

// 2 000 members: accepted, and the estimate covers what the run held (613 MB when it was
// stopped at its budget, 30 s after the partition; the estimate was 40 MB).
TEST_F(GeodeCost, TheBurstIsPartOfTheEstimate) {
  write("f.json", fanout(2000).dump());
  const fdsim::test::Result r = fdsim("validate f.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("f.json: ok, about 928 MB per simulation"), std::string::npos) << r.out;
}

}  // namespace geode_cost_cli
