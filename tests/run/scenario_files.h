#pragma once
// The shipped scenario files (scenarios/**/*.json) that tests load and run: every JSON file
// that is a scenario, i.e. not a sweep file (an object with "base" or "axes") and not under
// scenarios/bench/ (benchmark inputs for bench/, not scenario documents, and large).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::test {

inline bool is_sweep_document(const nlohmann::json& doc) {
  return doc.is_object() && (doc.contains("axes") || doc.contains("base"));
}

// Paths relative to the source directory, sorted.
inline std::vector<std::string> shipped_scenarios() {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(FDSIM_SOURCE_DIR) / "scenarios";
  std::vector<std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const std::string rel = fs::relative(e.path(), FDSIM_SOURCE_DIR).string();
    if (rel.rfind("scenarios/bench/", 0) == 0) continue;
    std::ifstream in(e.path());
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_discarded() && is_sweep_document(doc)) continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "scenarios/examples/geode/crash_member.json" -> "examples_geode_crash_member" (a test name).
inline std::string test_name_of(std::string rel) {
  if (rel.rfind("scenarios/", 0) == 0) rel = rel.substr(10);
  if (rel.size() > 5 && rel.substr(rel.size() - 5) == ".json") rel.resize(rel.size() - 5);
  for (char& c : rel)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  return rel;
}

}  // namespace fdsim::test
