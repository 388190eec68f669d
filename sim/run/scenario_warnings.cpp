#include "sim/run/scenario_warnings.h"

#include <algorithm>


namespace fdsim::run {

namespace {

bool has(const std::vector<NodeId>& v, NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}

// The first fault entry that can take node n down, as text for the warning; empty if none.
std::string fault_that_crashes(const faults::FaultsConfig& f, NodeId n) {
  for (const faults::ScheduledFault& s : f.scheduled)
    if (s.kind == faults::FaultKind::crash && has(s.nodes, n)) return "a scheduled crash";
  for (const faults::CrashProcess& p : f.crash_processes)
    if (has(p.nodes, n)) return "a crash_process";
  for (const faults::CrashProcess& p : f.group_crash_processes)
    if (has(p.nodes, n)) return "a group_crash_process";
  for (const faults::CrashStorm& c : f.crash_storms)
    if (has(c.nodes, n)) return "a crash_storm";
  if (f.churn && (has(f.churn->nodes, n) || has(f.churn->spare, n))) return "churn";
  return {};
}

}  // namespace

std::vector<std::string> scenario_warnings(const Scenario& s) {
  std::vector<std::string> out;
  // A Geode ring (membership, in any arm) with one locator a fault can take down.
  const std::vector<NodeId> no_locators;
  const std::vector<NodeId>& locators = s.membership ? s.membership->locators : no_locators;
  if (locators.size() == 1) {
    const NodeId l = locators.front();
    const std::string why = fault_that_crashes(s.faults, l);
    if (!why.empty())
      out.push_back(
          "$.nodes.locators: the Geode membership has a single locator, node " +
          std::to_string(l) + ", and " + why +
          " can take it down: while it is down no member can join or reconnect (joiners learn "
          "the coordinator from a locator), and under the wiki profile suspicions reach a "
          "non-locator coordinator only by chance, so crashes can go undetected and the view "
          "shrink; name two or more locators to model a production cluster "
          "(docs/models/geode-membership.md, \"A single locator\")");
  }
  return out;
}

}  // namespace fdsim::run
