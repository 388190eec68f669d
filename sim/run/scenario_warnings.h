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

#include <string>
#include <vector>

#include "sim/run/scenario_loader.h"

namespace fdsim::run {

std::vector<std::string> scenario_warnings(const Scenario& s);

}  // namespace fdsim::run
