// Parsing of the `load_sharing` section (keys documented in config.h).
#include "models/loadsharing/config.h"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/scenario/cost_estimate.h"
#include "sim/scenario/event_rate.h"

namespace fdsim::loadsharing {

using scenario::ObjectReader;

std::string_view diagnosis_name(DiagnosisKind k) {
  switch (k) {
    case DiagnosisKind::none:
      return "none";
    case DiagnosisKind::fixed:
      return "fixed";
    case DiagnosisKind::oracle:
      return "oracle";
    case DiagnosisKind::geode_ring:
      return "geode_ring";
    case DiagnosisKind::hou_shin:
      return "hou_shin";
    case DiagnosisKind::hou_shin_extra:
      return "hou_shin_extra";
    case DiagnosisKind::fixed_periodic:
      return "fixed_periodic";
    case DiagnosisKind::oracle_extra:
      return "oracle_extra";
    case DiagnosisKind::fixed_on_silence:
      return "fixed_on_silence";
    case DiagnosisKind::oracle_periodic:
      return "oracle_periodic";
    case DiagnosisKind::periodic_no_diagnosis:
      return "periodic_no_diagnosis";
    case DiagnosisKind::fixed_heartbeat:
      return "fixed_heartbeat";
  }
  return "?";
}

std::vector<std::string> LoadSharingConfig::arm_names() const {
  std::vector<std::string> out;
  out.reserve(arms.size());
  for (const ArmConfig& a : arms) out.push_back(a.name);
  return out;
}

namespace {

DiagnosisKind diagnosis_of(const std::string& s) {
  if (s == "fixed") return DiagnosisKind::fixed;
  if (s == "oracle") return DiagnosisKind::oracle;
  if (s == "geode_ring") return DiagnosisKind::geode_ring;
  if (s == "hou_shin") return DiagnosisKind::hou_shin;
  if (s == "hou_shin_extra") return DiagnosisKind::hou_shin_extra;
  if (s == "fixed_periodic") return DiagnosisKind::fixed_periodic;
  if (s == "oracle_extra") return DiagnosisKind::oracle_extra;
  if (s == "fixed_on_silence") return DiagnosisKind::fixed_on_silence;
  if (s == "oracle_periodic") return DiagnosisKind::oracle_periodic;
  if (s == "periodic_no_diagnosis") return DiagnosisKind::periodic_no_diagnosis;
  if (s == "fixed_heartbeat") return DiagnosisKind::fixed_heartbeat;
  return DiagnosisKind::none;
}

// `node_count` and `buddy_size` are for the event-rate budget (sim/scenario/event_rate.h) of a
// periodic arm (fixed_periodic, oracle_periodic, periodic_no_diagnosis) and of fixed_on_silence
// (at most one broadcast per period and node besides the state changes): every node broadcasts
// to its buddies every period, estimate = nodes.count x buddy_size / period.
const std::vector<std::string> kDiagnoses = {
    "none",           "fixed",          "fixed_periodic",        "fixed_on_silence",
    "oracle",         "oracle_extra",   "oracle_periodic",       "periodic_no_diagnosis",
    "geode_ring",     "hou_shin",       "hou_shin_extra", "fixed_heartbeat"};

// A key of an arm that only some diagnoses read (timeout_ms, period_ms, alpha), given on an arm
// whose diagnosis does not: one problem naming the diagnoses that take it, instead of a bare
// "unknown key" (issue 28). `takes` tells whether an arm of a diagnosis reads the key.
void refuse_inapplicable(ObjectReader& a, const std::string& diagnosis, const char* key,
                         bool (*takes)(const ArmConfig&)) {
  if (!a.has(key)) return;
  std::string list;
  for (const auto& d : kDiagnoses) {
    ArmConfig probe;
    probe.diagnosis = diagnosis_of(d);
    if (takes(probe)) list += (list.empty() ? "" : ", ") + d;
  }
  a.consume(key);
  a.error(key, std::string("unknown key for diagnosis \"") + diagnosis + "\": only " + list +
                   " take " + key);
}

bool takes_timeout(const ArmConfig& arm) { return arm.fixed_silence(); }
bool takes_period(const ArmConfig& arm) { return arm.sends_periodic() || arm.sends_on_silence(); }
bool takes_alpha(const ArmConfig& arm) { return arm.needs_t_out(); }
bool takes_member_timeout(const ArmConfig& arm) {
  return arm.diagnosis == DiagnosisKind::geode_ring;
}

ArmConfig parse_arm(ObjectReader& a, size_t node_count, size_t buddy_size) {
  ArmConfig arm;
  arm.name = a.required_string("name");
  if (a.has("name") && arm.name.empty()) a.error("name", "expected a non-empty string");
  const std::string diagnosis = a.required_enumeration(
      "diagnosis", {"none", "fixed", "fixed_periodic", "fixed_on_silence", "oracle",
                    "oracle_extra", "oracle_periodic", "periodic_no_diagnosis", "geode_ring",
                    "hou_shin", "hou_shin_extra", "fixed_heartbeat"});  // kDiagnoses
  arm.diagnosis = diagnosis_of(diagnosis);
  if (a.has("diagnosis") && std::find(kDiagnoses.begin(), kDiagnoses.end(), diagnosis) !=
                                kDiagnoses.end()) {
    if (!takes_timeout(arm)) refuse_inapplicable(a, diagnosis, "timeout_ms", takes_timeout);
    if (!takes_period(arm)) refuse_inapplicable(a, diagnosis, "period_ms", takes_period);
    if (!takes_alpha(arm)) refuse_inapplicable(a, diagnosis, "alpha", takes_alpha);
    if (!takes_member_timeout(arm))
      refuse_inapplicable(a, diagnosis, "member_timeout_ms", takes_member_timeout);
  }
  if (arm.fixed_silence()) {
    const double t_ms = a.required_positive("timeout_ms", 0.0, 1e12);
    arm.timeout = Duration::from_ms(t_ms);
  }
  if (arm.sends_periodic() || arm.sends_on_silence()) {
    const double p_ms = a.required_number("period_ms", 1.0, 1e12);
    arm.period = Duration::from_ms(p_ms);
    if (p_ms >= 1)
      scenario::check_period(a, "period_ms", arm.period, double(node_count),
                             "nodes.count " + std::to_string(node_count),
                             double(std::max<size_t>(1, buddy_size)),
                             "buddy_size " + std::to_string(buddy_size));
  }
  if (arm.needs_t_out()) {
    arm.alpha = a.positive("alpha", 0.05, 0.0, 1.0);
    if (arm.alpha >= 1.0) a.error("alpha", "expected a number > 0 and < 1");
    a.exclusive_max("alpha");
  }
  if (takes_member_timeout(arm)) {
    // The bound is the membership section's own (models/geode/config.cpp, kMaxMs).
    if (a.has("member_timeout_ms"))
      arm.member_timeout = Duration::from_ms(a.positive("member_timeout_ms", 5000, 0.0, 1e9));
  }
  return arm;
}

// Bounds of the priors (issue 24): the prior rates shape / exposure then lie in [1e-9, 1e9]
// per second, so the exit-time chains and their uniformization series that the hou_shin arms
// build from the estimates stay small (an extreme prior made the series run for minutes, or
// the dense generator of a CET-mapped region exceed its size).
constexpr double kMinPrior = 1e-3;
// Thresholds: th_u and th_f at most 1e4 (queue lengths, or seconds of work for load_index
// "cet"); with a hou_shin arm and load_index "ql", th_f at most 1000 states.
constexpr double kMaxThreshold = 1e4;
constexpr double kMaxChainThreshold = 1000;
// Shapes and exposures up to 1e12 (a test or study may make a rate effectively known with a
// prior worth 1e9 s of evidence), but the prior rate shape / exposure within [1e-9, 1e9] per s:
// the rate, not either number alone, sets the length of the uniformization series.
constexpr double kMaxPrior = 1e12;
constexpr double kMinPriorRate = 1e-9, kMaxPriorRate = 1e9;

void check_prior_rate(ObjectReader& e, const char* shape_key, double shape,
                      const char* exposure_key, double exposure) {
  const double rate = shape / exposure;
  if (rate >= kMinPriorRate && rate <= kMaxPriorRate) return;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "expected a prior rate %s / %s within [1e-9, 1e9] per s, got %.6g", shape_key,
                exposure_key, rate);
  e.error(shape_key, buf);
}

void parse_estimation(ObjectReader& e, EstimationConfig& c) {
  c.arrival_prior_shape = e.number("arrival_prior_shape", c.arrival_prior_shape, kMinPrior, kMaxPrior);
  c.arrival_prior_exposure_s =
      e.number("arrival_prior_exposure_s", c.arrival_prior_exposure_s, kMinPrior, kMaxPrior);
  c.execution_prior_shape =
      e.number("execution_prior_shape", c.execution_prior_shape, kMinPrior, kMaxPrior);
  c.execution_prior_exposure_s =
      e.number("execution_prior_exposure_s", c.execution_prior_exposure_s, kMinPrior, kMaxPrior);
  c.forgetting_per_s = e.positive("forgetting_per_s", c.forgetting_per_s, 0.0, 1.0);
  check_prior_rate(e, "arrival_prior_shape", c.arrival_prior_shape, "arrival_prior_exposure_s",
                   c.arrival_prior_exposure_s);
  check_prior_rate(e, "execution_prior_shape", c.execution_prior_shape,
                   "execution_prior_exposure_s", c.execution_prior_exposure_s);
}

}  // namespace

LoadSharingConfig parse_loadsharing_config(ObjectReader& workload, ObjectReader& ls,
                                           const scenario::NodesConfig& nodes,
                                           const std::string& base_dir) {
  LoadSharingConfig cfg;
  cfg.node_count = nodes.count;
  cfg.workload = parse_workload_config(workload, nodes, base_dir);

  cfg.scheduling = ls.enumeration("scheduling", "mlfs", {"mlfs", "fcfs"}) == "fcfs"
                       ? SchedulingPolicy::fcfs
                       : SchedulingPolicy::mlfs;
  cfg.exec_knowledge =
      ls.enumeration("execution_time_knowledge", "exact", {"exact", "mean"}) == "mean"
          ? ExecKnowledge::mean
          : ExecKnowledge::exact;
  const std::string unplaced =
      ls.enumeration("unplaced", "background", {"background", "in_order", "drop"});
  cfg.unplaced = unplaced == "drop"       ? UnplacedPolicy::drop
                 : unplaced == "in_order" ? UnplacedPolicy::in_order
                                          : UnplacedPolicy::background;
  cfg.late_tasks = ls.enumeration("late_tasks", "abort", {"abort", "finish"}) == "finish"
                       ? LateTaskPolicy::finish
                       : LateTaskPolicy::abort;
  cfg.load_index =
      ls.enumeration("load_index", "ql", {"ql", "cet"}) == "cet" ? LoadIndex::cet : LoadIndex::ql;
  // At most kMaxThreshold (1e4): the hou_shin arms build a dense exit-time chain over a region
  // (docs/models/hou-shin-timeout.md), and th_f = 2^63 wrapped its integer bounds.
  cfg.thresholds.th_u = ls.number("th_u", 1.0, 0.0, kMaxThreshold);
  cfg.thresholds.th_f = ls.number("th_f", 4.0, 0.0, kMaxThreshold);
  if (cfg.thresholds.th_f <= cfg.thresholds.th_u)
    ls.error("th_f", "expected th_f > th_u (the medium region would be empty)");
  cfg.buddy_size = size_t(ls.integer("buddy_size", 10, 0, 100000));
  // Memory and per-task work: models/loadsharing/cost_bound.h, added by the loader once the
  // horizon is known.
  cfg.broadcast_on = ls.enumeration("broadcast_on", "every_change",
                                    {"every_change", "enter_u_or_o"}) == "enter_u_or_o"
                         ? BroadcastPolicy::enter_u_or_o
                         : BroadcastPolicy::every_change;
  cfg.transfers = ls.boolean("transfers", true);
  cfg.max_hops = uint32_t(ls.integer("max_hops", 1, 1, 16));
  cfg.transport =
      ls.enumeration("transfer_transport", "reliable", {"reliable", "unreliable"}) == "unreliable"
          ? TransferTransport::unreliable
          : TransferTransport::reliable;
  cfg.transfer_give_up = Duration::from_seconds(ls.positive("transfer_give_up_s", 120.0, 0, 1e9));
  cfg.task_bytes = uint32_t(ls.integer("task_bytes", 256, 1, 1 << 30));
  cfg.broadcast_bytes = uint32_t(ls.integer("broadcast_bytes", 64, 1, 1 << 30));
  cfg.heartbeat_bytes = uint32_t(ls.integer("heartbeat_bytes", 16, 1, 1 << 30));
  if (auto v = ls.optional_number("delay_allowance_ms", 0.0, 1e12))
    cfg.delay_allowance = Duration::from_ms(*v);
  if (auto v = ls.optional_number("send_margin_ms", 0.0, 1e12))
    cfg.send_margin = Duration::from_ms(*v);
  if (auto v = ls.optional_number("loss_allowance", 0.0, 1.0)) {
    if (*v >= 1.0) ls.error("loss_allowance", "expected a probability >= 0 and < 1");
    cfg.loss_allowance = *v;
  }
  ls.exclusive_max("loss_allowance");
  ls.object("estimation", [&](ObjectReader& e) { parse_estimation(e, cfg.estimation); });
  cfg.geode_poll = Duration::from_ms(ls.positive("geode_poll_ms", 100.0, 0, 1e12));
  cfg.per_node_metrics = ls.boolean("per_node_metrics", false);

  // One poll of the membership view per period (sim/scenario/event_rate.h).
  scenario::check_period(ls, "geode_poll_ms", cfg.geode_poll, 1.0, "one membership poll");
  ls.objects("arms", [&](ObjectReader& a, size_t) {
    cfg.arms.push_back(parse_arm(a, nodes.count, cfg.buddy_size));
  });
  if (!ls.has("arms")) {
    ArmConfig none;
    none.name = "none";
    cfg.arms.push_back(none);
    ls.set_resolved("arms", scenario::json::array({{{"name", "none"}, {"diagnosis", "none"}}}));
  } else if (cfg.arms.empty() && ls.raw("arms")->is_array()) {
    ls.error("arms", "expected at least one arm");
  }

  std::set<std::string> names;
  bool hou_shin = false;
  for (size_t k = 0; k < cfg.arms.size(); ++k) {
    if (!cfg.arms[k].name.empty() && !names.insert(cfg.arms[k].name).second)
      ls.diagnostics().add(ls.child_path("arms") + "[" + std::to_string(k) + "].name",
                           "duplicate arm name \"" + cfg.arms[k].name + "\"");
    hou_shin = hou_shin || cfg.arms[k].needs_t_out();
  }
  // A region of the ql exit-time chain holds up to th_f - th_u states of a dense generator.
  if (hou_shin && cfg.load_index == LoadIndex::ql && cfg.thresholds.th_f > kMaxChainThreshold)
    ls.error("th_f", "expected th_f <= " + scenario::rate_text(kMaxChainThreshold) +
                         " with a hou_shin arm and load_index \"ql\" (its exit-time chain is "
                         "dense), got " + scenario::rate_text(cfg.thresholds.th_f));
  // The exit-time chain (docs/models/hou-shin-timeout.md) lives on integer queue lengths (CET is mapped onto it).
  if (hou_shin && cfg.load_index == LoadIndex::ql &&
      (cfg.thresholds.th_u != std::floor(cfg.thresholds.th_u) ||
       cfg.thresholds.th_f != std::floor(cfg.thresholds.th_f)))
    ls.error("th_u",
             "the hou_shin arms with load_index \"ql\" need integer thresholds th_u "
             "and th_f");
  return cfg;
}

}  // namespace fdsim::loadsharing
