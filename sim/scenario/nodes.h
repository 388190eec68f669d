#pragma once
// The `nodes` section: how many nodes, named groups, and roles.
//
// {"count": 10, "groups": {"east": [0, 1, 2], "west": {"from": 3, "to": 9}},
//  "locators": [0], "lead": null}
// Node sets elsewhere in the scenario ("nodes": ...) are written as "all", a group name, a
// list of node indices and/or group names, or {"from": a, "to": b} (inclusive); see
// parse_node_set().

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/ids.h"
#include "sim/scenario/reader.h"

namespace fdsim::scenario {

// The most node indices all the node sets of one scenario may name together (each set counts
// its expanded size: "all" counts nodes.count). It bounds the memory of expanding node sets
// (about 40 bytes an index with its resolved-config copy: under 0.7 GiB) whatever the file
// says: fifty {"from": 0, "to": 9999999} groups are refused instead of taking gigabytes.
inline constexpr size_t kMaxNodeSetEntries = size_t{16} << 20;

struct NodesConfig {
  size_t count = 0;
  std::map<std::string, std::vector<NodeId>> groups;  // sorted, de-duplicated members
  std::vector<NodeId> locators;                       // Geode locators (quorum weight 3)
  // Node indices named so far by this scenario's node sets (see kMaxNodeSetEntries).
  mutable size_t node_set_entries = 0;
};

// Reads the `nodes` section (r reads that object).
NodesConfig parse_nodes(ObjectReader& r);

// Reads r[key] as a node set (sorted, unique). Absent -> `def_all` ? every node : empty.
// Writes the resolved list of indices into the resolved config.
std::vector<NodeId> parse_node_set(ObjectReader& r, std::string_view key, const NodesConfig& nodes,
                                   bool def_all = false, bool required = false);

}  // namespace fdsim::scenario
