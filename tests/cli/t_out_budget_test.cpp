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

#include "tests/cli/fdsim_process.h"

namespace t_out_budget_cli {

using nlohmann::json;

class TOutBudget : public fdsim::test::TempDirTest {};

// bench/budget_families.py's "load_index cet" family (horizon 60 s, warm-up 10 s).
json cet(double prior_shape, double horizon_s = 60, double warmup_s = 10) {
  return {{"name", "cet"},
          {"seed", 8},
          {"horizon_s", horizon_s},
          {"warmup_s", warmup_s},
          {"nodes", {{"count", 10}}},
          {"network",
           {{"latency", {{"model", "exponential"}, {"min_ms", 1}, {"mean_ms", 4}}},
            {"loss", 0.005}}},
          {"faults",
           {{{"kind", "crash_process"},
             {"nodes", "all"},
             {"mean_up_s", 800},
             {"mean_down_s", 60}}}},
          {"workload",
           {{"arrival_rate_per_s", 0.75},
            {"execution", {{"distribution", "exponential"}, {"rate_per_s", 1.0}}},
            {"deadline", {{"kind", "uniform"}, {"min_s", 3}, {"max_s", 12}}}}},
          {"load_sharing",
           {{"scheduling", "fcfs"},
            {"load_index", "cet"},
            {"th_u", 1.5},
            {"th_f", 5},
            {"buddy_size", 6},
            {"estimation",
             {{"execution_prior_shape", prior_shape}, {"execution_prior_exposure_s", 1}}},
            {"arms", {{{"name", "hs05"}, {"diagnosis", "hou_shin"}, {"alpha", 0.05}}}}}}};
}

// Chains of min(5 s x 1000 per s, 1000) + 1 + 42 = 1043 states: 7.5 tasks per second x 2
// broadcasts x 1 loss value, each computation up to 5774 x (1043 + 200) + 1043^2 + 200 x 1043
// operations / 64 units: about 1.2e8 per simulation (failed before: 2.2e4 events, no term).
TEST_F(TOutBudget, TheEstimateCountsTOutWork) {
  write("cet.json", cet(1000).dump());
  const fdsim::test::Result r = fdsim("validate cet.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("and 1.19182e+08 events"), std::string::npos) << r.out;
}

// The first T_out computation that falls back to the dense uniformization (1.78 s simulated)
// charges more than 2 x the estimate + 1e6: the run stops there with the budget line, exit 2,
// and leaves no result file (failed before on the estimate in the line: 2.2e+04). A 5 s
// horizon keeps the budget small (2.09e7: the computation is stopped after 0.3 s in Release;
// with the 60 s horizon the budget is 2.39e8, which that one computation also crosses, after
// 3.4 s in Release and far longer under AddressSanitizer).
TEST_F(TOutBudget, AnExpensiveTOutComputationStopsAtTheWorkBudget) {
  write("cet.json", cet(1000, 5, 1).dump());
  const fdsim::test::Result r = fdsim("run cet.json --out out --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cet.json: arm hs05, replication 0: work budget exceeded: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(2 x the estimate + 1e6) at simulated time 1.77638 s; validation "
                       "estimated 9.93e+06 events per simulation"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out/cet-seed8-rep0.json")) << r.err;
}

}  // namespace t_out_budget_cli
