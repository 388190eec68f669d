#pragma once
// How `fdsim explain` lays out a resolved configuration for a reader.
//
// Contract: explain_layout(resolved, original) is the same configuration as `resolved` (it
// resolves to the same scenario), written
// - in document order: an object's keys that the original scenario file has come first, in
//   the file's order, then the keys the loader added (defaults), in byte order; arrays keep
//   their order, and their elements follow the original's elements at the same index;
// - with node sets written compactly: a node-set field (a key named nodes, members, locators,
//   senders, monitors, a, b, from or to, or a group of nodes.groups) whose value is a list of
//   three or more consecutive node indices in ascending order becomes {"from": a, "to": b},
//   the scenario format's range form (docs/scenario-format.md).
// `original` may be null (no order known: byte order throughout).

#include <nlohmann/json.hpp>

namespace fdsim::cli {

nlohmann::ordered_json explain_layout(const nlohmann::json& resolved,
                                      const nlohmann::ordered_json* original);

}  // namespace fdsim::cli
