#pragma once
// The two calls a sweep makes into the run layer (sim/run/run.h), as replaceable functions.
//
// Contract: a sweep only ever runs scenarios through a RunApi, so tests substitute a fake,
// deterministic run function (and can count executions) while the CLI passes real_run_api().
// Both functions must be safe to call concurrently from several threads (run.h promises it
// for the real ones).

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/run/run.h"

namespace fdsim::sweep {

using ExecuteFn = std::function<run::RunOutcome(const nlohmann::json& scenario,
                                                const std::string& source_name,
                                                uint64_t replication,
                                                const run::RunOptions& options)>;
using ResolveFn =
    std::function<run::ResolveOutcome(const nlohmann::json& scenario, const std::string& source_name)>;

struct RunApi {
  ExecuteFn execute;
  ResolveFn resolve;
};

// run::execute and run::resolve.
RunApi real_run_api();

}  // namespace fdsim::sweep
