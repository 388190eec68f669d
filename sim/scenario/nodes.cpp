#include "sim/scenario/nodes.h"

#include <algorithm>
#include <vector>

#include "sim/scenario/suggest.h"

namespace fdsim::scenario {

namespace {

constexpr int64_t kMaxNodes = 10'000'000;

// Charges `n` node indices to the scenario's budget (kMaxNodeSetEntries); false (and one
// problem at `path`) when it would be exceeded.
bool charge(size_t n, const std::string& path, const NodesConfig& nodes, Diagnostics& diag) {
  if (nodes.node_set_entries > kMaxNodeSetEntries ||
      n > kMaxNodeSetEntries - nodes.node_set_entries) {
    if (nodes.node_set_entries <= kMaxNodeSetEntries) {
      diag.add(path, "the node sets of this scenario name more than the limit of " +
                         std::to_string(kMaxNodeSetEntries) +
                         " node indices in all; use fewer or smaller sets");
      nodes.node_set_entries = kMaxNodeSetEntries + 1;  // report once
    }
    return false;
  }
  nodes.node_set_entries += n;
  return true;
}

// Adds the nodes named by one JSON value to `out` (unsorted, possibly repeated: callers sort
// and de-duplicate); reports problems at `path`.
void collect(const json& v, const std::string& path, const NodesConfig& nodes, Diagnostics& diag,
             std::vector<NodeId>& out, bool allow_list) {
  auto valid_index = [&](const json& e, const std::string& p) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0 ||
        e.get<int64_t>() >= int64_t(nodes.count)) {
      diag.add(p, "expected a node index >= 0 and <= " + std::to_string(int64_t(nodes.count) - 1) +
                      ", got " + describe(e));
      return false;
    }
    return true;
  };
  auto add_index = [&](const json& e, const std::string& p) {
    if (valid_index(e, p) && charge(1, p, nodes, diag)) out.push_back(NodeId(e.get<int64_t>()));
  };
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "all") {
      if (!charge(nodes.count, path, nodes, diag)) return;
      for (size_t i = 0; i < nodes.count; ++i) out.push_back(NodeId(i));
      return;
    }
    auto it = nodes.groups.find(s);
    if (it == nodes.groups.end()) {
      std::string names = "\"all\"";
      for (auto& [name, _] : nodes.groups) names += ", \"" + name + "\"";
      diag.add(path, "expected a node index, \"all\" or a group name (" + names + "), got " +
                         describe(v));
      return;
    }
    if (!charge(it->second.size(), path, nodes, diag)) return;
    out.insert(out.end(), it->second.begin(), it->second.end());
  } else if (v.is_number()) {
    add_index(v, path);
  } else if (v.is_object()) {
    const json* from = v.contains("from") ? &v["from"] : nullptr;
    const json* to = v.contains("to") ? &v["to"] : nullptr;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it.key() != "from" && it.key() != "to")
        diag.add(path + "." + it.key(), unknown_key_message(it.key(), {"from", "to"}));
    if (!from || !to) {
      diag.add(path, "a node range needs both \"from\" and \"to\"");
      return;
    }
    const bool from_ok = valid_index(*from, path + ".from");
    const bool to_ok = valid_index(*to, path + ".to");
    if (!from_ok || !to_ok) return;
    const int64_t a = from->get<int64_t>(), b = to->get<int64_t>();
    if (a > b) {
      diag.add(path, "expected \"from\" <= \"to\", got " + std::to_string(a) + " > " +
                         std::to_string(b));
      return;
    }
    if (!charge(size_t(b - a + 1), path, nodes, diag)) return;
    for (int64_t i = a; i <= b; ++i) out.push_back(NodeId(i));
  } else if (v.is_array() && allow_list) {
    for (size_t i = 0; i < v.size(); ++i)
      collect(v[i], path + "[" + std::to_string(i) + "]", nodes, diag, out, false);
  } else {
    diag.add(path, "expected a node set (\"all\", a group name, a node index, a list, or "
                   "{\"from\", \"to\"}), got " + describe(v));
  }
}

void sort_unique(std::vector<NodeId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

NodesConfig parse_nodes(ObjectReader& r) {
  NodesConfig cfg;
  const size_t problems_before = r.diagnostics().problems.size();
  cfg.count = size_t(r.required_integer("count", 1, kMaxNodes));
  const json* groups = r.raw("groups");
  r.consume("groups");
  {
    FieldSpec spec;
    spec.type = FieldSpec::Type::node_set_map;
    spec.has_default = true;
    spec.def = json::object();
    r.declare("groups", std::move(spec));
  }
  if (r.diagnostics().problems.size() != problems_before) {
    // Without a valid count no node index can be checked: say nothing more than the count's
    // problem rather than reporting every index as out of range.
    r.consume("locators");
    return cfg;
  }
  json resolved_groups = json::object();
  if (groups != nullptr) {
    if (!groups->is_object()) {
      r.error("groups", "expected an object mapping group names to node sets, got " +
                            describe(*groups));
    } else {
      for (auto it = groups->begin(); it != groups->end(); ++it) {
        if (it.key() == "all") {
          r.diagnostics().add(r.child_path("groups") + ".all", "\"all\" is reserved");
          continue;
        }
        std::vector<NodeId> members;
        collect(it.value(), r.child_path("groups") + "." + it.key(), cfg, r.diagnostics(),
                members, true);
        sort_unique(members);
        cfg.groups[it.key()] = std::move(members);
        resolved_groups[it.key()] = cfg.groups[it.key()];
      }
    }
  }
  r.set_resolved("groups", resolved_groups);
  cfg.locators = parse_node_set(r, "locators", cfg);
  return cfg;
}

std::vector<NodeId> parse_node_set(ObjectReader& r, std::string_view key, const NodesConfig& nodes,
                                   bool def_all, bool required) {
  const json* v = r.raw(key);
  r.consume(key);
  {
    FieldSpec spec;
    spec.type = FieldSpec::Type::node_set;
    spec.required = required;
    spec.has_default = !required;
    if (!required) spec.def = def_all ? json("all") : json::array();
    r.declare(key, std::move(spec));
  }
  std::vector<NodeId> list;
  if (v == nullptr) {
    if (required) r.error(key, "required field is missing (expected a node set)");
    if (def_all && charge(nodes.count, r.child_path(key), nodes, r.diagnostics()))
      for (size_t i = 0; i < nodes.count; ++i) list.push_back(NodeId(i));
  } else {
    collect(*v, r.child_path(key), nodes, r.diagnostics(), list, true);
  }
  sort_unique(list);
  r.set_resolved(key, list);
  return list;
}

}  // namespace fdsim::scenario
