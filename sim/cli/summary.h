#pragma once
// The few headline metrics `fdsim run` prints per arm after a run. Purely presentational:
// the result file holds everything.

#include <string>

#include <nlohmann/json.hpp>

namespace fdsim::cli {

// "name=value name=value ..." (at most `max_items`): the well-known headline metrics present
// among the arm's metrics (looked up by dotted path); if there is none, the first numeric
// top-level metrics in key order. Non-finite values print as "n/a".
std::string headline_metrics(const nlohmann::json& arm_metrics, size_t max_items = 5);

}  // namespace fdsim::cli
