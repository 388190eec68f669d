#include "models/detectors/heartbeat_study.h"
#include "sim/engine/internal_error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "models/metrics/qos_summary.h"
#include "sim/engine/trace.h"

namespace fdsim::detectors {

using nlohmann::json;

namespace {
[[noreturn]] void study_error(SimTime t, NodeId node, const char* what) {
  fdsim::internal_error("fdsim: internal error at %s on node %u: heartbeat study: %s\n",
               to_string(t).c_str(), unsigned(node), what);
}
}  // namespace

HeartbeatStudy::HeartbeatStudy(World& world, const HeartbeatStudyConfig& config)
    : world_(world),
      config_(config),
      kind_send_(world.sim.kind("hb.send")),
      kind_suspect_(world.sim.kind("det.suspect")),
      type_heartbeat_(world.net.type("heartbeat")),
      drift_(config.clock_drift_ppm * 1e-6) {
  const size_t n = world.hosts.size();
  if (config_.heartbeat_period <= Duration::zero())
    study_error(world.sim.now(), kNoNode, "heartbeat period must be > 0");
  if (config_.arms.empty()) study_error(world.sim.now(), kNoNode, "no detector arm");
  pairs_by_sender_.resize(n);
  pairs_by_monitor_.resize(n);
  sender_index_.assign(n, -1);
  pairs_.reserve(config_.pairs.size());
  // One budget of exactly kept mistake durations per arm (qos_pair_recorder.h).
  std::vector<std::shared_ptr<metrics::MistakeDurationBudget>> budgets;
  for (size_t a = 0; a < config_.arms.size(); ++a)
    budgets.push_back(std::make_shared<metrics::MistakeDurationBudget>());
  for (size_t p = 0; p < config_.pairs.size(); ++p) {
    const MonitorPair mp = config_.pairs[p];
    if (mp.sender >= n || mp.monitor >= n || mp.sender == mp.monitor)
      study_error(world.sim.now(), mp.sender, "invalid monitoring pair");
    PairState ps{mp.sender, mp.monitor, {}};
    ps.arms.reserve(config_.arms.size());
    for (size_t a = 0; a < config_.arms.size(); ++a) {
      ps.arms.push_back(Watch{
          make_detector(config_.arms[a].detector, config_.heartbeat_period),
          std::make_unique<Watchdog>(world.sim, kind_suspect_, mp.monitor,
                                     [this, p, a] { on_watchdog(p, a); }),
          metrics::QosPairRecorder(world.warmup_end, world.horizon, budgets[a]), false});
    }
    pairs_.push_back(std::move(ps));
    pairs_by_sender_[mp.sender].push_back(p);
    pairs_by_monitor_[mp.monitor].push_back(p);
    if (sender_index_[mp.sender] < 0) {
      sender_index_[mp.sender] = int64_t(senders_.size());
      senders_.push_back(Sender{mp.sender, SimTime::zero(), std::nullopt, {}});
    }
    senders_[size_t(sender_index_[mp.sender])].pairs.push_back(p);
  }
  world.hosts.add_listener(this);
}

HeartbeatStudy::~HeartbeatStudy() = default;

SimTime HeartbeatStudy::sender_clock(SimTime t) const {
  const int64_t skew = drift_ == 0.0 ? 0 : std::llround(static_cast<double>(t.count_ns()) * drift_);
  return t + config_.clock_offset + Duration::ns(skew);
}

SimTime HeartbeatStudy::nominal_due(const Sender& s, uint64_t slot) const {
  const int64_t eta = config_.heartbeat_period.count_ns();
  if (drift_ == 0.0) return s.phase + Duration::ns(eta) * static_cast<int64_t>(slot);
  // Real time at which the sender's clock has advanced slot*eta since the phase.
  const double real_ns = static_cast<double>(slot) * static_cast<double>(eta) / (1.0 + drift_);
  return s.phase + Duration::ns(std::llround(real_ns));
}

uint64_t HeartbeatStudy::first_slot_after(const Sender& s, SimTime t) const {
  if (t < s.phase) return 0;
  const int64_t eta = config_.heartbeat_period.count_ns();
  const double approx = static_cast<double>((t - s.phase).count_ns()) * (1.0 + drift_) /
                        static_cast<double>(eta);
  uint64_t k = approx > 1.0 ? static_cast<uint64_t>(approx) - 1 : 0;
  while (nominal_due(s, k) <= t) ++k;
  return k;
}

void HeartbeatStudy::start() {
  const int64_t eta = config_.heartbeat_period.count_ns();
  for (size_t i = 0; i < senders_.size(); ++i) {
    Sender& s = senders_[i];
    if (config_.random_phase) {
      Rng phase_rng = world_.rng.stream(s.node, "hb.phase");
      s.phase = world_.sim.now() + Duration::ns(phase_rng.uniform_int(0, eta - 1));
    } else {
      s.phase = world_.sim.now();
    }
    if (config_.send_jitter > Duration::zero()) s.jitter.emplace(world_.rng.stream(s.node, "hb.jitter"));
    schedule_slot(i, 0);
  }
}

void HeartbeatStudy::schedule_slot(size_t si, uint64_t slot) {
  Sender& s = senders_[si];
  SimTime due = nominal_due(s, slot);
  if (s.jitter) {
    const int64_t j = config_.send_jitter.count_ns();
    due = due + Duration::ns(s.jitter->uniform_int(-j, j));
  }
  if (due < world_.sim.now()) due = world_.sim.now();
  world_.hosts.schedule_at(s.node, due, kind_send_, [this, si, slot] { send_slot(si, slot); });
}

void HeartbeatStudy::send_slot(size_t si, uint64_t slot) {
  const SimTime now = world_.sim.now();
  const Sender& s = senders_[si];
  const SimTime stamp = sender_clock(now);
  const bool in_window = now >= world_.warmup_end && now < world_.horizon;
  for (size_t p : s.pairs) {
    const NodeId m = pairs_[p].monitor;
    ++sent_total_;
    if (in_window) {
      ++window_messages_;
      window_bytes_ += config_.heartbeat_bytes;
    }
    world_.net.send_unreliable(s.node, m, type_heartbeat_, config_.heartbeat_bytes,
                               [this, p, slot, stamp] { on_arrival(p, slot, stamp); });
  }
  schedule_slot(si, std::max(slot + 1, first_slot_after(s, now)));
}

void HeartbeatStudy::on_arrival(size_t p, uint64_t seq, SimTime stamp) {
  const SimTime now = world_.sim.now();
  PairState& ps = pairs_[p];
  for (size_t a = 0; a < ps.arms.size(); ++a) {
    ps.arms[a].detector->on_heartbeat(seq, stamp, now);
    refresh(p, a);
  }
}

void HeartbeatStudy::refresh(size_t p, size_t a) {
  const SimTime now = world_.sim.now();
  PairState& ps = pairs_[p];
  Watch& w = ps.arms[a];
  const SimTime at = w.detector->suspect_at();
  if (w.suspecting && now < at) {
    w.suspecting = false;
    w.rec.trust(now);
    if (TraceSink* trace = world_.sim.trace())
      trace->record(now, ps.monitor, "trust",
                    json{{"detector", config_.arms[a].name}, {"target", ps.sender}});
  }
  if (w.suspecting) {
    w.watchdog->disarm();
  } else if (now >= at) {
    w.watchdog->disarm();
    set_suspect(p, a);
  } else if (at == SimTime::max()) {
    w.watchdog->disarm();
  } else {
    w.watchdog->arm(at);
  }
}

void HeartbeatStudy::on_watchdog(size_t p, size_t a) {
  Watch& w = pairs_[p].arms[a];
  if (w.suspecting) return;
  if (w.detector->suspects(world_.sim.now()))
    set_suspect(p, a);
  else
    refresh(p, a);  // the deadline moved without a re-arm: re-arm at the current one
}

void HeartbeatStudy::set_suspect(size_t p, size_t a) {
  const SimTime now = world_.sim.now();
  PairState& ps = pairs_[p];
  Watch& w = ps.arms[a];
  w.suspecting = true;
  w.rec.suspect(now);
  if (TraceSink* trace = world_.sim.trace())
    trace->record(now, ps.monitor, "suspect",
                  json{{"detector", config_.arms[a].name}, {"target", ps.sender}});
}

void HeartbeatStudy::on_crash(NodeId n) {
  const SimTime now = world_.sim.now();
  for (size_t p : pairs_by_sender_[n])
    for (Watch& w : pairs_[p].arms) w.rec.target_crashed(now);
  for (size_t p : pairs_by_monitor_[n]) {
    for (size_t a = 0; a < pairs_[p].arms.size(); ++a) {
      Watch& w = pairs_[p].arms[a];
      w.watchdog->disarm();
      w.suspecting = false;
      w.detector = make_detector(config_.arms[a].detector, config_.heartbeat_period);
      w.rec.monitor_down(now);
    }
  }
}

void HeartbeatStudy::on_recover(NodeId n, uint32_t /*incarnation*/) {
  const SimTime now = world_.sim.now();
  for (size_t p : pairs_by_sender_[n])
    for (Watch& w : pairs_[p].arms) w.rec.target_recovered(now);
  for (size_t p : pairs_by_monitor_[n])
    for (Watch& w : pairs_[p].arms) w.rec.monitor_up(now);
  if (sender_index_[n] >= 0) {
    const size_t si = size_t(sender_index_[n]);
    schedule_slot(si, first_slot_after(senders_[si], now));
  }
}

void HeartbeatStudy::finish() {
  if (finished_) return;
  finished_ = true;
  const SimTime end = std::max(world_.sim.now(), world_.horizon);
  for (PairState& ps : pairs_)
    for (Watch& w : ps.arms) {
      w.watchdog->disarm();
      w.rec.finish(end);
    }
}

json HeartbeatStudy::metrics() const {
  json out = json::object();
  const double window_s = (world_.horizon - world_.warmup_end).seconds();
  for (size_t a = 0; a < config_.arms.size(); ++a) {
    metrics::QosSummary summary;
    for (const PairState& ps : pairs_) summary.add(ps.arms[a].rec);
    summary.set_heartbeats(window_messages_, window_bytes_, window_s);
    out[config_.arms[a].name] = summary.to_json();
  }
  return out;
}

const metrics::QosPairRecorder& HeartbeatStudy::recorder(size_t p, size_t arm) const {
  return pairs_.at(p).arms.at(arm).rec;
}
const Detector& HeartbeatStudy::detector(size_t p, size_t arm) const {
  return *pairs_.at(p).arms.at(arm).detector;
}
bool HeartbeatStudy::suspecting(size_t p, size_t arm) const {
  return pairs_.at(p).arms.at(arm).suspecting;
}

}  // namespace fdsim::detectors
