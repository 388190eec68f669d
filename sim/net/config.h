#pragma once
// The `network` section of a scenario.
//
// {"latency": {"model": "constant", "ms": 1},   default for every link (default: constant 1 ms)
//  "loss": 0.0,                                 per-attempt loss probability in [0, 1] (default 0)
//  "loss_model": {...},                         Gilbert–Elliott bursty loss instead of "loss"
//                                               (parse_gilbert_elliott below; not with "loss")
//  "retransmit_ms": 100,                        reliable sends: retry interval, > 0 (default 100)
//  "reliable_give_up_s": 60,                    reliable sends: no attempt starts this long
//                                               after the first, >= 0 (default 60)
//  "links": [                                   per-link overrides, first match wins
//    {"from": <node set>, "to": <node set>,     absent = any node (resolved as [])
//     "latency": {...},                         optional: absent keeps the default model
//     "loss": 0.05,                             optional: absent (null) keeps the default loss
//     "loss_model": {...}}                      optional, not with "loss": bursty loss here
//  ]}
// An override must set at least one of "latency" and "loss".
//
// Latency models (all times in milliseconds, every parameter required):
//   {"model": "constant",    "ms": m}                         m >= 0
//   {"model": "uniform",     "min_ms": a, "max_ms": b}        0 <= a <= b
//   {"model": "exponential", "min_ms": a, "mean_ms": m}       a + Exp(mean m - a); 0 <= a < m
//   {"model": "lognormal",   "min_ms": a, "median_ms": m,     a + exp(N(ln(m - a), sigma));
//                            "sigma": s}                      0 <= a < m, s >= 0
//   {"model": "pareto",      "min_ms": a, "alpha": k}         Pareto scale a > 0, shape k > 1
//                                                             (k <= 1 has an infinite mean)
//   {"model": "empirical",   "file": "delays.txt"}            measured delays, one per line
//                                                             (delay_samples.h); a relative
//                                                             path is relative to the
//                                                             scenario file's directory
//   {"model": "trace", "file": "trace.txt",                   time-ordered replay of
//    "links": "offset" | "shared", "loop_ms": x}              (offset_ms, delay_ms | lost)
//                                                             rows (delay_trace.h); loop_ms
//                                                             > the last offset (default:
//                                                             last offset + mean spacing)
// Contract: never throws; every problem goes to the reader's Diagnostics with its JSON path
// ("$.network.latency.alpha: expected a number > 1, got 0.8"); on problems the returned config
// still holds usable defaults.

#include <memory>
#include <string>

#include "sim/net/latency.h"
#include "sim/net/network.h"
#include "sim/scenario/nodes.h"
#include "sim/scenario/reader.h"

namespace fdsim::net {

NetworkConfig parse_network_config(scenario::ObjectReader& network,
                                   const scenario::NodesConfig& nodes,
                                   const std::string& base_dir);

// Reads a Gilbert–Elliott loss-model object (sim/net/bursty_loss.h):
//   {"model": "gilbert_elliott", "p_good_to_bad": (0, 1], "p_bad_to_good": (0, 1],
//    "loss_good": [0, 1] (default 0), "loss_bad": [0, 1] (default 1),
//    "scope": "link" (one chain per directed link, default) | "group" (one chain for every
//    link the entry covers)}
// Both loss probabilities 0 is an error (the chain would never lose a packet).
GilbertElliott parse_gilbert_elliott(scenario::ObjectReader& r);

// Reads one latency-model object (the format above) from `r`. If r is absent, returns
// `def_ms` constant (and echoes it). Never returns null. Also used for other delay-like
// distributions (e.g. pause durations in sim/faults).
std::shared_ptr<const LatencyModel> parse_latency_model(scenario::ObjectReader& r,
                                                        const std::string& base_dir,
                                                        double def_ms = 1.0);

}  // namespace fdsim::net
