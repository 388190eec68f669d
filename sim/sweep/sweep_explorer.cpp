#include "sim/sweep/sweep_explorer.h"

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_spec.h"

namespace fdsim::sweep {

using nlohmann::json;

std::vector<scenario::ObjectRecord> explore_sweep_fields() {
  json by_path = json::parse(R"({
    "$schema": "sweep.schema.json", "name": "explore", "description": "", "replications": 2,
    "base": "no-such-base.json",
    "axes": [
      {"path": "$.seed", "values": [1, 2]},
      {"path": "$.horizon_s", "values": {"from": 10, "to": 30, "step": 10}},
      {"path": "$.network.loss", "name": "loss",
       "calibrate": {"arm": "a", "metric": "m", "target": 1, "tolerance_rel": 0.01,
                     "bracket": [0, 0.5], "pilot_replications": 2, "max_iterations": 5,
                     "linked": [{"path": "$.network.latency.min_ms", "scale": 2,
                                 "offset": 1}]}},
      {"zip": [{"path": "$.warmup_s", "values": {"from": 1, "to": 4, "factor": 2}},
               {"path": "$.description", "values": ["a", "b", "c"]}]}],
    "constraint": [{"path": "$.seed", "op": "<", "value": 2},
                   {"path": "$.warmup_s", "op": "<", "other_path": "$.horizon_s"}]
  })");
  json inline_base = by_path;
  inline_base["base"] = json::parse(R"({"name": "x", "horizon_s": 10, "nodes": {"count": 3}})");
  scenario::FieldRecorder recorder;
  (void)parse_sweep(by_path, "explore/a.json", &recorder);
  (void)parse_sweep(inline_base, "explore/b.json", &recorder);
  return std::move(recorder.objects);
}

}  // namespace fdsim::sweep
