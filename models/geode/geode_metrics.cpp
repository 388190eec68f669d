#include "models/geode/geode_metrics.h"

#include <algorithm>

#include "sim/engine/budget.h"

namespace fdsim::geode {

using nlohmann::json;

json summarize(std::vector<double> v) {
  json out = json::object();
  if (v.empty()) {
    out["mean"] = nullptr;
    out["min"] = nullptr;
    out["p50"] = nullptr;
    out["max"] = nullptr;
    out["count"] = 0;
    return out;
  }
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  const size_t n = v.size();
  out["mean"] = sum / double(n);
  out["min"] = v.front();
  out["p50"] = 0.5 * (v[(n - 1) / 2] + v[n / 2]);
  out["max"] = v.back();
  out["count"] = n;
  return out;
}

GeodeRecorder::GeodeRecorder(World& world, size_t initial_members)
    : world_(world),
      initial_members_(initial_members),
      participating_(world.hosts.size(), false),
      views_(world.hosts.size()),
      identity_(world.hosts.size(), 0),
      ever_member_(world.hosts.size(), false),
      awaiting_rejoin_(world.hosts.size(), false),
      out_since_(world.hosts.size()),
      out_total_(world.hosts.size(), Duration::zero()),
      leaving_gracefully_(world.hosts.size(), false),
      join_start_(world.hosts.size()) {}

void GeodeRecorder::churn_leave(NodeId n, bool graceful) {
  const SimTime t = world_.sim.now();
  if (graceful) {
    leaving_gracefully_[n] = true;
    if (participating_[n] && measuring(t))
      leaves_.push_back(LeaveRecord{MemberId{n, current_incarnation(n), -1}, t, {}});
  } else if (participating_[n] && measuring(t)) {
    ++crash_leaves_;
  }
  join_start_[n].reset();
}

void GeodeRecorder::churn_join(NodeId n) {
  const SimTime t = world_.sim.now();
  join_start_[n] = t;
  if (measuring(t)) ++joins_;
}

uint32_t GeodeRecorder::current_incarnation(NodeId n) const {
  // The host incarnation plus the reconnects of its current process (member.h).
  return world_.hosts.incarnation(n) | (identity_[n] & ~kHostIncarnationMask);
}

bool GeodeRecorder::alive(const MemberId& m) const {
  const net::Hosts& h = world_.hosts;
  return m.node < h.size() && !h.is_crashed(m.node) && current_incarnation(m.node) == m.incarnation &&
         participating_[m.node];
}

void GeodeRecorder::set_out(NodeId n, bool out, SimTime t) {
  if (!ever_member_[n]) return;
  if (out) {
    if (!out_since_[n]) out_since_[n] = t;
    return;
  }
  if (!out_since_[n]) return;
  const SimTime from = std::max(*out_since_[n], world_.warmup_end);
  const SimTime to = std::min(t, world_.horizon);
  if (to > from) out_total_[n] = out_total_[n] + (to - from);
  out_since_[n].reset();
}

double GeodeRecorder::out_of_view_s(NodeId n) const {
  Duration d = out_total_[n];
  if (out_since_[n]) {
    const SimTime from = std::max(*out_since_[n], world_.warmup_end);
    const SimTime to = std::min(world_.sim.now(), world_.horizon);
    if (to > from) d = d + (to - from);
  }
  return d.seconds();
}

size_t GeodeRecorder::participating_now() const {
  size_t k = 0;
  for (NodeId n = 0; n < participating_.size(); ++n)
    if (participating_[n] && !world_.hosts.is_crashed(n)) ++k;
  return k;
}

void GeodeRecorder::reconnect_started(SimTime t, NodeId n, const MemberId& id) {
  identity_[n] = id.incarnation;
  awaiting_rejoin_[n] = true;
  if (measuring(t)) ++reconnects_;
}

void GeodeRecorder::message_sent(SimTime t, NodeId, Msg m, uint32_t bytes) {
  if (!measuring(t)) return;
  ++messages_[size_t(m)];
  bytes_[size_t(m)] += bytes;
}

void GeodeRecorder::suspicion_raised(SimTime t, NodeId, const MemberId& suspect) {
  const auto at = std::lower_bound(suspected_.begin(), suspected_.end(), suspect);
  if (at == suspected_.end() || !(*at == suspect)) suspected_.insert(at, suspect);
  for (CrashRecord& c : crashes_)
    if (c.id == suspect && !c.first_suspicion && t >= c.crashed) c.first_suspicion = t;
  if (crashes_.size() >= 64) charge_work(crashes_.size() / 64);  // sim/engine/budget.h
  if (!measuring(t)) return;
  ++suspicions_;
  if (alive(suspect)) ++false_suspicions_;
}

void GeodeRecorder::final_check_done(SimTime t, NodeId, const MemberId& suspect, bool passed) {
  if (passed) {
    const auto at = std::lower_bound(suspected_.begin(), suspected_.end(), suspect);
    if (at != suspected_.end() && *at == suspect) suspected_.erase(at);
  }
  if (!measuring(t)) return;
  ++final_checks_;
  if (passed) ++final_checks_passed_;
}

void GeodeRecorder::view_installed(SimTime t, NodeId at, const std::shared_ptr<const View>& v,
                                   bool created_here,
                                   const std::vector<MemberId>& removed) {
  participating_[at] = true;
  ever_member_[at] = true;
  set_out(at, false, t);
  if (awaiting_rejoin_[at]) {
    awaiting_rejoin_[at] = false;
    if (measuring(t)) ++reconnects_completed_;
  }
  views_[at] = v;
  if (join_start_[at]) {
    if (measuring(*join_start_[at])) join_to_view_.push_back((t - *join_start_[at]).seconds());
    join_start_[at].reset();
  }
  if (created_here) {
    for (const MemberId& r : removed) {
      for (LeaveRecord& l : leaves_)
        if (l.id == r && !l.removal) l.removal = t;
      for (size_t i = 0; i < crashes_.size(); ++i) {
        CrashRecord& c = crashes_[i];
        if (c.id == r && !c.removal) {
          c.removal = t;
          survivor_checks_.push_back(i);
        }
      }
      // Work inside this event (sim/engine/budget.h): one unit per 64 records looked at.
      if (crashes_.size() >= 64) charge_work(crashes_.size() / 64);
      const bool told_alive = std::find(told_removed_alive_.begin(), told_removed_alive_.end(),
                                        r) != told_removed_alive_.end();
      if (measuring(t) && (alive(r) || told_alive) &&
          std::find(false_removals_.begin(), false_removals_.end(), r) == false_removals_.end())
        false_removals_.push_back(r);
    }
    if (measuring(t)) ++views_installed_;
  }
  check_survivors(t);
}

void GeodeRecorder::disconnected(SimTime t, NodeId n, DisconnectReason why) {
  if (why == DisconnectReason::removed && !world_.hosts.is_crashed(n))
    told_removed_alive_.push_back(MemberId{n, current_incarnation(n), -1});
  participating_[n] = false;
  if (!world_.hosts.is_crashed(n)) set_out(n, true, t);
  if (measuring(t)) ++disconnects_[size_t(why)];
  check_survivors(t);
}

void GeodeRecorder::partition_declared(SimTime t, NodeId) {
  if (measuring(t)) ++partition_declarations_;
}

void GeodeRecorder::on_crash(NodeId n) {
  const SimTime t = world_.sim.now();
  const bool was_member = participating_[n];
  participating_[n] = false;
  set_out(n, false, t);  // a crashed host's down time is not "out of the view"
  awaiting_rejoin_[n] = false;
  const bool graceful_leave = leaving_gracefully_[n];
  leaving_gracefully_[n] = false;
  if (was_member && measuring(t) && !graceful_leave) {
    const MemberId id{n, current_incarnation(n), -1};
    const bool already = std::binary_search(suspected_.begin(), suspected_.end(), id);
    crashes_.push_back(CrashRecord{id, t, {}, {}, {}, already});
  }
  check_survivors(t);
}

void GeodeRecorder::on_recover(NodeId n, uint32_t) {
  participating_[n] = false;
  identity_[n] = 0;
  set_out(n, true, world_.sim.now());  // joining: up but not in a view
}

void GeodeRecorder::check_survivors(SimTime t) {
  // A record is done when no participating, running node other than the crashed one has a
  // view that contains it. The scan of a record starts at the node whose view held it last
  // time (the result does not depend on the order; only the cost does).
  const size_t nodes = participating_.size();
  survivor_witness_.resize(crashes_.size(), 0);
  uint64_t looked = 0;
  for (size_t k = 0; k < survivor_checks_.size();) {
    CrashRecord& c = crashes_[survivor_checks_[k]];
    NodeId& witness = survivor_witness_[survivor_checks_[k]];
    bool done = true;
    // Members share view objects: each distinct view is searched once per call.
    const View* last_view = nullptr;
    bool last_contains = false;
    for (size_t step = 0; step < nodes && done; ++step) {
      const NodeId n = NodeId((size_t(witness) + step) % nodes);
      ++looked;
      if (n == c.id.node || !participating_[n] || world_.hosts.is_crashed(n)) continue;
      const View* v = views_[n].get();
      if (v == nullptr) continue;
      if (v != last_view) {
        last_view = v;
        last_contains = v->contains(c.id);
      }
      if (last_contains) {
        done = false;
        witness = n;
      }
    }
    if (done) {
      c.all_survivors = t;
      survivor_checks_.erase(survivor_checks_.begin() + std::ptrdiff_t(k));
    } else {
      ++k;
    }
  }
  // Work inside this event (sim/engine/budget.h): one unit per 64 nodes looked at.
  if (looked >= 64) charge_work(looked / 64);
}

json GeodeRecorder::metrics() const {
  const double window_s = (world_.horizon - world_.warmup_end).seconds();
  const double member_s = double(initial_members_) * window_s;
  const double member_h = member_s / 3600.0;
  auto per = [](double x, double d) { return d > 0 ? json(x / d) : json(nullptr); };

  std::vector<double> to_suspicion, to_removal, to_all;
  uint64_t undetected = 0, already_suspected = 0;
  for (const CrashRecord& c : crashes_) {
    if (c.already_suspected) {
      ++already_suspected;
      continue;
    }
    if (c.first_suspicion) to_suspicion.push_back((*c.first_suspicion - c.crashed).seconds());
    if (c.removal)
      to_removal.push_back((*c.removal - c.crashed).seconds());
    else
      ++undetected;
    if (c.all_survivors) to_all.push_back((*c.all_survivors - c.crashed).seconds());
  }

  json msgs = json::object(), bytes = json::object();
  uint64_t total_msgs = 0, total_bytes = 0;
  for (size_t i = 0; i < kMsgCount; ++i) {
    if (Msg(i) == Msg::leave_request && !churn_) continue;  // registered with churn only
    std::string name(msg_name(Msg(i)));
    name = name.substr(name.find('.') + 1);
    msgs[name] = per(double(messages_[i]), member_s);
    bytes[name] = per(double(bytes_[i]), member_s);
    total_msgs += messages_[i];
    total_bytes += bytes_[i];
  }
  msgs["total"] = per(double(total_msgs), member_s);
  bytes["total"] = per(double(total_bytes), member_s);

  json m = json::object();
  m["members_initial_count"] = initial_members_;
  m["measured_s"] = window_s;
  m["suspicions_count"] = suspicions_;
  m["false_suspicions_count"] = false_suspicions_;
  m["false_suspicions_per_member_hour"] = per(double(false_suspicions_), member_h);
  m["false_removals_count"] = false_removals_.size();
  m["false_removals_per_member_hour"] = per(double(false_removals_.size()), member_h);
  m["forced_disconnects_removed_count"] = disconnects_[size_t(DisconnectReason::removed)];
  m["forced_disconnects_partition_count"] = disconnects_[size_t(DisconnectReason::partition)];
  m["already_suspected_at_crash_count"] = already_suspected;
  m["crashes_count"] = crashes_.size();
  m["crashes_undetected_count"] = undetected;
  // The per-crash samples, in crash order, capped so that result files stay bounded.
  auto with_values = [](const std::vector<double>& v) {
    json s = summarize(v);
    s["samples_s"] = std::vector<double>(v.begin(), v.begin() + std::min(v.size(), kMaxDetectionSamples));
    return s;
  };
  m["detection_first_suspicion_s"] = with_values(to_suspicion);
  m["detection_removal_s"] = with_values(to_removal);
  m["detection_all_survivors_s"] = with_values(to_all);
  m["views_installed_count"] = views_installed_;
  m["final_checks_count"] = final_checks_;
  m["final_checks_passed_count"] = final_checks_passed_;
  m["partition_declarations_count"] = partition_declarations_;
  m["reconnects_count"] = reconnects_;
  m["reconnects_completed_count"] = reconnects_completed_;
  std::vector<double> out;
  double out_sum = 0;
  for (NodeId n = 0; n < ever_member_.size(); ++n)
    if (ever_member_[n]) {
      out.push_back(out_of_view_s(n));
      out_sum += out.back();
    }
  m["out_of_view_s"] = summarize(out);
  m["out_of_view_member_s"] = out_sum;
  m["members_in_view_at_horizon_count"] = participating_now();
  if (churn_) {
    std::vector<double> to_removal;
    uint64_t unremoved = 0;
    for (const LeaveRecord& l : leaves_) {
      if (l.removal)
        to_removal.push_back((*l.removal - l.left).seconds());
      else
        ++unremoved;
    }
    m["churn_leaves_graceful_count"] = leaves_.size();
    m["churn_leaves_unremoved_count"] = unremoved;
    m["churn_leave_to_removal_s"] = with_values(to_removal);
    m["churn_leaves_crash_count"] = crash_leaves_;
    m["churn_joins_count"] = joins_;
    m["churn_joins_completed_count"] = join_to_view_.size();
    m["churn_join_to_view_s"] = with_values(join_to_view_);
  }
  m["messages_per_member_per_s"] = msgs;
  m["bytes_per_member_per_s"] = bytes;
  return m;
}

}  // namespace fdsim::geode
