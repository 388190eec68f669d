#pragma once
// Loading a scenario document into the resolved configuration of every section.
//
// Contract:
// - Never throws and never stops at the first problem: every problem of the document is
//   reported, each as one line "<source>: <$.json.path>: <message>" (file-level problems:
//   "<source>: line 3, column 5: ...", "<source>: the file is empty", ...). With an empty
//   source name the prefix is left out ("$.path: message").
// - Every section is read by the parse function of the component that owns it (contracts.md),
//   through an ObjectReader positioned on that section; the loader calls finish() on it, so
//   every key nobody read is an "unknown key" error.
// - `resolved` is the whole document with every default written in: it is echoed in the result
//   manifest and its canonical dump is what the scenario hash is computed from.
// - Sections that depend on the node set (network, faults, models) are only parsed when the
//   `nodes` section itself is valid, to avoid a cascade of errors caused by one bad count.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/detectors/heartbeat_study_config.h"
#include "models/geode/config.h"
#include "models/jgroups/config.h"
#include "models/loadsharing/config.h"
#include "models/swim/config.h"
#include "sim/faults/config.h"
#include "sim/net/network.h"
#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/top_level.h"

namespace fdsim::run {

// Which model family provides the arms of a scenario (contracts.md, "Arms and runs").
enum class ArmFamily { load_sharing, membership, heartbeat_study, swim, jgroups };

struct Scenario {
  std::string source;    // file path or name, for messages
  std::string base_dir;  // directory of the scenario file (relative data files)
  scenario::TopLevel top;
  net::NetworkConfig network;
  faults::FaultsConfig faults;
  std::optional<geode::GeodeConfig> membership;
  // geode_ring arms with their own member_timeout_ms: arm index -> the membership section
  // parsed again with that member timeout (every default derived from M follows it).
  std::map<size_t, geode::GeodeConfig> membership_for_arm;
  std::optional<loadsharing::LoadSharingConfig> load_sharing;
  std::optional<detectors::HeartbeatStudyConfig> detectors;
  std::optional<swim::SwimConfig> swim;  // SWIM / Lifeguard (runs alone)
  std::optional<jgroups::JGroupsConfig> jgroups;  // JGroups FD / FD_ALL / FD_SOCK (runs alone)
  ArmFamily family = ArmFamily::membership;
  std::vector<std::string> arms;  // arm names in the order the scenario gives them
  nlohmann::json resolved;        // every section with every default
  // The cost estimate checked at validation (sim/scenario/cost_estimate.h): a command that
  // changes the replication count (run --replications, a sweep) checks the total again.
  scenario::CostEstimate cost;
};

struct LoadResult {
  std::shared_ptr<const Scenario> scenario;  // set iff problems is empty
  std::vector<std::string> problems;
  bool ok() const { return problems.empty() && scenario != nullptr; }
};

// Loads the file at `path` (base directory = the file's directory).
LoadResult load_scenario_file(const std::string& path,
                              std::set<std::string>* fields_read = nullptr);

// Loads an already-parsed document. `fields_read`, if given, receives the pattern paths of
// every field the loaders read ("$.faults[].at_s"), for the format-reference test; `recorder`,
// if given, the spec of every field read (sim/run/schema_explorer.h).
LoadResult load_scenario_json(const nlohmann::json& doc, const std::string& source_name,
                              const std::string& base_dir,
                              std::set<std::string>* fields_read = nullptr,
                              scenario::FieldRecorder* recorder = nullptr);

// The loader's last check (sim/scenario/cost_estimate.h): adds the terms only the whole
// scenario gives (state per node, messages in flight, stored samples over the horizon), then
// records a refusal on the path of the largest term when the estimate exceeds the limits.
void finish_cost_estimate(Scenario& s, scenario::Diagnostics& diag);

// Directory part of a path ("" -> ".", "a/b.json" -> "a").
std::string directory_of(const std::string& path);

}  // namespace fdsim::run
