#include "sim/sweep/run_api.h"

namespace fdsim::sweep {

RunApi real_run_api() {
  RunApi api;
  api.execute = [](const nlohmann::json& scenario, const std::string& source_name,
                   uint64_t replication, const run::RunOptions& options) {
    return run::execute(scenario, source_name, replication, options);
  };
  api.resolve = [](const nlohmann::json& scenario, const std::string& source_name) {
    return run::resolve(scenario, source_name);
  };
  return api;
}

}  // namespace fdsim::sweep
