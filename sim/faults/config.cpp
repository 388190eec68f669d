#include "sim/faults/config.h"

#include <algorithm>
#include <cstdio>

#include "sim/net/config.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::faults {

using scenario::ObjectReader;

const char* to_string(FaultKind k) {
  switch (k) {
    case FaultKind::crash: return "crash";
    case FaultKind::recover: return "recover";
    case FaultKind::pause: return "pause";
    case FaultKind::sick: return "sick";
    case FaultKind::play_dead: return "play_dead";
    case FaultKind::partition: return "partition";
    case FaultKind::loss_burst: return "loss_burst";
    case FaultKind::delay_spike: return "delay_spike";
  }
  return "?";
}

namespace {

constexpr double kMaxS = 1e9;  // about 31 simulated years

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// The schema of a time field: a number >= 0 (or > 0) and <= `max`.
scenario::FieldSpec time_spec(bool positive, double max, bool required = false) {
  scenario::FieldSpec s;
  s.type = scenario::FieldSpec::Type::number;
  s.min = 0.0;
  s.min_exclusive = positive;
  s.max = max;
  s.required = required;
  return s;
}

// A key that is present and not null (a resolved config writes null for absent optionals).
bool given(const ObjectReader& r, const std::string& key) {
  const auto* v = r.raw(key);
  return v != nullptr && !v->is_null();
}

// Reads "<name>_s" or "<name>_ms" as a number >= 0 (or > 0 if `positive`), in seconds.
// Exactly one of them if `required`, at most one otherwise. nullopt when absent or invalid;
// *ok is cleared on a problem.
std::optional<double> read_seconds(ObjectReader& r, const std::string& name, bool required,
                                   bool positive, bool& ok) {
  const std::string ks = name + "_s", kms = name + "_ms";
  r.declare(ks, time_spec(positive, kMaxS));  // either of the two (schema: neither required)
  r.declare(kms, time_spec(positive, kMaxS * 1e3));
  const bool has_s = given(r, ks), has_ms = given(r, kms);
  if (has_s && has_ms) {
    r.consume(ks);
    r.consume(kms);
    r.error("only one of '" + ks + "', '" + kms + "' may be given");
    ok = false;
    return std::nullopt;
  }
  const size_t before = r.diagnostics().problems.size();
  std::optional<double> out;
  if (has_s) {
    out = positive ? r.positive(ks, 1, 0, kMaxS) : r.number(ks, 0, 0, kMaxS);
  } else if (has_ms) {
    const double ms = positive ? r.positive(kms, 1, 0, kMaxS * 1e3) : r.number(kms, 0, 0, kMaxS * 1e3);
    out = ms / 1e3;
  } else {
    if (r.has(ks)) r.consume(ks);  // explicit nulls
    if (r.has(kms)) r.consume(kms);
    if (required) {
      r.error(ks, std::string("required field is missing (expected a number ") +
                      (positive ? "> 0" : ">= 0") + "; or give '" + kms + "')");
      ok = false;
    } else {
      r.set_resolved(ks, nullptr);
    }
    return std::nullopt;
  }
  if (r.diagnostics().problems.size() != before) {
    ok = false;
    return std::nullopt;
  }
  return out;
}

// The active window of a random fault process: "start" (default 0) and optional "stop" (s or
// ms), the stop after the start.
void read_active_window(ObjectReader& r, SimTime* start, std::optional<SimTime>* stop,
                        bool& ok) {
  const auto start_s = read_seconds(r, "start", false, false, ok);
  if (!start_s) r.set_resolved("start_s", 0.0);
  const auto stop_s = read_seconds(r, "stop", false, false, ok);
  *start = SimTime::from_seconds(start_s.value_or(0));
  if (!stop_s) return;
  *stop = SimTime::from_seconds(*stop_s);
  if (**stop <= *start) {
    r.error("stop_s", "expected a stop time after the start (" + fmt(start->seconds()) +
                          " s), got " + fmt(*stop_s) + " s");
    ok = false;
  }
}

std::vector<NodeId> required_nodes(ObjectReader& r, const std::string& key,
                                   const scenario::NodesConfig& nodes, bool& ok) {
  const size_t before = r.diagnostics().problems.size();
  std::vector<NodeId> v = scenario::parse_node_set(r, key, nodes, false, true);
  if (r.diagnostics().problems.size() != before) {
    ok = false;
  } else if (v.empty()) {
    r.error(key, "expected at least one node, got an empty node set");
    ok = false;
  }
  return v;
}

// The most victims one storm may name (a storm's node set is bounded by kMaxNodeSetEntries).
constexpr size_t kMaxNodeSetEntriesForStorm = scenario::kMaxNodeSetEntries;

// Reads the up or down time law of a failure process: "mean_<name>_s" (exponential, the
// original form) or "<name>" (a lifetime object, sim/faults/lifetime.h), at most one of them;
// exactly one if `required`. Checks the event-rate budget at the key that was given:
// `firings` events per mean time (or, with `rate_is_given`, `firings` is already the rate,
// independent of the mean: a storm's recoveries follow its crashes). nullptr when absent or
// invalid (*ok cleared on a problem).
std::shared_ptr<const Lifetime> read_lifetime(ObjectReader& r, const std::string& name,
                                              bool required, double firings,
                                              const std::string& firing_text,
                                              const std::string& base_dir, bool& ok,
                                              bool rate_is_given = false) {
  const std::string mean_key = "mean_" + name + "_s";
  {
    scenario::FieldSpec spec = time_spec(true, kMaxS);
    if (!required) {
      spec.nullable = true;
      spec.has_default = true;
    }
    r.declare(mean_key, std::move(spec));
    scenario::FieldSpec obj;
    obj.type = scenario::FieldSpec::Type::object;
    r.declare(name, std::move(obj));
  }
  const bool has_mean = given(r, mean_key), has_obj = given(r, name);
  auto rate_check = [&](const std::string& key, double mean_s, const std::string& law) {
    const double rate = rate_is_given ? firings : firings / mean_s;
    const std::string text =
        rate_is_given ? firing_text
                      : firing_text + " / " + (law.empty() ? key : "mean of " + key) + " " +
                            scenario::rate_text(mean_s) + " s" + law;
    scenario::check_event_rate(r, key, rate, text);
  };
  if (has_mean && has_obj) {
    r.consume(mean_key);
    r.consume(name);
    r.error("only one of '" + mean_key + "', '" + name + "' may be given");
    ok = false;
    return nullptr;
  }
  const size_t before = r.diagnostics().problems.size();
  if (has_mean) {
    const double mean = r.positive(mean_key, 1, 0, kMaxS);
    if (r.diagnostics().problems.size() != before) {
      ok = false;
      return nullptr;
    }
    rate_check(mean_key, mean, "");
    if (r.diagnostics().problems.size() != before) ok = false;
    return Lifetime::exponential(mean);
  }
  if (has_obj) {
    std::shared_ptr<const Lifetime> out;
    r.object(name, [&](ObjectReader& o) { out = parse_lifetime(o, base_dir); });
    if (!out || r.diagnostics().problems.size() != before) {
      ok = false;
      return nullptr;
    }
    rate_check(name, out->mean_s(), " (" + out->describe() + ")");
    if (r.diagnostics().problems.size() != before) ok = false;
    return out;
  }
  if (r.has(mean_key)) r.consume(mean_key);  // explicit nulls
  if (r.has(name)) r.consume(name);
  if (required) {
    r.error(mean_key, "required field is missing (expected a number > 0; or give '" + name +
                          "', a distribution object)");
    ok = false;
  } else {
    r.set_resolved(mean_key, nullptr);
  }
  return nullptr;
}

void parse_entry(ObjectReader& r, const scenario::NodesConfig& nodes, const std::string& base_dir,
                 FaultsConfig& out, size_t index) {
  bool ok = true;
  const size_t before = r.diagnostics().problems.size();
  const std::string kind = r.required_enumeration(
      "kind", {"crash", "recover", "pause", "sick", "play_dead", "partition", "loss_burst",
               "delay_spike", "crash_process", "pause_process", "group_crash_process",
               "crash_storm", "churn"});
  if (r.diagnostics().problems.size() != before) {
    // The other keys cannot be checked without a kind; do not also report them as unknown.
    for (const char* key : {"at_s", "at_ms", "nodes", "duration_s", "duration_ms", "duration",
                            "heal_at_s", "heal_at_ms", "a", "b", "one_way", "from", "to", "loss",
                            "extra_ms", "mean_up_s", "mean_down_s", "mean_interval_s", "start_s",
                            "start_ms", "stop_s", "stop_ms", "up", "down", "size", "window_s",
                            "window_ms", "spare_nodes", "mean_session_s", "session", "leave",
                            "mean_join_interval_s", "join_interval"})
      if (r.has(key)) r.consume(key);
    return;
  }

  if (kind == "crash_process" || kind == "group_crash_process") {
    CrashProcess p;
    const bool group = kind == "group_crash_process";
    p.nodes = required_nodes(r, "nodes", nodes, ok);
    // The event-rate budget (sim/scenario/event_rate.h): a per-node process crashes each node
    // once per mean up time, estimate = nodes / mean (recoveries: / mean down time); a group
    // process crashes the whole set in one event, estimate = 1 / mean.
    const double firing = group ? 1.0 : double(p.nodes.size());
    const std::string firing_text = group ? "1 group" : "nodes " + std::to_string(p.nodes.size());
    p.up = read_lifetime(r, "up", true, firing, firing_text, base_dir, ok);
    p.down = read_lifetime(r, "down", false, firing, firing_text, base_dir, ok);
    if (p.up) p.mean_up_s = p.up->mean_s();
    if (p.down) p.mean_down_s = p.down->mean_s();
    read_active_window(r, &p.start, &p.stop, ok);
    auto& list = group ? out.group_crash_processes : out.crash_processes;
    const size_t k = list.size();
    p.stream = "faults." + kind + (k == 0 ? "" : "#" + std::to_string(k));
    if (ok && r.diagnostics().problems.size() == before) list.push_back(std::move(p));
    return;
  }

  if (kind == "crash_storm") {
    CrashStorm s;
    s.nodes = required_nodes(r, "nodes", nodes, ok);
    r.declare("mean_interval_s", time_spec(true, kMaxS, true));
    const int64_t size = r.required_integer("size", 1, int64_t(kMaxNodeSetEntriesForStorm));
    if (r.diagnostics().problems.size() != before) ok = false;
    s.size = size_t(std::max<int64_t>(size, 1));
    if (ok && s.size > s.nodes.size()) {
      r.error("size", "expected at most the " + std::to_string(s.nodes.size()) +
                          " nodes of the storm's node set, got " + std::to_string(size));
      ok = false;
    }
    if (!r.has("mean_interval_s")) {
      r.consume("mean_interval_s");
      r.error("mean_interval_s", "required field is missing (expected a number > 0)");
      ok = false;
    } else {
      s.mean_interval_s = r.positive("mean_interval_s", 1, 0, kMaxS);
      // The event-rate budget: `size` crashes per storm, one storm per mean_interval_s.
      scenario::check_event_rate(r, "mean_interval_s", double(s.size) / s.mean_interval_s,
                                 "size " + std::to_string(s.size) + " / mean_interval_s " +
                                     scenario::rate_text(s.mean_interval_s) + " s");
    }
    const auto window = read_seconds(r, "window", false, false, ok);
    if (!window) r.set_resolved("window_s", 0.0);
    s.window = Duration::from_seconds(window.value_or(0));
    // Recoveries follow the crashes one for one: the same estimate as the storms' crashes
    // (0 when mean_interval_s was invalid: that problem is reported already).
    const double crash_rate = s.mean_interval_s > 0 ? double(s.size) / s.mean_interval_s : 0.0;
    s.down = read_lifetime(r, "down", false, crash_rate,
                           "size " + std::to_string(s.size) + " / mean_interval_s " +
                               scenario::rate_text(s.mean_interval_s) + " s",
                           base_dir, ok, true);
    read_active_window(r, &s.start, &s.stop, ok);
    const size_t k = out.crash_storms.size();
    s.stream = k == 0 ? "faults.crash_storm" : "faults.crash_storm#" + std::to_string(k);
    if (ok && r.diagnostics().problems.size() == before) out.crash_storms.push_back(std::move(s));
    return;
  }

  if (kind == "churn") {
    ChurnProcess c;
    c.nodes = required_nodes(r, "nodes", nodes, ok);
    {
      const size_t b = r.diagnostics().problems.size();
      c.spare = scenario::parse_node_set(r, "spare_nodes", nodes);
      if (r.diagnostics().problems.size() != b) ok = false;
    }
    std::vector<NodeId> both;
    std::set_intersection(c.nodes.begin(), c.nodes.end(), c.spare.begin(), c.spare.end(),
                          std::back_inserter(both));
    if (!both.empty()) {
      r.error("spare_nodes", "expected spare nodes disjoint from nodes, but node " +
                                 std::to_string(both.front()) + " is in both");
      ok = false;
    }
    // The event-rate budget: at most every slot holds an identity, each leaving once per
    // mean session; joins, one per mean interval.
    const size_t slots = c.nodes.size() + c.spare.size();
    c.session = read_lifetime(r, "session", false, double(slots),
                              "slots " + std::to_string(slots), base_dir, ok);
    c.join = read_lifetime(r, "join_interval", false, 1.0, "1 join stream", base_dir, ok);
    c.graceful = r.enumeration("leave", "graceful", {"graceful", "crash"}) == "graceful";
    read_active_window(r, &c.start, &c.stop, ok);
    if (ok && !c.session && !c.join) {
      r.error("churn needs 'mean_session_s' or 'session' (leaves), or 'mean_join_interval_s' "
              "or 'join_interval' (joins), or both");
      ok = false;
    }
    if (ok && c.join && c.spare.empty() && !c.session) {
      r.error("spare_nodes", "joins need free slots: give spare_nodes, or a session law so "
                             "that leavers free theirs");
      ok = false;
    }
    if (out.churn) {
      r.error("kind", "at most one churn entry (the first is $.faults[" +
                          std::to_string(out.churn_entry) + "])");
      ok = false;
    }
    c.stream = "faults.churn";
    if (ok && r.diagnostics().problems.size() == before) {
      out.churn = std::move(c);
      out.churn_entry = index;
    }
    return;
  }

  if (kind == "pause_process") {
    PauseProcess p;
    p.nodes = required_nodes(r, "nodes", nodes, ok);
    r.declare("mean_interval_s", time_spec(true, kMaxS, true));
    {
      scenario::FieldSpec d;
      d.type = scenario::FieldSpec::Type::object;
      r.declare("duration", std::move(d));
    }
    if (!r.has("mean_interval_s")) {
      r.consume("mean_interval_s");
      r.error("mean_interval_s", "required field is missing (expected a number > 0)");
      ok = false;
    } else {
      p.mean_interval_s = r.positive("mean_interval_s", 1, 0, kMaxS);
      // The event-rate budget (sim/scenario/event_rate.h): one pause per node per
      // mean_interval_s on average, estimate = nodes / mean_interval_s.
      scenario::check_event_rate(r, "mean_interval_s", double(p.nodes.size()) / p.mean_interval_s,
                                 "nodes " + std::to_string(p.nodes.size()) +
                                     " / mean_interval_s " + scenario::rate_text(p.mean_interval_s) +
                                     " s");
    }
    r.declare("duration_s", time_spec(true, kMaxS));
    r.declare("duration_ms", time_spec(true, kMaxS * 1e3));
    const int n_given = int(given(r, "duration_ms")) + int(given(r, "duration_s")) +
                        int(given(r, "duration"));
    if (n_given != 1) {
      for (const char* key : {"duration_ms", "duration_s", "duration"})
        if (r.has(key)) r.consume(key);
      r.error(n_given == 0 ? "required: one of 'duration_ms', 'duration_s' or 'duration' (a "
                             "distribution object)"
                           : "only one of 'duration_ms', 'duration_s', 'duration' may be given");
      ok = false;
    } else if (given(r, "duration")) {
      r.object("duration", [&](ObjectReader& d) {
        const size_t b = r.diagnostics().problems.size();
        p.duration = net::parse_latency_model(d, base_dir, 1.0);
        if (r.diagnostics().problems.size() != b) ok = false;
      });
    } else {
      const auto secs = read_seconds(r, "duration", true, true, ok);
      if (secs) p.duration = net::constant_latency(*secs * 1e3);
    }
    read_active_window(r, &p.start, &p.stop, ok);
    const size_t k = out.pause_processes.size();
    p.stream = k == 0 ? "faults.pause_process" : "faults.pause_process#" + std::to_string(k);
    if (ok && r.diagnostics().problems.size() == before) out.pause_processes.push_back(std::move(p));
    return;
  }

  ScheduledFault f;
  const auto at = read_seconds(r, "at", true, false, ok);
  f.at = SimTime::from_seconds(at.value_or(0));
  auto end_after = [&](double secs) { f.end = f.at + Duration::from_seconds(secs); };

  if (kind == "crash" || kind == "recover") {
    f.kind = kind == "crash" ? FaultKind::crash : FaultKind::recover;
    f.nodes = required_nodes(r, "nodes", nodes, ok);
  } else if (kind == "pause") {
    f.kind = FaultKind::pause;
    const auto d = read_seconds(r, "duration", true, true, ok);
    if (d) end_after(*d);
    f.nodes = required_nodes(r, "nodes", nodes, ok);
  } else if (kind == "sick" || kind == "play_dead") {
    f.kind = kind == "sick" ? FaultKind::sick : FaultKind::play_dead;
    const auto d = read_seconds(r, "duration", false, true, ok);
    if (d) end_after(*d);
    f.nodes = required_nodes(r, "nodes", nodes, ok);
  } else if (kind == "partition") {
    f.kind = FaultKind::partition;
    const auto heal = read_seconds(r, "heal_at", false, false, ok);
    if (heal && at) {
      if (*heal <= *at) {
        r.error("heal_at_s", "expected a heal time after the start (" + fmt(*at) + " s), got " +
                                 fmt(*heal) + " s");
        ok = false;
      } else {
        f.end = SimTime::from_seconds(*heal);
      }
    }
    f.a = required_nodes(r, "a", nodes, ok);
    f.b = scenario::parse_node_set(r, "b", nodes);
    f.one_way = r.boolean("one_way", false);
    std::vector<NodeId> both;
    std::set_intersection(f.a.begin(), f.a.end(), f.b.begin(), f.b.end(),
                          std::back_inserter(both));
    if (!both.empty()) {
      r.error("b", "expected groups a and b to be disjoint, but node " +
                       std::to_string(both.front()) + " is in both");
      ok = false;
    }
  } else if (kind == "loss_burst" || kind == "delay_spike") {
    f.kind = kind == "loss_burst" ? FaultKind::loss_burst : FaultKind::delay_spike;
    const auto d = read_seconds(r, "duration", true, true, ok);
    if (d) end_after(*d);
    f.a = scenario::parse_node_set(r, "from", nodes);
    f.b = scenario::parse_node_set(r, "to", nodes);
    if (f.kind == FaultKind::loss_burst) {
      {
        scenario::FieldSpec loss = time_spec(true, 1.0, true);
        r.declare("loss", std::move(loss));
      }
      if (!r.has("loss")) {
        r.consume("loss");
        r.error("loss", "required field is missing (expected a number > 0 and <= 1)");
        ok = false;
      } else {
        f.loss = r.positive("loss", 1, 0, 1);
      }
    } else {
      r.declare("extra_ms", time_spec(true, kMaxS * 1e3, true));
      if (!r.has("extra_ms")) {
        r.consume("extra_ms");
        r.error("extra_ms", "required field is missing (expected a number > 0)");
        ok = false;
      } else {
        f.extra = Duration::from_ms(r.positive("extra_ms", 1, 0, kMaxS * 1e3));
      }
    }
  }
  if (ok && r.diagnostics().problems.size() == before) out.scheduled.push_back(std::move(f));
}

}  // namespace

FaultsConfig parse_faults_config(ObjectReader& root, const scenario::NodesConfig& nodes,
                                 const std::string& base_dir) {
  FaultsConfig out;
  root.objects("faults",
               [&](ObjectReader& r, size_t k) { parse_entry(r, nodes, base_dir, out, k); });
  if (out.churn) {
    // A churn slot's presence belongs to the churn process alone: another crash or recovery
    // of it would revive a left identity or restart an absent slot.
    std::vector<NodeId> slots = out.churn->nodes;
    slots.insert(slots.end(), out.churn->spare.begin(), out.churn->spare.end());
    std::sort(slots.begin(), slots.end());
    auto clash = [&](const std::vector<NodeId>& v, const char* what) {
      for (NodeId n : v)
        if (std::binary_search(slots.begin(), slots.end(), n)) {
          root.error("faults", "node " + std::to_string(n) + " is a churn slot ($.faults[" +
                                   std::to_string(out.churn_entry) + "]) and also named by a " +
                                   what + "; churn slots may not take other crashes or "
                                   "recoveries");
          return true;
        }
      return false;
    };
    bool bad = false;
    for (const ScheduledFault& f : out.scheduled)
      if (!bad && (f.kind == FaultKind::crash || f.kind == FaultKind::recover))
        bad = clash(f.nodes, to_string(f.kind));
    for (const CrashProcess& p : out.crash_processes)
      if (!bad) bad = clash(p.nodes, "crash_process");
    for (const CrashProcess& p : out.group_crash_processes)
      if (!bad) bad = clash(p.nodes, "group_crash_process");
    for (const CrashStorm& p : out.crash_storms)
      if (!bad) bad = clash(p.nodes, "crash_storm");
  }
  return out;
}

}  // namespace fdsim::faults
