#include "models/detectors/heartbeat_study_config.h"

#include <algorithm>
#include <set>
#include <utility>

#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::detectors {

std::vector<std::string> HeartbeatStudyConfig::arm_names() const {
  std::vector<std::string> names;
  for (const auto& a : arms) names.push_back(a.name);
  return names;
}

namespace {
// State of one monitoring pair before its detectors: the set node and the vector entry of the
// expansion, the sender's schedule share and the monitor's arrival record (measured order of
// magnitude, cost_estimate.h).
constexpr double kBytesPerPair = 400.0;
// Per pair and arm: the detector object and its history of `window` inter-arrival times.
constexpr double kBytesPerDetector = 256.0;
constexpr double kBytesPerHistoryEntry = 16.0;

size_t history_length(const DetectorConfig& d) {
  switch (d.kind) {
    case DetectorKind::nfd_e: return d.nfd_e_window;
    case DetectorKind::phi_accrual: return d.phi.window;
    case DetectorKind::exponential_accrual: return d.exponential.window;
    case DetectorKind::bertier: return d.bertier.window;
    default: return 1;
  }
}

// For the schema: the bound nodes.count - 1 depends on the scenario, so only the minimum is
// stated (the description gives the rest).
scenario::FieldSpec node_index_spec(bool required, int64_t min) {
  scenario::FieldSpec s;
  s.type = scenario::FieldSpec::Type::integer;
  s.min = min;
  s.required = required;
  s.has_default = !required;
  if (!required) s.def = 1;
  return s;
}
}  // namespace

HeartbeatStudyConfig parse_heartbeat_study_config(scenario::ObjectReader& r,
                                                  const scenario::NodesConfig& nodes) {
  HeartbeatStudyConfig c;
  const int64_t n = int64_t(nodes.count);
  std::set<std::pair<NodeId, NodeId>> pairs;

  r.at_most_one_of({"pairs", "senders"});
  r.at_most_one_of({"pairs", "monitors_per_sender"});
  // The pairs are counted before they are expanded (issue 24): 10 000 nodes with 9 999
  // monitors each is a 200-byte file but 1e8 pairs, refused here with the estimate instead of
  // exhausting memory in the expansion (cost_estimate.h).
  const auto too_many = [&](std::string_view key, double count, const std::string& formula) {
    return scenario::refuse_memory(r, key, count * kBytesPerPair,
                                   formula + " " + scenario::rate_text(count) +
                                       " monitoring pairs x " +
                                       scenario::rate_text(kBytesPerPair) + " B");
  };
  if (r.has("pairs")) {
    std::vector<std::pair<NodeId, std::vector<NodeId>>> entries;
    double named = 0;  // monitors named over every entry (an upper bound on the pairs)
    r.objects("pairs", [&](scenario::ObjectReader& p, size_t) {
      const int64_t sender = p.required_integer("sender", 0, std::max<int64_t>(0, n - 1));
      p.declare("sender", node_index_spec(true, 0));
      std::vector<NodeId> monitors = scenario::parse_node_set(p, "monitors", nodes, false, true);
      for (NodeId m : monitors)
        if (int64_t(m) == sender)
          p.error("monitors", "a node cannot monitor itself (node " + std::to_string(m) + ")");
      named += double(monitors.size());
      entries.emplace_back(NodeId(sender), std::move(monitors));
    });
    if (!too_many("pairs", named, "up to")) {
      for (const auto& [sender, monitors] : entries)
        for (NodeId m : monitors)
          if (m != sender) pairs.insert({sender, m});
    }
    if (pairs.empty() && r.diagnostics().ok())
      r.error("pairs", "expected at least one monitoring pair");
    r.consume("senders");  // already reported by at_most_one_of() if present
    r.consume("monitors_per_sender");
  } else {
    const std::vector<NodeId> senders = scenario::parse_node_set(r, "senders", nodes, true);
    const int64_t k = r.integer("monitors_per_sender", 1, 1, std::max<int64_t>(1, n - 1));
    r.declare("monitors_per_sender", node_index_spec(false, 1));
    if (n < 2) r.error("the heartbeat study needs at least 2 nodes (nodes.count)");
    if (senders.empty() && r.has("senders")) r.error("senders", "expected at least one sender");
    const double count = double(senders.size()) * double(k);
    if (n >= 2 && k <= n - 1 &&
        !too_many("monitors_per_sender", count,
                  "senders " + std::to_string(senders.size()) + " x monitors_per_sender " +
                      std::to_string(k) + " =")) {
      for (NodeId s : senders)
        for (int64_t j = 0; j < k; ++j) pairs.insert({s, NodeId((int64_t(s) + 1 + j) % n)});
    }
  }
  for (const auto& [s, m] : pairs) c.pairs.push_back({s, m});

  c.heartbeat_period = Duration::from_ms(r.positive("heartbeat_period_ms", 1000, 0.0, 1e9));
  if (c.heartbeat_period <= Duration::zero())
    r.error("heartbeat_period_ms", "expected at least one nanosecond");
  c.heartbeat_bytes = uint32_t(r.integer("heartbeat_bytes", 64, 0, 1 << 30));
  c.send_jitter = r.duration_ms("send_jitter_ms", 0, 0.0, 1e9);
  if (c.send_jitter * 2 >= c.heartbeat_period && c.heartbeat_period > Duration::zero())
    r.error("send_jitter_ms", "expected less than half the heartbeat period (" +
                                  std::to_string(c.heartbeat_period.millis() / 2) + " ms)");
  c.random_phase = r.boolean("random_phase", true);
  c.clock_drift_ppm = r.number("clock_drift_ppm", 0.0, -1e5, 1e5);
  c.clock_offset = Duration::from_ms(r.number("clock_offset_ms", 0.0, -1e12, 1e12));

  std::set<std::string> names;
  r.objects("arms", [&](scenario::ObjectReader& a, size_t) {
    StudyArm arm;
    arm.name = a.required_string("name");
    if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty name");
    if (!arm.name.empty() && !names.insert(arm.name).second)
      a.error("name", "duplicate arm name \"" + arm.name + "\"");
    {
      scenario::FieldSpec spec;
      spec.type = scenario::FieldSpec::Type::object;
      spec.required = true;
      a.declare("detector", std::move(spec));
    }
    if (!a.has("detector")) a.error("detector", "required field is missing (expected an object)");
    a.object("detector", [&](scenario::ObjectReader& d) {
      if (d.present()) arm.detector = parse_detector_config(d);
    });
    c.arms.push_back(std::move(arm));
  });
  {
    scenario::FieldSpec spec;
    spec.type = scenario::FieldSpec::Type::object_array;
    spec.required = true;
    r.declare("arms", std::move(spec));
  }
  if (!r.has("arms"))
    r.error("arms", "required field is missing (expected an array of {\"name\", \"detector\"})");
  else if (c.arms.empty() && r.raw("arms")->is_array())
    r.error("arms", "expected at least one arm");

  // The event-rate budget (sim/scenario/event_rate.h), an upper bound: every pair's heartbeat
  // is at most three kinds of event per period: its send (one per sender, at most one per
  // pair), its delivery, and one deadline per arm (each detector's watchdog fires at most
  // once per heartbeat: sim/engine/watchdog.h); one simulation serves every arm.
  scenario::check_period(r, "heartbeat_period_ms", c.heartbeat_period, double(c.pairs.size()),
                         "monitoring pairs " + std::to_string(c.pairs.size()),
                         2.0 + double(c.arms.size()),
                         std::to_string(2 + c.arms.size()) + " events (send, delivery, " +
                             std::to_string(c.arms.size()) + " deadlines)");

  // The memory of the pairs and of every arm's detector on each (cost_estimate.h).
  double per_pair = kBytesPerPair;
  for (const StudyArm& a : c.arms)
    per_pair += kBytesPerDetector + kBytesPerHistoryEntry * double(history_length(a.detector));
  const double pair_count = double(c.pairs.size());
  scenario::add_memory(r, r.has("pairs") ? "pairs" : "monitors_per_sender", pair_count * per_pair,
                       "monitoring pairs " + scenario::rate_text(pair_count) + " x " +
                           scenario::rate_text(per_pair) + " B (pair state and " +
                           std::to_string(c.arms.size()) + " detectors with their history)");
  return c;
}

}  // namespace fdsim::detectors
