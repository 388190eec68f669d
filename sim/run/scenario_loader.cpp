#include "sim/run/scenario_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "models/geode/cost_bound.h"
#include "models/loadsharing/cost_bound.h"
#include "models/swim/memory_bound.h"
#include "sim/net/config.h"
#include "sim/scenario/event_rate.h"
#include "sim/scenario/json_document.h"
#include "sim/scenario/reader.h"

namespace fdsim::run {

using nlohmann::json;
using scenario::Diagnostics;
using scenario::ObjectReader;

namespace {

std::string prefixed(const std::string& source, const std::string& line) {
  return source.empty() ? line : source + ": " + line;
}

// Reports a duplicate arm name (arm names key the metrics map, so they must be unique).
void check_unique_arms(const std::vector<std::string>& names, const std::string& section_path,
                       Diagnostics& diag) {
  std::map<std::string, int> seen;
  for (const auto& n : names) {
    if (++seen[n] == 2) {
      diag.add(section_path, "arm names must be unique; \"" + n + "\" is used more than once");
    }
  }
}

// Cross-section contracts of the hou_shin arms (issue 24), checked at validation because a
// model would otherwise meet them only inside a run: the silence chain of hou_shin needs every
// link's loss (or loss_allowance) < 1, and the extra-broadcast arms tolerate
// k = ceil(ln(alpha / 2) / ln(loss)) missing broadcasts (loss_tolerance.h), at most
// kMaxToleratedBroadcasts (near loss 1, k grew to 3e16 and counting it hung the loader).
constexpr double kMaxToleratedBroadcasts = 1000;

void check_hou_shin_losses(const Scenario& s, Diagnostics& diag) {
  const loadsharing::LoadSharingConfig& ls = *s.load_sharing;
  double loss = s.network.loss;
  const char* where = "$.network.loss";
  for (const net::LinkOverride& o : s.network.overrides)
    if (o.loss && *o.loss > loss) {
      loss = *o.loss;
      where = "$.network.links";
    }
  if (ls.loss_allowance) {
    loss = *ls.loss_allowance;
    where = "$.load_sharing.loss_allowance";
  }
  for (const loadsharing::ArmConfig& arm : ls.arms) {
    if (!arm.needs_t_out()) continue;
    if (loss >= 1.0) {
      diag.add(where, "arm \"" + arm.name +
                          "\" computes T_out from the loss probability, which must be < 1 on "
                          "every link (or set load_sharing.loss_allowance < 1)");
      return;
    }
    if (arm.sends_extra() && loss > 0.0) {
      const double k = std::ceil(std::log(arm.alpha / 2) / std::log(loss));
      if (!(k <= kMaxToleratedBroadcasts)) {
        diag.add(where, "arm \"" + arm.name + "\" would tolerate " + scenario::rate_text(k) +
                            " missing broadcasts at loss " + scenario::rate_text(loss) +
                            " (alpha " + scenario::rate_text(arm.alpha) + "); at most " +
                            scenario::rate_text(kMaxToleratedBroadcasts) +
                            " are supported: lower the loss or raise alpha");
        return;
      }
    }
  }
}

// geode_ring arms that set member_timeout_ms run the membership section parsed again with that
// value in place of the section's own, so every default derived from M (ping and view timers,
// join and reconnect waits) follows it, exactly as if the section had said it. The re-parse
// writes nothing to the resolved config (the arm's own entry shows the value) and adds no cost
// terms; its problems are reported on the arm's key.
void parse_arm_memberships(const json& doc, Scenario& s, Diagnostics& diag) {
  const json* section = doc.contains("membership") ? &doc["membership"] : nullptr;
  if (section == nullptr || !section->is_object()) return;
  const auto& arms = s.load_sharing->arms;
  for (size_t a = 0; a < arms.size(); ++a) {
    if (arms[a].diagnosis != loadsharing::DiagnosisKind::geode_ring ||
        arms[a].member_timeout == Duration{})
      continue;
    json copy = *section;
    copy["member_timeout_ms"] = arms[a].member_timeout.millis();
    Diagnostics scratch;
    json resolved = json::object();
    ObjectReader r(&copy, "$.membership", scratch, resolved);
    geode::GeodeConfig cfg = geode::parse_geode_config(r, s.top.nodes);
    r.finish();
    if (!scratch.ok()) {
      diag.add("$.load_sharing.arms[" + std::to_string(a) + "].member_timeout_ms",
               "the membership section with this member timeout is invalid: " +
                   scratch.problems.front().str());
      continue;
    }
    s.membership_for_arm.emplace(a, std::move(cfg));
  }
}

// The arms (contracts.md, "Arms and runs"): the load-sharing arms if load sharing is present
// (with the membership rules), else the Geode arms, else the heartbeat study's arms.
void choose_arms(Scenario& s, const scenario::ModelSections& sections, Diagnostics& diag) {
  if (s.load_sharing) {
    check_hou_shin_losses(s, diag);
    s.family = ArmFamily::load_sharing;
    s.arms = s.load_sharing->arm_names();
    check_unique_arms(s.arms, "$.load_sharing", diag);
    std::vector<std::string> needing;
    for (size_t a = 0; a < s.arms.size(); ++a)
      if (s.load_sharing->arm_needs_membership(a)) needing.push_back(s.arms[a]);
    if (!needing.empty() && !sections.membership) {
      diag.add("$.load_sharing",
               "arm \"" + needing.front() +
                   "\" uses the membership view (diagnosis \"geode_ring\"), which needs a "
                   "'membership' section; none is present");
    }
    if (!needing.empty() && s.membership && s.membership->arms.size() > 1) {
      diag.add("$.membership.neighbour_check",
               "a load-sharing scenario runs one membership variant (the arms are the "
               "load-sharing arms); give at most one neighbour_check arm, got " +
                   std::to_string(s.membership->arms.size()));
    }
    if (needing.empty() && sections.membership) {
      diag.add("$.membership",
               "not used: no load-sharing arm uses the membership view (diagnosis "
               "\"geode_ring\"); remove the section or add such an arm");
    }
  }
  if (s.arms.empty() && s.membership) {
    s.family = ArmFamily::membership;
    s.arms = s.membership->arm_names();
    check_unique_arms(s.arms, "$.membership", diag);
  }
  if (s.arms.empty() && s.swim) {
    s.family = ArmFamily::swim;
    s.arms = s.swim->arm_names();
    check_unique_arms(s.arms, "$.swim", diag);
  }
  if (s.arms.empty() && s.jgroups) {
    s.family = ArmFamily::jgroups;
    s.arms = s.jgroups->arm_names();
    check_unique_arms(s.arms, "$.jgroups", diag);
  }
  if (s.arms.empty() && s.detectors) {
    s.family = ArmFamily::heartbeat_study;
    s.arms = s.detectors->arm_names();
    check_unique_arms(s.arms, "$.detectors", diag);
  }
  if (diag.ok() && s.arms.empty()) diag.add("$", "the scenario defines no arm to run");
}

// Churn (sim/faults/churn.h) needs a model with joins: the Geode ring (membership family) and
// SWIM (memberlist's Join and Leave, models/swim/README.md "Churn") have them. Load sharing
// (also over a Geode ring: its nodes are the servers, which the Hou-Shin model does not let
// come and go), the heartbeat detectors and the JGroups ring reject it at the churn entry's
// kind.
void check_churn_model(const Scenario& s, Diagnostics& diag) {
  const char* model = nullptr;
  switch (s.family) {
    case ArmFamily::membership:
    case ArmFamily::swim: return;
    case ArmFamily::load_sharing: model = "load sharing"; break;
    case ArmFamily::heartbeat_study: model = "the heartbeat detector study"; break;
    case ArmFamily::jgroups: model = "the JGroups ring"; break;
  }
  diag.add("$.faults[" + std::to_string(s.faults.churn_entry) + "].kind",
           std::string("churn needs a model with joins (the Geode ring, 'membership', or SWIM, "
                       "'swim'); ") +
               model + " has no joins");
}

// SWIM's churn state (models/swim/memory_bound.h, swim_churn_bytes), on the churn entry.
void add_swim_churn_memory(Scenario& s) {
  if (s.family != ArmFamily::swim || !s.faults.churn || !s.swim) return;
  const faults::ChurnProcess& ch = *s.faults.churn;
  const double n = double(s.top.nodes.count);
  const double ticks = std::floor(std::min(s.top.horizon_s, 1e9) * 1e9 /
                                  double(s.swim->probe_interval.count_ns()));
  const double spare = double(ch.spare.size());
  const double slots = double(ch.nodes.size() + ch.spare.size());
  // The churn records' check (models/swim/swim_metrics.cpp, check_churn_records): at every
  // change of a view it looks at every leave and join record and, for the open ones, at up
  // to n views; one work unit per 64 looked at. Records <= (leaves + joins) over the horizon.
  const double horizon_s = std::min(s.top.horizon_s, 1e9);
  double records = 0;
  if (ch.session && ch.session->mean_s() > 0)
    records += double(ch.nodes.size() + ch.spare.size()) * horizon_s / ch.session->mean_s();
  if (ch.join && ch.join->mean_s() > 0) records += horizon_s / ch.join->mean_s();
  records = std::min(records, 1e15);
  const double per_change = records * (1.0 + n) / 64.0;
  const double churn_work_per_s = s.cost.events_per_s * per_change;
  s.cost.work_per_s += churn_work_per_s;
  if (!(churn_work_per_s <= s.cost.events_largest)) {
    s.cost.events_largest = churn_work_per_s;
    s.cost.events_path = "$.faults[" + std::to_string(s.faults.churn_entry) + "]";
  }
  scenario::add_memory(
      s.cost, "$.faults[" + std::to_string(s.faults.churn_entry) + "]",
      swim::swim_churn_bytes(n, ticks, spare, slots) + records * (n + 64.0),
      "SWIM churn: " + std::to_string(ch.spare.size()) + " spare slots (explicit probe orders, " +
          "4 B x n + 5.2 kB per member, and 64 B x spare per member) + " +
          std::to_string(ch.nodes.size() + ch.spare.size()) +
          " joining slots x (64 B x n + 2.5 kB), n = " + std::to_string(s.top.nodes.count));
}

// The largest mean one-way delay of any link, in seconds (default latency and overrides); a
// latency law with an infinite mean counts its draws' cap (1e8 s, latency.cpp).
double largest_mean_delay_s(const net::NetworkConfig& n) {
  constexpr double kLatencyCapS = 1e8;
  double worst = 0;
  const auto consider = [&](const std::shared_ptr<const net::LatencyModel>& l) {
    if (!l) return;
    const double m = l->mean_ms() / 1e3;
    worst = std::max(worst, std::isfinite(m) ? std::min(m, kLatencyCapS) : kLatencyCapS);
  };
  consider(n.latency);
  for (const net::LinkOverride& o : n.overrides) consider(o.latency);
  return worst;
}

// Per node, whatever the model: the host entry, the network's per-node entry and its two
// mt19937_64 streams (2 x 2.5 kB once the node sends), the fault injector's streams.
constexpr double kBytesPerNode = 8e3;

}  // namespace

void finish_cost_estimate(Scenario& s, Diagnostics& diag) {
  scenario::CostEstimate& c = s.cost;
  const double n = double(s.top.nodes.count);
  c.horizon_s = s.top.horizon_s;
  if (s.load_sharing) {
    // Per-task events, queue scans, queued tasks and buddy state (models/loadsharing/
    // cost_bound.h): bounds that need the horizon.
    // The links' loss probabilities and delay allowances (the largest of each), as the model
    // derives them (loadsharing_model.cpp): a loss model by its stationary rate, a latency law
    // by q99 - min, at most 1e9 ms.
    double loss_values = 1, max_loss = s.network.loss, max_allowance_s = 0;
    if (s.network.loss_model) max_loss = std::max(max_loss, s.network.loss_model->stationary_loss());
    const auto allowance_s = [](const net::LatencyModel& m) {
      return std::min(1e9, std::max(0.0, m.quantile_ms(0.99) - m.min_ms())) / 1e3;
    };
    if (s.network.latency) max_allowance_s = allowance_s(*s.network.latency);
    for (const net::LinkOverride& o : s.network.overrides) {
      if (o.loss || o.loss_model) ++loss_values;
      if (o.loss) max_loss = std::max(max_loss, *o.loss);
      if (o.loss_model) max_loss = std::max(max_loss, o.loss_model->stationary_loss());
      if (o.latency) max_allowance_s = std::max(max_allowance_s, allowance_s(*o.latency));
    }
    const loadsharing::LoadSharingCost ls = loadsharing::load_sharing_cost_bound(
        *s.load_sharing, s.top.horizon_s, loss_values, max_loss, max_allowance_s);
    c.events_per_s += ls.events_per_s;
    c.work_per_s += ls.work_per_s;
    if (!(ls.events_per_s + ls.work_per_s <= c.events_largest)) {
      c.events_largest = ls.events_per_s + ls.work_per_s;
      // Named after the T_out chains when their computations are most of it (a CET mapping
      // of many states at a large estimated rate: cost_bound.h).
      c.events_path = ls.t_out_work_per_s > 0.5 * c.events_largest ? "$.load_sharing.load_index"
                                                                   : "$.workload";
    }
    scenario::add_memory(c, "$.workload", ls.queue_bytes, ls.queue_formula);
    scenario::add_memory(c, "$.load_sharing.buddy_size", ls.buddy_bytes, ls.buddy_formula);
    if (ls.t_out_bytes > 0)
      scenario::add_memory(c, "$.load_sharing.load_index", ls.t_out_bytes,
                           ls.t_out_bytes_formula);
  }
  if (s.membership) {
    // What suspicions cost (models/geode/cost_bound.h): it follows the faults and the network.
    // A load-sharing arm with its own member timeout runs its own membership configuration:
    // the largest of them counts (one simulation per arm).
    const double delay_s = largest_mean_delay_s(s.network);
    geode::GeodeCost g = geode::geode_cost_bound(*s.membership, s.faults, s.network,
                                                 s.top.nodes.count, s.top.horizon_s, delay_s);
    for (const auto& [arm, cfg] : s.membership_for_arm) {
      const geode::GeodeCost a =
          geode::geode_cost_bound(cfg, s.faults, s.network, s.top.nodes.count, s.top.horizon_s,
                                  delay_s);
      if (!(a.events_per_s + a.work_per_s <= g.events_per_s + g.work_per_s)) g = a;
    }
    c.events_per_s += g.events_per_s;
    c.work_per_s += g.work_per_s;
    scenario::add_memory(c, "$.membership", g.held_bytes, g.held_formula);
    if (!(g.events_per_s + g.work_per_s <= c.events_largest)) {
      c.events_largest = g.events_per_s + g.work_per_s;
      c.events_path = "$.membership";
    }
  }
  c.replications = double(s.top.replications);
  c.simulations =
      s.family == ArmFamily::heartbeat_study ? 1.0 : double(std::max<size_t>(1, s.arms.size()));
  scenario::add_memory(c, "$.nodes.count", n * kBytesPerNode,
                       "nodes.count " + std::to_string(s.top.nodes.count) + " x 8 kB");
  // Messages in flight and armed timers (Little's law): every event source's rate times how
  // long its message stays pending, at most the horizon.
  const double pending_s = std::min(largest_mean_delay_s(s.network), c.horizon_s);
  scenario::add_memory(c, "$.network.latency",
                       c.events_per_s * pending_s * scenario::kBytesPerPendingEvent,
                       "messages in flight: " + scenario::rate_text(c.events_per_s) +
                           " events per simulated second x mean delay " +
                           scenario::rate_text(pending_s) + " s x " +
                           scenario::rate_text(scenario::kBytesPerPendingEvent) + " B");
  if (s.membership) {
    // Geode's reliable messages (UNICAST3 or the network's reliable channel) are held until one
    // attempt gets through: about L / (1 - L) retransmission intervals each at a loss L (the
    // largest Bernoulli loss, or a Gilbert-Elliott chain's stationary loss), by Little's law
    // every event source's rate times that (models/geode/cost_bound.h, held messages).
    double loss = s.network.loss_model ? s.network.loss_model->stationary_loss() : s.network.loss;
    for (const net::LinkOverride& o : s.network.overrides) {
      if (o.loss) loss = std::max(loss, *o.loss);
      if (o.loss_model) loss = std::max(loss, o.loss_model->stationary_loss());
    }
    const double retransmit_s = std::max(s.membership->reliable_retransmit.seconds(),
                                         s.network.retransmit_interval.seconds());
    const double hold_s =
        loss >= 1.0 ? c.horizon_s : std::min(c.horizon_s, loss / (1.0 - loss) * retransmit_s);
    if (hold_s > 0)
      scenario::add_memory(c, "$.network.loss",
                           c.events_per_s * hold_s * geode::kBytesPerHeldMessage,
                           "Geode messages held for retransmission: " +
                               scenario::rate_text(c.events_per_s) +
                               " events per simulated second x loss / (1 - loss) x " +
                               scenario::rate_text(retransmit_s) + " s x 384 B");
  }
  // Delay spikes: every message sent during one stays in flight its extra delay longer: by
  // Little's law, the event rate x the extra delay x 160 B more (summed over the spikes, which
  // may overlap).
  for (const faults::ScheduledFault& f : s.faults.scheduled) {
    if (f.kind != faults::FaultKind::delay_spike) continue;
    const double extra_s = std::min(f.extra.seconds(), c.horizon_s);
    scenario::add_memory(c, "$.faults",
                         c.events_per_s * extra_s * scenario::kBytesPerPendingEvent,
                         "messages in flight during a delay spike: " +
                             scenario::rate_text(c.events_per_s) +
                             " events per simulated second x extra_ms " +
                             scenario::rate_text(extra_s * 1e3) + " ms x 160 B");
  }
  // Starved hosts (sim/net/starvation.h): what starved hosts hold beyond the pending events
  // counted above. Several entries may name one node (a study often writes one entry per
  // window), and an event waits at one host at a time, so each term is a bound over all entries
  // together, never a sum over entries:
  // - a bounded queue (`queue_limit`) or a stall's socket buffer (`socket_buffer_packets`): per
  //   node at most the largest bound of the entries naming it;
  // - `inbound_delay`: each delivery waits one draw of `service`, so by Little's law the
  //   deliveries held at once are about the event rate times the largest mean service (at most
  //   the horizon);
  // - a service queue or a stall without a bound: every event of the run could be waiting.
  std::map<NodeId, size_t> bound_per_node;
  std::string bounded_path, inbound_path, unbounded_path;
  double inbound_held_s = 0;
  for (size_t e = 0; e < s.network.starved.size(); ++e) {
    const net::StarvedEntry& st = s.network.starved[e];
    const std::string path = "$.network.starved[" + std::to_string(e) + "]";
    const size_t bound = st.mode == net::StarveMode::stall ? st.socket_buffer_packets
                         : st.mode == net::StarveMode::service ? st.queue_limit
                                                                : 0;
    if (bound > 0) {
      if (bounded_path.empty()) bounded_path = path;
      for (NodeId n : st.nodes) bound_per_node[n] = std::max(bound_per_node[n], bound);
    } else if (st.mode == net::StarveMode::inbound_delay) {
      if (inbound_path.empty()) inbound_path = path;
      double held_s = c.horizon_s;
      if (st.service) {
        const double m = st.service->mean_ms() / 1e3;
        if (std::isfinite(m)) held_s = std::min(held_s, std::max(m, 0.0));
      }
      inbound_held_s = std::max(inbound_held_s, held_s);
    } else if (unbounded_path.empty()) {
      unbounded_path = path;
    }
  }
  // Each entry's own state (its node list, service model, window events): about 1 kB.
  if (!s.network.starved.empty()) {
    double entry_bytes = 0;
    for (const net::StarvedEntry& st : s.network.starved)
      entry_bytes += 1024.0 + 64.0 * double(st.nodes.size());
    scenario::add_memory(c, "$.network.starved", entry_bytes,
                         std::to_string(s.network.starved.size()) +
                             " starved entries x (1 kB + 64 B per node)");
  }
  if (!bound_per_node.empty()) {
    double items = 0;
    for (const auto& [node, bound] : bound_per_node) items += double(bound);
    scenario::add_memory(c, bounded_path, items * scenario::kBytesPerPendingEvent,
                         "starved backlog: over " + std::to_string(bound_per_node.size()) +
                             " nodes, each one's largest queue_limit or socket_buffer_packets, " +
                             scenario::rate_text(items) + " items x 160 B");
  }
  if (!inbound_path.empty())
    scenario::add_memory(c, inbound_path,
                         c.events_per_s * inbound_held_s * scenario::kBytesPerPendingEvent,
                         "deliveries held by an inbound delay: " +
                             scenario::rate_text(c.events_per_s) +
                             " events per simulated second x largest mean service " +
                             scenario::rate_text(inbound_held_s) + " s x 160 B");
  if (!unbounded_path.empty())
    scenario::add_memory(c, unbounded_path,
                         c.events_per_s * c.horizon_s * scenario::kBytesPerPendingEvent,
                         "starved backlog without a bound (queue_limit or socket_buffer_packets): "
                         "every event over the horizon could wait, " +
                             scenario::rate_text(c.events_per_s * c.horizon_s) + " x 160 B");
  if (c.stored_bytes_per_s > 0)
    scenario::add_memory(c, c.stored_path, c.stored_bytes_per_s * c.horizon_s,
                         "samples kept over horizon_s " + scenario::rate_text(c.horizon_s) +
                             ": " + c.stored_formula);
  const std::string refusal = scenario::cost_refusal(c, c.total_events());
  if (refusal.empty()) return;
  const bool memory_over = !(c.memory_bytes <= scenario::cost_limits().memory_bytes);
  std::string path = memory_over ? c.memory_path : c.events_path;
  if (path.empty()) path = memory_over ? "$.nodes.count" : "$.horizon_s";
  diag.add(path, refusal);
}

std::string directory_of(const std::string& path) {
  const std::filesystem::path p(path);
  const auto parent = p.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

LoadResult load_scenario_json(const json& doc, const std::string& source_name,
                              const std::string& base_dir, std::set<std::string>* fields_read,
                              scenario::FieldRecorder* recorder) {
  LoadResult out;
  if (!doc.is_object()) {
    out.problems.push_back(prefixed(source_name, "$: expected a JSON object (a scenario), got " +
                                                     scenario::describe(doc)));
    return out;
  }
  auto s = std::make_shared<Scenario>();
  s->source = source_name;
  s->base_dir = base_dir;
  Diagnostics diag;
  diag.cost = &s->cost;
  diag.fields_read = fields_read;
  diag.recorder = recorder;
  json resolved = json::object();
  ObjectReader root(&doc, "$", diag, resolved);

  scenario::skip_schema_key(root);
  s->top = scenario::parse_top_level(root);
  const bool nodes_ok = [&] {
    for (const auto& p : diag.problems)
      if (p.path.rfind("$.nodes", 0) == 0) return false;
    return true;
  }();
  // `swim` and `jgroups` run alone; the other sections' combination rules do not know them.
  const bool swim_section = root.has("swim");
  const bool jgroups_section = root.has("jgroups");
  const scenario::ModelSections sections = [&] {
    if (!swim_section && !jgroups_section) return scenario::check_model_sections(root);
    scenario::ModelSections m;
    m.membership = root.has("membership");
    m.workload = root.has("workload");
    m.load_sharing = root.has("load_sharing");
    m.detectors = root.has("detectors");
    if (swim_section && jgroups_section)
      root.error("jgroups", "'jgroups' and 'swim' are separate models; put each in a scenario "
                            "of its own");
    if (jgroups_section && (m.membership || m.workload || m.load_sharing || m.detectors))
      root.error("jgroups", "JGroups runs only in a scenario without 'membership', 'workload', "
                            "'load_sharing' and 'detectors'; put it in a scenario of its own");
    else if (swim_section && (m.membership || m.workload || m.load_sharing || m.detectors))
      root.error("swim", "SWIM runs only in a scenario without 'membership', 'workload', "
                         "'load_sharing' and 'detectors'; put it in a scenario of its own");
    return m;
  }();
  const scenario::NodesConfig& nodes = s->top.nodes;

  if (!nodes_ok) {
    // Everything below refers to nodes; checking it against a broken node set would only
    // produce noise. The keys are consumed so they are not reported as unknown either.
    for (const char* key :
         {"network", "faults", "membership", "workload", "load_sharing", "detectors", "swim",
          "jgroups"})
      root.consume(key);
  } else {
    // --- network ---
    root.object("network", [&](ObjectReader& r) {
      s->network = net::parse_network_config(r, nodes, base_dir);
    });
    // --- faults ---
    s->faults = faults::parse_faults_config(root, nodes, base_dir);
    // --- membership (the Geode ring) ---
    if (sections.membership) {
      root.object("membership", [&](ObjectReader& r) {
        s->membership = geode::parse_geode_config(r, nodes);
      });
    }
    // --- workload + load_sharing ---
    if (sections.load_sharing && sections.workload) {
      root.consume("workload");
      root.consume("load_sharing");
      json& resolved_workload = resolved["workload"];
      json& resolved_ls = resolved["load_sharing"];
      ObjectReader workload(root.raw("workload"), root.child_path("workload"), diag,
                            resolved_workload);
      ObjectReader load_sharing(root.raw("load_sharing"), root.child_path("load_sharing"), diag,
                                resolved_ls);
      s->load_sharing =
          loadsharing::parse_loadsharing_config(workload, load_sharing, nodes, base_dir);
      workload.finish();
      load_sharing.finish();
    } else {
      // One without the other: already reported by check_model_sections().
      root.consume("workload");
      root.consume("load_sharing");
    }
    if (s->load_sharing && s->membership) parse_arm_memberships(doc, *s, diag);
    for (const char* key : {"workload", "load_sharing"}) {
      scenario::FieldSpec object;
      object.type = scenario::FieldSpec::Type::object;
      root.declare(key, std::move(object));
    }
    // --- swim (SWIM with Lifeguard) ---
    if (swim_section) {
      root.object("swim", [&](ObjectReader& r) {
        s->swim = swim::parse_swim_config(r, nodes, s->top.horizon_s);
      });
    }
    // --- jgroups (JGroups 2.12 FD / FD_ALL / FD_SOCK + VERIFY_SUSPECT + GMS) ---
    if (jgroups_section) {
      root.object("jgroups", [&](ObjectReader& r) {
        s->jgroups = jgroups::parse_jgroups_config(r, nodes, base_dir);
      });
    }
    // --- detectors (the pairwise heartbeat study) ---
    if (sections.detectors) {
      root.object("detectors", [&](ObjectReader& r) {
        s->detectors = detectors::parse_heartbeat_study_config(r, nodes);
      });
    }
  }
  root.finish();

  if (diag.ok()) choose_arms(*s, sections, diag);
  if (diag.ok() && s->faults.churn) check_churn_model(*s, diag);
  if (diag.ok()) add_swim_churn_memory(*s);
  if (diag.ok()) finish_cost_estimate(*s, diag);

  for (const auto& p : diag.problems) out.problems.push_back(prefixed(source_name, p.str()));
  if (!out.problems.empty()) return out;
  s->resolved = std::move(resolved);
  out.scenario = std::move(s);
  return out;
}

LoadResult load_scenario_file(const std::string& path, std::set<std::string>* fields_read) {
  scenario::JsonDocument d = scenario::read_json_file(path);
  if (!d.ok()) {
    LoadResult out;
    out.problems = std::move(d.errors);
    return out;
  }
  return load_scenario_json(*d.doc, path, directory_of(path), fields_read);
}

}  // namespace fdsim::run
