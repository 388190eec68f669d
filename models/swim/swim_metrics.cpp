#include "models/swim/swim_metrics.h"

#include "sim/engine/budget.h"

#include <algorithm>
#include <numeric>

namespace fdsim::swim {

using nlohmann::json;

SwimRecorder::SwimRecorder(World& world, size_t members)
    : world_(world),
      members_(members),
      alive_(members, true),
      removed_(members, std::vector<bool>(members, false)),
      removed_by_(members, 0),
      starved_(members, false),
      gen_(members, 0),
      since_(members, SimTime{}),
      leaving_(members, false) {
  for (const net::StarvedEntry& e : world.net.config().starved)
    for (NodeId n : e.nodes)
      if (n < members && !starved_[n]) {
        starved_[n] = true;
        ++starved_count_;
      }
}

void SwimRecorder::message_sent(SimTime t, NodeId, Msg m) {
  if (measuring(t)) ++messages_[size_t(m)];
}

void SwimRecorder::suspicion_raised(SimTime t, NodeId, NodeId target, uint32_t target_gen) {
  if (measuring(t)) {
    ++suspicions_;
    if (alive_identity(target, target_gen)) ++false_suspicions_;
  }
  for (CrashRecord& c : crashes_)
    if (c.node == target && c.gen == target_gen && !c.first_suspicion) c.first_suspicion = t;
}

void SwimRecorder::dead_declared(SimTime t, NodeId by, NodeId target, uint32_t target_gen) {
  if (measuring(t) && current(target, target_gen) && alive_[target])
    ++fp_declared_[starved_[by]][starved_[target]];
}

void SwimRecorder::state_changed(SimTime t, NodeId observer, NodeId target, uint32_t target_gen,
                                 PeerState from, PeerState to) {
  const auto gone = [](PeerState s) { return s == PeerState::dead || s == PeerState::left; };
  // Views of an earlier identity of the slot count as removals, never as false ones, and are
  // not the current identity's (removed_ tracks views of the current identity only).
  const bool cur = current(target, target_gen);
  if (!gone(from) && gone(to)) {
    if (cur) removed_[observer][target] = true;
    if (measuring(t)) {
      ++removals_;
      if (cur && alive_[target] && removed_by_[target] == 0) ++false_removals_;
      if (cur && alive_[target]) ++fp_events_[starved_[observer]][starved_[target]];
    }
    if (cur) ++removed_by_[target];
    for (CrashRecord& c : crashes_)
      if (c.node == target && c.gen == target_gen && !c.first_removal) c.first_removal = t;
    if (churn_ && to == PeerState::dead)
      for (const ChurnRecord& l : leaves_)
        if (l.node == target && l.gen == target_gen) ++leave_views_dead_;
    check_all_removed(t);
    if (churn_) check_churn_records(t);
  } else if (gone(from) && !gone(to)) {
    // A fresh view entry (a churn joiner, or a new identity replacing an old one) enters as
    // dead without a removal: only a view that was removed is taken back.
    if (cur && removed_[observer][target]) {
      removed_[observer][target] = false;
      --removed_by_[target];
    }
    if (churn_) {
      for (ChurnRecord& j : joins_)
        if (j.node == target && j.gen == target_gen) j.knows[observer] = true;
      check_churn_records(t);
    }
  }
}

void SwimRecorder::churn_absent(NodeId n) {
  // In nobody's view and not alive; its host going down (next) is no crash.
  if (n < members_) alive_[n] = false;
}

void SwimRecorder::churn_leave(NodeId n, bool graceful) {
  const SimTime t = world_.sim.now();
  if (n >= members_ || !alive_[n]) return;
  if (!graceful) {
    if (measuring(t)) ++crash_leaves_;
    return;  // the crash that follows is measured as one
  }
  leaving_[n] = true;
  if (measuring(t)) leaves_.push_back(ChurnRecord{n, gen_[n], t, std::nullopt, {}});
}

void SwimRecorder::churn_join(NodeId n, uint32_t gen) {
  const SimTime t = world_.sim.now();
  if (n >= members_) return;
  // The slot's earlier identity is gone for good: its open crash record can no longer finish,
  // and no view of it counts toward the new identity's removals.
  for (CrashRecord& c : crashes_)
    if (c.node == n && !c.removal_all) c.closed = true;
  for (NodeId s = 0; s < members_; ++s) {
    removed_[s][n] = false;
    removed_[n][s] = false;
  }
  removed_by_[n] = 0;
  alive_[n] = true;
  gen_[n] = gen;
  since_[n] = t;
  if (measuring(t)) joins_.push_back(ChurnRecord{n, gen, t, std::nullopt, std::vector<bool>(members_, false)});
}

void SwimRecorder::check_churn_records(SimTime t) {
  // Work inside the event (sim/engine/budget.h): one unit per 64 records or views looked at;
  // the cost estimate's churn term counts the same (sim/run/scenario_loader.cpp).
  uint64_t looked = leaves_.size() + joins_.size();
  for (ChurnRecord& l : leaves_) {
    if (l.known_all || !current(l.node, l.gen)) continue;
    bool all = true;
    NodeId s = 0;
    for (; s < members_ && all; ++s)
      if (present(s, l.node, l.at) && !removed_[s][l.node]) all = false;
    looked += s;
    if (all) l.known_all = t;
  }
  for (ChurnRecord& j : joins_) {
    if (j.known_all || !alive_identity(j.node, j.gen)) continue;
    bool all = true;
    NodeId s = 0;
    for (; s < members_ && all; ++s)
      if (present(s, j.node, j.at) && !j.knows[s]) all = false;
    looked += s;
    if (all) j.known_all = t;
  }
  if (looked >= 64) charge_work(looked / 64);
}

void SwimRecorder::refuted(SimTime t, NodeId) {
  if (measuring(t)) ++refutations_;
}

void SwimRecorder::probe_finished(SimTime t, NodeId, bool failed) {
  if (!measuring(t)) return;
  ++probes_;
  if (failed) ++probes_failed_;
}

void SwimRecorder::on_crash(NodeId n) {
  if (n >= members_ || !alive_[n]) return;
  const SimTime t = world_.sim.now();
  alive_[n] = false;
  for (NodeId target = 0; target < members_; ++target)
    if (removed_[n][target]) --removed_by_[target];
  const bool left = leaving_[n];
  leaving_[n] = false;
  if (!left && measuring(t))
    crashes_.push_back(CrashRecord{n, t, std::nullopt, std::nullopt, std::nullopt, gen_[n], false});
  check_all_removed(t);
  if (churn_) check_churn_records(t);
}

void SwimRecorder::check_all_removed(SimTime t) {
  for (CrashRecord& c : crashes_) {
    if (!c.first_removal || c.removal_all || c.closed) continue;
    bool all = true;
    for (NodeId s = 0; s < members_ && all; ++s)
      if (present(s, c.node, c.crashed) && !removed_[s][c.node]) all = false;
    if (all) c.removal_all = t;
  }
}

json summarize(std::vector<double> v) {
  if (v.empty())
    return json{{"mean", nullptr}, {"min", nullptr}, {"p50", nullptr}, {"max", nullptr},
                {"count", 0}};
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double p50 = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return json{{"mean", std::accumulate(v.begin(), v.end(), 0.0) / double(n)},
              {"min", v.front()},
              {"p50", p50},
              {"max", v.back()},
              {"count", n}};
}

json SwimRecorder::metrics() const {
  const double measured_s = (world_.horizon - world_.warmup_end).seconds();
  const double member_s = double(members_) * measured_s;
  const auto per_member_hour = [&](uint64_t c) -> json {
    if (member_s <= 0) return nullptr;
    return double(c) / (member_s / 3600.0);
  };
  std::vector<double> first_suspicion, first_removal, removal_all;
  uint64_t undetected = 0;
  for (const CrashRecord& c : crashes_) {
    if (c.first_suspicion) first_suspicion.push_back((*c.first_suspicion - c.crashed).seconds());
    if (c.first_removal) first_removal.push_back((*c.first_removal - c.crashed).seconds());
    else if (!c.closed) ++undetected;
    if (c.removal_all) removal_all.push_back((*c.removal_all - c.crashed).seconds());
  }
  json msgs = json::object();
  uint64_t udp = 0, tcp = 0;
  for (size_t m = 0; m < kMsgCount; ++m) {
    msgs[std::string(msg_name(Msg(m)))] = member_s > 0 ? json(double(messages_[m]) / member_s) : json(nullptr);
    (msg_is_tcp(Msg(m)) ? tcp : udp) += messages_[m];
  }
  const auto rate = [&](uint64_t c) -> json { return member_s > 0 ? json(double(c) / member_s) : json(nullptr); };
  msgs["udp"] = rate(udp);
  msgs["tcp"] = rate(tcp);
  msgs["total"] = rate(udp + tcp);
  json out{{"members_count", members_},
              {"measured_s", measured_s},
              {"probes_count", probes_},
              {"probes_failed_count", probes_failed_},
              {"suspicions_count", suspicions_},
              {"false_suspicions_count", false_suspicions_},
              {"false_suspicions_per_member_hour", per_member_hour(false_suspicions_)},
              {"refutations_count", refutations_},
              {"removals_count", removals_},
              {"false_removals_count", false_removals_},
              {"false_removals_per_member_hour", per_member_hour(false_removals_)},
              {"crashes_count", crashes_.size()},
              {"crashes_undetected_count", undetected},
              {"detection_first_suspicion_s", summarize(first_suspicion)},
              {"detection_first_removal_s", summarize(first_removal)},
              {"detection_removal_all_s", summarize(removal_all)},
              {"messages_per_member_per_s", msgs}};
  if (churn_) {
    uint64_t replaced = 0;
    for (const CrashRecord& c : crashes_)
      if (c.closed) ++replaced;
    std::vector<double> leave_all, join_all;
    for (const ChurnRecord& l : leaves_)
      if (l.known_all) leave_all.push_back((*l.known_all - l.at).seconds());
    for (const ChurnRecord& j : joins_)
      if (j.known_all) join_all.push_back((*j.known_all - j.at).seconds());
    out["churn"] = json{{"leaves_graceful_count", leaves_.size()},
                        {"leaves_crash_count", crash_leaves_},
                        {"crashes_replaced_count", replaced},
                        {"leave_known_all_s", summarize(leave_all)},
                        {"leaves_not_known_all_count", leaves_.size() - leave_all.size()},
                        {"leave_views_dead_count", leave_views_dead_},
                        {"joins_count", joins_.size()},
                        {"join_known_all_s", summarize(join_all)},
                        {"joins_not_known_all_count", joins_.size() - join_all.size()}};
  }
  if (starved_count_ > 0) {
    const uint64_t by_healthy = fp_events_[0][0] + fp_events_[0][1];
    const uint64_t by_starved = fp_events_[1][0] + fp_events_[1][1];
    out["starved"] = json{{"members_count", starved_count_},
                          {"false_removal_events_count", by_healthy + by_starved},
                          {"false_removal_events_by_healthy_count", by_healthy},
                          {"false_removal_events_by_starved_count", by_starved},
                          {"false_removal_events_of_healthy_count", fp_events_[0][0] + fp_events_[1][0]},
                          {"false_removal_events_of_starved_count", fp_events_[0][1] + fp_events_[1][1]}};
    const char* role[2] = {"healthy", "starved"};
    for (int b = 0; b < 2; ++b)
      for (int o = 0; o < 2; ++o) {
        out["starved"][std::string("false_removal_events_by_") + role[b] + "_of_" + role[o] + "_count"] =
            fp_events_[b][o];
        out["starved"][std::string("false_dead_declarations_by_") + role[b] + "_of_" + role[o] + "_count"] =
            fp_declared_[b][o];
      }
    out["starved"]["false_dead_declarations_count"] =
        fp_declared_[0][0] + fp_declared_[0][1] + fp_declared_[1][0] + fp_declared_[1][1];
  }
  return out;
}

}  // namespace fdsim::swim
