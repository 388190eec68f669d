// Issue 24, items 5 and 6, through the real binary: the cost estimate at validation
// (sim/scenario/cost_estimate.h). Monitoring pairs and sweep grids are counted before they are
// expanded, the estimate names the JSON path and the figures, --max-memory-gb / --max-events
// raise the limits, and `fdsim validate` prints the estimate.

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace cost24 {

using fdsim::test::Result;
using nlohmann::json;

class CostEstimate : public fdsim::test::TempDirTest {};

json study(int nodes, double horizon_s) {
  return {{"name", "cost"},
          {"horizon_s", horizon_s},
          {"nodes", {{"count", nodes}}},
          {"detectors", {{"arms", {{{"name", "f"}, {"detector", {{"kind", "fixed"}}}}}}}}};
}

// 10 000 nodes with 9 999 monitors each: a 150-byte file, 1e8 pairs. The pairs were expanded
// into a std::set before any limit (about 5 GB): under a 300 MB cap validate ran out of memory
// (failed before: exit 1 "out of memory", not 2 with the estimate).
TEST_F(CostEstimate, MonitoringPairsAreCountedBeforeTheyAreExpanded) {
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v run";
#endif
  json doc = study(10000, 10);
  doc["detectors"]["monitors_per_sender"] = 9999;
  write("big.json", doc.dump());
  ASSERT_LT(file("big.json").size(), 200u);
  EXPECT_EQ(capped("validate big.json", 300000), 2) << file("err.txt");
  EXPECT_EQ(file("err.txt"),
            "big.json: $.detectors.monitors_per_sender: needs about 40.0 GB (senders 10000 x "
            "monitors_per_sender 9999 = 9.999e+07 monitoring pairs x 400 B); the limit is 16.0 GB "
            "/ 1e+11 events (raise with --max-memory-gb / --max-events)\n");

  // Explicit pairs are counted the same way (every entry's monitors, before the union).
  json pairs = study(10000, 10);
  pairs["detectors"]["pairs"] = json::array();
  for (int s = 0; s < 1000; ++s)
    pairs["detectors"]["pairs"].push_back({{"sender", s}, {"monitors", {{"from", s + 1}, {"to", s + 9000}}}});
  write("pairs.json", pairs.dump());
  EXPECT_EQ(capped("validate pairs.json --max-memory-gb 1", 600000), 2) << file("err.txt");
  EXPECT_NE(file("err.txt").find("pairs.json: $.detectors.pairs: needs about 3.6 GB (up to 9e+06 "
                                 "monitoring pairs x 400 B); the limit is 1.0 GB"),
            std::string::npos)
      << file("err.txt");
}

// Events in all: 1000 pairs at 1 ms over 1e6 s are 3e12 events (send, delivery, deadline) (the per-source budget of 1e8
// per simulated second passes). Accepted before (failed before: exit 0); --max-events raises
// the limit, and validate prints the estimate.
TEST_F(CostEstimate, TotalEventsAreBoundedAndTheLimitCanBeRaised) {
  json doc = study(1000, 1e6);
  doc["detectors"]["heartbeat_period_ms"] = 1;
  write("s.json", doc.dump());
  Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err,
            "s.json: $.detectors.heartbeat_period_ms: needs about 9 MB and 3.01e+12 events; the "
            "limit is 16.0 GB / 1e+11 events (raise with --max-memory-gb / --max-events); the "
            "busiest source is $.detectors.heartbeat_period_ms at 3e+06 events per simulated "
            "second, over 1e+06 s x 1 simulations x 1 replications\n");
  r = fdsim("run s.json --out o");
  EXPECT_EQ(r.code, 2) << r.err;

  r = fdsim("validate s.json --max-events 1e13");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "s.json: ok, about 9 MB per simulation and 3.01e+12 events (limits 16.0 GB / "
                   "1e+13 events)\n");

  // --replications multiplies the total: 3e10 events per replication x 20 is over 1e11.
  doc["horizon_s"] = 1e4;
  write("s.json", doc.dump());
  r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 0) << r.err;
  r = fdsim("run s.json --replications 20 --out o");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("s.json: --replications 20: needs about 9 MB and 6.02e+11 events", 0), 0u)
      << r.err;

  r = fdsim("validate s.json --max-events 0");
  EXPECT_EQ(r.code, 2) << r.err;
}

// Messages in flight (Little's law): a 1 ms heartbeat on 1000 pairs with a 1e9 ms latency held
// 350 MB more per wall second until the kernel's OOM killer ended it (failed before: exit 0 at
// validation).
TEST_F(CostEstimate, MessagesInFlightCountAgainstTheMemoryLimit) {
  json doc = study(1000, 100);
  doc["detectors"]["heartbeat_period_ms"] = 1;
  doc["network"] = {{"latency", {{"model", "constant"}, {"ms", 1e9}}}};
  write("s.json", doc.dump());
  const Result r = fdsim("validate s.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("s.json: $.network.latency: needs about 48.2 GB and 3.01e+08 events", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("the largest term is 48.2 GB (messages in flight: 3.01e+06 events per "
                       "simulated second x mean delay 100 s x 160 B)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(fdsim("validate s.json --max-memory-gb 50").code, 0);
}

// A sweep grid at its documented limits (1e6 points x 1e6 replications) was expanded before any
// limit was checked (failed before: out of memory under the cap); now the plan is counted first.
TEST_F(CostEstimate, SweepGridsAreCountedBeforeTheyAreExpanded) {
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v run";
#endif
  write("base.json", study(4, 10).dump());
  const json range = {{"from", 1}, {"to", 1000}, {"step", 1}};
  write("sweep.json", json{{"base", "base.json"},
                           {"replications", 1000000},
                           {"axes",
                            {{{"path", "$.seed"}, {"values", range}},
                             {{"path", "$.detectors.heartbeat_bytes"}, {"values", range}}}}}
                          .dump());
  EXPECT_EQ(capped("validate sweep.json", 300000), 2) << file("err.txt");
  EXPECT_EQ(file("err.txt").rfind("sweep.json: $.axes: the plan of 1000000 points x 1000000 "
                                  "replications needs about ",
                                  0),
            0u)
      << file("err.txt");

  // Points that each fit, but not together: 20 points x 3e10 events.
  json base = study(1000, 1e4);
  base["detectors"]["heartbeat_period_ms"] = 1;
  write("base.json", base.dump());
  write("sweep.json", json{{"base", "base.json"},
                           {"axes", {{{"path", "$.seed"}, {"values", {{"from", 1}, {"to", 20}, {"step", 1}}}}}}}
                          .dump());
  Result r = fdsim("validate sweep.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("sweep.json: $.axes: the sweep needs about 6.02e+11 events over 20 points",
                        0),
            0u)
      << r.err;
  r = fdsim("sweep sweep.json --out o --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
  r = fdsim("validate sweep.json --max-events 1e13");
  EXPECT_EQ(r.code, 0) << r.err;
}

// Geode views are shared objects, so a member's state is linear in its contacts: 100 000
// members (the scale benchmark's 60 s ring, 0.93 GB peak RSS measured) are accepted. Before,
// the estimate counted 64 B x n^2 (641.6 GB) and refused them. Application messages reach
// random members, so there every member may hold an entry per member: n^2 again.
TEST_F(CostEstimate, GeodeMembersCostTheirContactsNotTheWholeCluster) {
  const auto ring = [](int n) {
    return json{{"name", "g"},
                {"horizon_s", 60},
                {"nodes", {{"count", n}, {"locators", {0}}}},
                {"membership", {{"profile", "wiki"}, {"member_timeout_ms", 5000}}}};
  };
  write("ring.json", ring(100000).dump());
  Result r = fdsim("validate ring.json");
  EXPECT_EQ(r.code, 0) << r.err;
  json app = ring(100000);
  app["membership"]["app_messages_per_s"] = 0.01;
  write("app.json", app.dump());
  r = fdsim("validate app.json");
  EXPECT_EQ(r.code, 2) << r.err;
  // 641.6 GB of tables + 112 MB for a suspicion burst in flight (n x 7 recipients x 160 B).
  EXPECT_NE(r.err.find("app.json: $.membership: needs about 641.7 GB"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("application messages: 8 kB x n + 64 B x n^2"), std::string::npos)
      << r.err;
}

}  // namespace cost24
