// T_out work in the cost estimate and the run budget (models/loadsharing/cost_bound.h,
// docs/scenario-format.md "Run budgets"): under the CET load index with an extreme
// execution_prior_shape, the T_out chains have about a thousand states; the estimate counts
// their cheap paths per computation and the run span's fallback (models/timeout/
// capped_quantile.h) per second of waiting, and the runs keep it.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cet_scenario.h"
#include "tests/cli/fdsim_process.h"

namespace t_out_budget_cli {

using nlohmann::json;

class TOutBudget : public fdsim::test::TempDirTest {};

using fdsim::test::cet_scenario;

// Chains of min(5 s x 1000 per s, 1000) + 1 + 42 = 1043 states at rate 1000 + 15 per s (mu's
// prior, twice the 7.5 tasks per second): 30 computations per s (15 broadcasts, and their
// records in a traced run), each 5774 x (1043 + 200) + 1043^2 + 200 x 1043 operations / 64 and
// a first fallback cap at mass 5 000, and 60 observer pairs each waiting at most 4 x 1015 x
// (1.1542 x 1043 + 197) / 64 units per s: about 7.6e8 per simulation (1.2e8 before the
// fallback was counted; 2.2e4 events before T_out work was).
TEST_F(TOutBudget, TheEstimateCountsTOutWork) {
  write("cet.json", cet_scenario(1000).dump());
  const fdsim::test::Result r = fdsim("validate cet.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("and 7.55218e+08 events"), std::string::npos) << r.out;
}

// With the default arrival prior the 1 043-state chains of an idle node's region {0..300}
// drift away from their exit (mu 1000 per s against lambda about 1 per s): far_exit.h proves
// their T_out "never" without any fallback, and the run finishes within its estimate (0.2 s in
// Release; the work is 0.004 of the estimate). Failed before far_exit.h: it stopped at the
// work budget (2.54e8 > 2.39e8 at 1.78 simulated seconds), one dense fallback costing about
// 1.1e9 work units.
TEST_F(TOutBudget, FarCetChainsRunWithinTheirEstimate) {
  write("cet.json", cet_scenario(1e3).dump());
  const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const json result = json::parse(file("out/cet-seed8-rep0.json"));
  const double work = result["run_stats"]["simulations"][0]["work_count"].get<double>();
  EXPECT_LE(work, result["run_stats"]["budget"]["estimated_events_count"].get<double>());
}

// An execution prior of 1e9 per s makes the chains' rate 1e9 per s: the fallback's worst case
// (a waiting pair's caps at mass 1e9 per s of waiting, or the dense method's 30 squarings of
// 1 043 states per computation) is 3.2e14 units, which validation refuses at the default
// limit, naming the T_out chains. With the limit raised the run keeps its estimate (far exits
// again: 0.4 s in Release).
TEST_F(TOutBudget, AnExtremeRateIsRefusedAtTheDefaultLimitAndKeepsItsEstimateAboveIt) {
  write("cet.json", cet_scenario(1e9).dump());
  fdsim::test::Result r = fdsim("validate cet.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("cet.json: $.load_sharing.load_index: needs about ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("the busiest source is $.load_sharing.load_index"), std::string::npos)
      << r.err;
  r = fdsim("run cet.json --out out --quiet --max-events 1e15");
  ASSERT_EQ(r.code, 0) << r.err;
  const json result = json::parse(file("out/cet-seed8-rep0.json"));
  const double work = result["run_stats"]["simulations"][0]["work_count"].get<double>();
  EXPECT_LE(work, result["run_stats"]["budget"]["estimated_events_count"].get<double>());
}

// Near-critical chains (an arrival prior of 990 per s against mu 1000 per s): regions of
// hundreds of states whose exit is reachable but beyond the Poisson path's mass, with an
// ill-conditioned spectral form. T_out takes the run span's fallback, whose caps double with
// the observers' waits (timeout_table.h, quantile_needed_s): the runs finish within their
// estimate, in work and in memory (the memory budget's documented constant: 2 x the estimate
// + 64 MB). Failed before the fallback was capped: the 0.5 s run stopped at its work budget
// at 0.215 simulated seconds (the dense uniformization, not estimated; a 5 s run needed 1.4e9
// units).
TEST_F(TOutBudget, NearCriticalCetChainsRunWithinTheirEstimate) {
  for (const double horizon_s : {0.5, 20.0}) {
    write("cet.json", cet_scenario(1000, horizon_s, horizon_s / 2, 990).dump());
    const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
    ASSERT_EQ(r.code, 0) << horizon_s << ": " << r.err;
    const json result = json::parse(file("out/cet-seed8-rep0.json"));
    const json& budget = result["run_stats"]["budget"];
    const json& sim = result["run_stats"]["simulations"][0];
    EXPECT_LE(sim["work_count"].get<double>(), budget["estimated_events_count"].get<double>())
        << horizon_s;
    EXPECT_LE(sim["peak_heap_bytes"].get<double>(),
              2 * budget["estimated_memory_bytes"].get<double>() + 64e6)
        << horizon_s;
    std::filesystem::remove_all(dir_ + "/out");
  }
}

// The same chains while three nodes are down from 2 s to the horizon: their observers' silences
// outlast every bound, so the fallback's caps double up to the run span (the estimate's
// per-second-of-waiting term) and its series hold up to mass rate x span, 16 B per term (the
// estimate's memory term): work and peak heap within the estimate itself (1.2 s in Release,
// about 40 under AddressSanitizer). Failed before the series' vectors were reserved at once
// (their doubling growth held up to twice them) and the memos' bound was in the estimate: a
// peak of 2.41 MB against an estimate of 2.00 MB (43.2 MB against 20.3 MB with a 600 s
// horizon).
TEST_F(TOutBudget, LongSilencesOfNearCriticalChainsStayWithinTheEstimate) {
  json doc = cet_scenario(1000, 30, 1, 990);
  doc["faults"] = {{{"kind", "crash"}, {"at_s", 2}, {"nodes", {0, 1, 2}}}};
  write("cet.json", doc.dump());
  const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const json result = json::parse(file("out/cet-seed8-rep0.json"));
  const json& budget = result["run_stats"]["budget"];
  const json& sim = result["run_stats"]["simulations"][0];
  EXPECT_LE(sim["work_count"].get<double>(), budget["estimated_events_count"].get<double>());
  EXPECT_LE(sim["peak_heap_bytes"].get<double>(), budget["estimated_memory_bytes"].get<double>());
  EXPECT_GT(result["metrics"]["hs05"]["detections_count"].get<double>(), 0);
}

}  // namespace t_out_budget_cli
