#include "sim/cli/summary.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

namespace fdsim::cli {

namespace {

// Headline metrics of the models, most telling first (dotted paths into an arm's metrics).
const std::vector<std::string>& preferred() {
  static const std::vector<std::string> names = {
      "dynamic_failure_ratio",          // load sharing
      "response_time_mean_s",           // load sharing
      "detection_removal_s.mean",       // membership: crash to removal
      "false_removals_count",           // membership
      "false_suspicions_count",         // membership, load sharing
      "detection_time_mean_s",          // heartbeat detectors, load sharing
      "mistake_rate_per_s",             // heartbeat detectors
      "query_accuracy_ratio",           // heartbeat detectors
      "views_installed_count"};         // membership
  return names;
}

const nlohmann::json* find_path(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* cur = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

std::string format_value(const nlohmann::json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (!std::isfinite(v.get<double>())) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
  return buf;
}

}  // namespace

std::string headline_metrics(const nlohmann::json& arm_metrics, size_t max_items) {
  std::string out;
  std::set<std::string> used;
  size_t n = 0;
  auto add = [&](const std::string& name, const nlohmann::json& v) {
    if (n >= max_items || used.count(name) || !v.is_number()) return;
    used.insert(name);
    if (!out.empty()) out += ' ';
    out += name + "=" + format_value(v);
    ++n;
  };
  for (const auto& name : preferred())
    if (const nlohmann::json* v = find_path(arm_metrics, name)) add(name, *v);
  if (n == 0 && arm_metrics.is_object())  // a model without headline metrics
    for (auto it = arm_metrics.begin(); it != arm_metrics.end(); ++it) add(it.key(), it.value());
  return out.empty() ? "(no numeric top-level metric)" : out;
}

}  // namespace fdsim::cli
