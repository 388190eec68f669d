// T_out work in the cost estimate and the run budget (models/loadsharing/cost_bound.h,
// docs/scenario-format.md "Run budgets"): under the CET load index with an extreme
// execution_prior_shape, the T_out chains have about a thousand states; the estimate counts
// their Poisson and spectral computations, and a run whose chains fall back to the dense
// uniformization (which charges its squarings) stops at its work budget with the budget line
// instead of computing for minutes.

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

// Chains of min(5 s x 1000 per s, 1000) + 1 + 42 = 1043 states: 7.5 tasks per second x 2
// broadcasts x 1 loss value, each computation up to 5774 x (1043 + 200) + 1043^2 + 200 x 1043
// operations / 64 units: about 1.2e8 per simulation (failed before: 2.2e4 events, no term).
TEST_F(TOutBudget, TheEstimateCountsTOutWork) {
  write("cet.json", cet_scenario(1000).dump());
  const fdsim::test::Result r = fdsim("validate cet.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("and 1.19182e+08 events"), std::string::npos) << r.out;
}

// With the default arrival prior the 1 043-state chains of an idle node's region {0..300}
// drift away from their exit (mu 1000 per s against lambda about 1 per s): far_exit.h proves
// their T_out "never" without the dense uniformization, and the runs finish within their
// estimate (in 0.4 and 0.7 s in Release). Failed before: both stopped at the work budget
// (2.54e8 > 2.39e8 at 1.78 simulated seconds for the prior 1e3), one dense fallback costing
// about 1.1e9 work units.
TEST_F(TOutBudget, FarCetChainsRunWithinTheirEstimate) {
  for (const double prior : {1e3, 1e9}) {
    write("cet.json", cet_scenario(prior).dump());
    const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
    ASSERT_EQ(r.code, 0) << prior << ": " << r.err;
    const json result = json::parse(file("out/cet-seed8-rep0.json"));
    const json& budget = result["run_stats"]["budget"];
    const double work = result["run_stats"]["simulations"][0]["work_count"].get<double>();
    EXPECT_LE(work, budget["estimated_events_count"].get<double>()) << prior;
    std::filesystem::remove_all(dir_ + "/out");
  }
}

// Near-critical chains (an arrival prior of 990 per s against mu 1000 per s): a region of
// hundreds of states whose exit is reachable but far beyond the Poisson path's mass, where the
// spectral form is ill-conditioned, so T_out falls back to the dense uniformization, whose
// squarings are charged but not estimated. The run stops at its work budget with the budget
// line, exit 2, and leaves no result file (failed before the squarings were charged: minutes of
// computing). A 0.5 s horizon keeps the budget small (2.99e6, crossed at 0.22 simulated
// seconds, after 0.85 s in Release and about 40 times longer under AddressSanitizer).
TEST_F(TOutBudget, AnExpensiveTOutComputationStopsAtTheWorkBudget) {
  write("cet.json", cet_scenario(1000, 0.5, 0.25, 990).dump());
  const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cet.json: arm hs05, replication 0: work budget exceeded: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(2 x the estimate + 1e6) at simulated time 0.215246 s; validation "
                       "estimated 9.93e+05 events per simulation"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out/cet-seed8-rep0.json")) << r.err;
}

}  // namespace t_out_budget_cli
