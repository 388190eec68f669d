#pragma once
// bench/budget_families.py's "load_index cet" family, shared by the CLI tests of T_out work
// (t_out_budget_test.cpp, interrupt_test.cpp): ten nodes under the CET load index (th_u 1.5 s,
// th_f 5 s) with one hou_shin arm, loss 0.005 and process crashes. With an execution prior of
// 1000 per s the thresholds map to T_out chains of 1 000 states (the mapping's clamp); with an
// arrival prior near it (arrival_prior_per_s > 0, e.g. 990) the regions are near-critical and
// T_out takes the run span's fallback (models/timeout/capped_quantile.h; far_exit.h says why
// the default arrival prior does not).

#include <nlohmann/json.hpp>

namespace fdsim::test {

inline nlohmann::json cet_scenario(double execution_prior_per_s, double horizon_s = 60,
                                   double warmup_s = 10, double arrival_prior_per_s = 0) {
  nlohmann::json s = {
      {"name", "cet"},
      {"seed", 8},
      {"horizon_s", horizon_s},
      {"warmup_s", warmup_s},
      {"nodes", {{"count", 10}}},
      {"network",
       {{"latency", {{"model", "exponential"}, {"min_ms", 1}, {"mean_ms", 4}}}, {"loss", 0.005}}},
      {"faults",
       {{{"kind", "crash_process"}, {"nodes", "all"}, {"mean_up_s", 800}, {"mean_down_s", 60}}}},
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
         {{"execution_prior_shape", execution_prior_per_s}, {"execution_prior_exposure_s", 1}}},
        {"arms", {{{"name", "hs05"}, {"diagnosis", "hou_shin"}, {"alpha", 0.05}}}}}}};
  if (arrival_prior_per_s > 0) {
    s["load_sharing"]["estimation"]["arrival_prior_shape"] = arrival_prior_per_s;
    s["load_sharing"]["estimation"]["arrival_prior_exposure_s"] = 1;
  }
  return s;
}

}  // namespace fdsim::test
