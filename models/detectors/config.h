#pragma once
// Detector configuration: which detector, with which parameters, as read from a scenario.
//
// Contract: parse_detector_config() reads one detector object, e.g.
//   {"kind": "phi_accrual", "threshold": 8, "window": 1000, "min_std_ms": 100,
//    "acceptable_pause_ms": 3000}
// "kind" is required. It then reads ONLY the chosen kind's keys (every one, with its default
// written into the resolved config), so the caller's finish() reports any other key as
// "unknown key" with its exact path. Problems go to the reader's Diagnostics; nothing throws.
// make_detector() builds a fresh detector (no shared state) for a peer heartbeating every
// `heartbeat_period`; a config that parsed without problems never makes it abort.
//
// Keys per kind (units in names; defaults in parentheses):
//   fixed:               timeout_ms (3000)                       suspect after this silence
//   nfd_s:               delta_ms (100)                          freshness shift, synced clocks
//   nfd_e:               alpha_ms (100), window (100)            safety margin; EA window
//   phi_accrual:         threshold (8), window (1000), min_std_ms (100),
//                        acceptable_pause_ms (3000),
//                        first_interval_ms (null = the heartbeat period)   Akka's defaults
//   exponential_accrual: threshold (8), window (1000), max_interval_ms (2000),
//                        initial_interval_ms (2000)              Cassandra's defaults
//   bertier:             window (100), beta (1), phi (4), gamma (0.1)
//   quantile:            alpha (0.01), delay_allowance_ms (0), prior_shape (1),
//                        prior_excess_ms (100), forgetting_per_heartbeat (1)

#include <memory>
#include <optional>
#include <string>

#include "models/detectors/bertier_detector.h"
#include "models/detectors/detector.h"
#include "models/detectors/exponential_accrual_detector.h"
#include "models/detectors/phi_accrual_detector.h"
#include "models/detectors/quantile_detector.h"
#include "sim/scenario/reader.h"

namespace fdsim::detectors {

enum class DetectorKind { fixed, nfd_s, nfd_e, phi_accrual, exponential_accrual, bertier, quantile };

std::string_view kind_name(DetectorKind k);

struct DetectorConfig {
  DetectorKind kind = DetectorKind::fixed;
  // fixed
  Duration timeout = Duration::ms(3000);
  // nfd_s
  Duration delta = Duration::ms(100);
  // nfd_e
  Duration nfd_e_alpha = Duration::ms(100);
  size_t nfd_e_window = 100;
  PhiAccrualParams phi;                  // phi_accrual (first_interval 0 = heartbeat period)
  ExponentialAccrualParams exponential;  // exponential_accrual
  BertierParams bertier;                 // bertier
  QuantileParams quantile;               // quantile
};

DetectorConfig parse_detector_config(scenario::ObjectReader& r);

std::unique_ptr<Detector> make_detector(const DetectorConfig& config, Duration heartbeat_period);

}  // namespace fdsim::detectors
