#pragma once
// Warnings about valid scenarios that probably do not model what their author meant. A warning
// never makes a scenario invalid: `fdsim validate` prints each as one line,
// "<file>: warning: <JSON path>: <text>", on stderr and still exits 0.
//
// Contract: scenario_warnings(s) lists, in a fixed order:
// - single_locator: a Geode membership (`membership`, or a geode_ring arm's) with exactly one
//   locator in nodes.locators and a fault that can take that node down (a scheduled crash, a
//   crash_process, group_crash_process or crash_storm over it, a churn slot). While the only
//   locator is down no member can join or reconnect (a joiner learns the coordinator from a
//   locator), and under the `wiki` profile a suspicion reaches a non-locator coordinator only
//   through its one random recipient, so crashes go undetected and the view shrinks
//   (docs/models/geode-membership.md, "A single locator").
// - dense_t_out: a hou_shin* arm whose T_out chains have S >= 64 states (load_index "cet" with
//   a large estimated mu, or a large ql th_f). A near-critical region (estimated lambda close to
//   mu) makes T_out fall back to the dense uniformization, up to 63 S^3 / 64 work units per
//   computation, which the cost estimate does not count (models/loadsharing/cost_bound.h): such
//   a run stops at its work budget. Regions whose exit lies against a strong drift do not fall
//   back (models/timeout/far_exit.h).

#include <string>
#include <vector>

#include "sim/run/scenario_loader.h"

namespace fdsim::run {

std::vector<std::string> scenario_warnings(const Scenario& s);

}  // namespace fdsim::run
