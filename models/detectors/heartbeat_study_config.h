#pragma once
// The `detectors` section: the pairwise heartbeat study (which senders, which monitors, how the
// heartbeats are sent, and the detector arms that all watch the same heartbeat stream).
//
// Contract: parse_heartbeat_study_config() reads the section with an ObjectReader (problems go
// to its Diagnostics with exact paths, nothing throws) and resolves the monitoring pairs, so the
// study needs nothing else. Format (defaults in parentheses):
//   {"senders": <nodeset> ("all"),
//    "monitors_per_sender": k (1)        monitor j of sender i is (i + 1 + j) mod N, j < k
//    "pairs": [{"sender": i, "monitors": <nodeset>}, ...]
//                                         explicit pairs instead of senders/monitors_per_sender
//    "heartbeat_period_ms": eta (1000), "heartbeat_bytes": (64),
//    "send_jitter_ms": (0)                each send moves by uniform +-jitter (stream
//                                         "hb.jitter" of the sender); must be < eta/2
//    "random_phase": (true)               sender i's first heartbeat at a uniform phase in
//                                         [0, eta) (stream "hb.phase"), else at t = 0
//    "clock_drift_ppm": (0), "clock_offset_ms": (0)
//                                         every sender's clock: C(t) = offset + t (1 + drift);
//                                         heartbeats are due every eta on that clock and carry
//                                         its reading as their send time
//    "arms": [{"name": "phi", "detector": {<see models/detectors/config.h>}}, ...]  (required)}
// A node never monitors itself; a sender with several explicit entries gets their union.

#include <string>
#include <vector>

#include "models/detectors/config.h"
#include "sim/engine/ids.h"
#include "sim/engine/time.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::detectors {

struct StudyArm {
  std::string name;
  DetectorConfig detector;
};

struct MonitorPair {
  NodeId sender;
  NodeId monitor;
};

struct HeartbeatStudyConfig {
  std::vector<MonitorPair> pairs;  // sorted by (sender, monitor), unique
  Duration heartbeat_period = Duration::ms(1000);
  uint32_t heartbeat_bytes = 64;
  Duration send_jitter = Duration::zero();
  bool random_phase = true;
  double clock_drift_ppm = 0.0;
  Duration clock_offset = Duration::zero();
  std::vector<StudyArm> arms;

  std::vector<std::string> arm_names() const;
};

HeartbeatStudyConfig parse_heartbeat_study_config(scenario::ObjectReader& detectors_section,
                                                  const scenario::NodesConfig& nodes);

}  // namespace fdsim::detectors
