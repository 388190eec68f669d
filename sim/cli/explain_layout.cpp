#include "sim/cli/explain_layout.h"

#include <array>
#include <set>
#include <string>
#include <string_view>

namespace fdsim::cli {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

bool is_node_set_key(std::string_view key) {
  static constexpr std::array<std::string_view, 9> kKeys = {
      "nodes", "members", "locators", "senders", "monitors", "a", "b", "from", "to"};
  for (std::string_view k : kKeys)
    if (k == key) return true;
  return false;
}

// {"from": a, "to": b} if v lists three or more consecutive indices in ascending order.
bool as_range(const json& v, ordered_json* out) {
  if (!v.is_array() || v.size() < 3) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned()) return false;
    if (i > 0 && v[i].get<uint64_t>() != v[i - 1].get<uint64_t>() + 1) return false;
  }
  *out = ordered_json{{"from", v.front().get<uint64_t>()}, {"to", v.back().get<uint64_t>()}};
  return true;
}

ordered_json layout(const json& v, const ordered_json* original, bool node_set, bool groups) {
  ordered_json range;
  if (node_set && as_range(v, &range)) return range;
  if (v.is_object()) {
    ordered_json out = ordered_json::object();
    std::set<std::string> done;
    auto add = [&](const std::string& key) {
      const ordered_json* orig = nullptr;
      if (original && original->is_object() && original->contains(key)) orig = &(*original)[key];
      out[key] = layout(v[key], orig, groups || is_node_set_key(key), key == "groups");
      done.insert(key);
    };
    if (original && original->is_object())
      for (auto it = original->begin(); it != original->end(); ++it)
        if (v.contains(it.key())) add(it.key());
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!done.count(it.key())) add(it.key());
    return out;
  }
  if (v.is_array()) {
    ordered_json out = ordered_json::array();
    for (size_t i = 0; i < v.size(); ++i) {
      const ordered_json* orig = original && original->is_array() && i < original->size()
                                     ? &(*original)[i]
                                     : nullptr;
      out.push_back(layout(v[i], orig, false, false));
    }
    return out;
  }
  return ordered_json::parse(v.dump());
}

}  // namespace

ordered_json explain_layout(const json& resolved, const ordered_json* original) {
  return layout(resolved, original, false, false);
}

}  // namespace fdsim::cli
