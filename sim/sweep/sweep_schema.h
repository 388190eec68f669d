#pragma once
// The JSON Schema (draft 2020-12) of sweep files (`fdsim schema sweep`): the keys parse_sweep()
// accepts (sim/sweep/sweep_spec.h), axis values as a list, a range {"from", "to", "step"} or a
// geometric range {"from", "to", "factor"}, and an inline "base" validated as a scenario (the
// scenario schema is embedded under $defs/scenario).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/schema.h"

namespace fdsim::sweep {

nlohmann::ordered_json sweep_schema(const scenario::Shapes& scenario_shapes,
                                    std::vector<std::string>& problems);

}  // namespace fdsim::sweep
