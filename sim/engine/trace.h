#pragma once
// Sink for protocol-event traces (one record per protocol event: time, node, kind, fields).
// Models emit through Simulator::trace() when it is non-null; recording is the sink's business.
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/engine/ids.h"
#include "sim/engine/time.h"

namespace fdsim {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void record(SimTime t, NodeId node, std::string_view kind,
                      const nlohmann::json& fields) = 0;
};

}  // namespace fdsim
