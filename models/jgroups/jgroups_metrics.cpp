#include "models/jgroups/jgroups_metrics.h"

#include <algorithm>

#include "models/swim/swim_metrics.h"

namespace fdsim::jgroups {

using nlohmann::json;

JGroupsRecorder::JGroupsRecorder(World& world, size_t members)
    : world_(world),
      members_(members),
      alive_(members, true),
      crashed_(members, false),
      removed_(members, std::vector<bool>(members, false)) {}

void JGroupsRecorder::message_sent(SimTime t, NodeId, Msg m) {
  if (measuring(t)) ++messages_[size_t(m)];
}

void JGroupsRecorder::detector_suspected(SimTime t, NodeId, NodeId target) {
  if (measuring(t)) {
    ++detector_suspicions_;
    if (alive_[target]) ++false_detector_suspicions_;
  }
  for (FaultRecord& f : faults_)
    if (f.node == target && !f.first_suspicion && t >= f.at) f.first_suspicion = t;
}

void JGroupsRecorder::verified(SimTime t, NodeId, NodeId target) {
  if (measuring(t)) {
    ++verified_;
    if (alive_[target]) ++false_verified_;
  }
  for (FaultRecord& f : faults_)
    if (f.node == target && !f.first_verified && t >= f.at) f.first_verified = t;
}

void JGroupsRecorder::view_installed(SimTime t, NodeId observer, uint64_t view_id,
                                     const std::vector<NodeId>& members) {
  if (measuring(t) && view_ids_.insert(view_id).second) ++views_;
  std::vector<bool> in(members_, false);
  for (NodeId n : members) in[n] = true;
  for (NodeId target = 0; target < members_; ++target) {
    const bool was_removed = removed_[observer][target];
    removed_[observer][target] = !in[target];
    if (!in[target] && !was_removed && target != observer) {
      if (measuring(t) && counted_removals_.insert({view_id, target}).second) {
        ++removals_;
        if (alive_[target]) ++false_removals_;
      }
      if (alive_[observer]) {
        for (FaultRecord& f : faults_)
          if (f.node == target && !f.first_removal) f.first_removal = t;
      }
    }
  }
  check_all_removed(t);
}

void JGroupsRecorder::fault(NodeId n, bool crash) {
  if (n >= members_ || !alive_[n]) return;
  const SimTime t = world_.sim.now();
  alive_[n] = false;
  if (measuring(t)) faults_.push_back(FaultRecord{n, t, crash, {}, {}, {}, {}});
  check_all_removed(t);
}

void JGroupsRecorder::on_crash(NodeId n) {
  if (n < members_) crashed_[n] = true;
  fault(n, true);
}
void JGroupsRecorder::on_pause(NodeId n) { fault(n, false); }
void JGroupsRecorder::on_resume(NodeId n) {
  if (n < members_ && !crashed_[n]) alive_[n] = true;
}

void JGroupsRecorder::check_all_removed(SimTime t) {
  for (FaultRecord& f : faults_) {
    if (!f.first_removal || f.removal_all) continue;
    bool all = true;
    for (NodeId s = 0; s < members_ && all; ++s)
      if (s != f.node && alive_[s] && !removed_[s][f.node]) all = false;
    if (all) f.removal_all = t;
  }
}

json JGroupsRecorder::metrics() const {
  const double measured_s = (world_.horizon - world_.warmup_end).seconds();
  const double member_s = double(members_) * measured_s;
  const auto per_member_hour = [&](uint64_t c) -> json {
    if (member_s <= 0) return nullptr;
    return double(c) / (member_s / 3600.0);
  };
  std::vector<double> sus, ver, first, all;
  uint64_t undetected = 0;
  for (const FaultRecord& f : faults_) {
    if (f.first_suspicion) sus.push_back((*f.first_suspicion - f.at).seconds());
    if (f.first_verified) ver.push_back((*f.first_verified - f.at).seconds());
    if (f.first_removal) first.push_back((*f.first_removal - f.at).seconds());
    else ++undetected;
    if (f.removal_all) all.push_back((*f.removal_all - f.at).seconds());
  }
  json msgs = json::object();
  uint64_t total = 0;
  for (size_t m = 0; m < kMsgCount; ++m) {
    msgs[std::string(msg_name(Msg(m)))] = member_s > 0 ? json(double(messages_[m]) / member_s) : json(nullptr);
    total += messages_[m];
  }
  msgs["total"] = member_s > 0 ? json(double(total) / member_s) : json(nullptr);
  return json{{"members_count", members_},
              {"measured_s", measured_s},
              {"detector_suspicions_count", detector_suspicions_},
              {"false_detector_suspicions_count", false_detector_suspicions_},
              {"false_detector_suspicions_per_member_hour", per_member_hour(false_detector_suspicions_)},
              {"verified_suspicions_count", verified_},
              {"false_verified_suspicions_count", false_verified_},
              {"false_verified_suspicions_per_member_hour", per_member_hour(false_verified_)},
              {"views_count", views_},
              {"removals_count", removals_},
              {"false_removals_count", false_removals_},
              {"false_removals_per_member_hour", per_member_hour(false_removals_)},
              {"faults_count", faults_.size()},
              {"faults_undetected_count", undetected},
              {"detection_first_suspicion_s", swim::summarize(sus)},
              {"detection_first_verified_s", swim::summarize(ver)},
              {"detection_first_removal_s", swim::summarize(first)},
              {"detection_removal_all_s", swim::summarize(all)},
              {"messages_per_member_per_s", msgs}};
}

}  // namespace fdsim::jgroups
