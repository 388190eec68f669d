#pragma once
// Membership metrics of SWIM (docs/metrics.md, scope `swim`), recorded from the members'
// signals plus the ground truth of Hosts (a HostListener).
//
// Contract (everything counts only what happens at or after warmup_end):
// - A member is alive while its host has not crashed (paused, sick and play-dead hosts are
//   alive; a crashed member never comes back, see member.h).
// - suspicion raised: a probe failed and the prober suspected the target (memberlist logs
//   "Suspect X has failed, no acks received"); false if the target was alive.
// - removal: one member's view of another turns dead (or left). A false-removal episode starts
//   when an alive member is removed by some member while no (alive) member had it removed;
//   it ends when every member that removed it has taken it back.
// - a measured crash (at or after warmup_end, of a participating member): time to the first
//   suspicion raised about it, to its first removal, and to the instant every survivor (alive
//   member on another host) has it removed. Crashes never removed by anyone by the horizon are
//   undetected.
// - rates per member-hour and per member per second divide by (members) x (window length);
//   message counts are packets sent (a UDP compound message is one; every push-pull direction
//   and every TCP fallback ping is one).
// - starved members (network.starved names them; the block "starved" exists only then): every
//   removal of an alive member by one observer is a false-positive event, split by whether the
//   observer is starved ("by_starved") or not ("by_healthy", the Lifeguard paper's FP-) and
//   whether the removed member is starved; plus the handoff counts the model adds
//   (swim_model.cpp).
// - churn (sim/faults/churn.h; only after enable_churn(), so runs without churn emit the same
//   metrics as before): an identity is (slot, gen), gen = the host incarnation it started on
//   (Update::gen). Views and suspicions of an identity that is no longer the slot's current one
//   are never false and do not count toward the current identity's removals. A graceful leave
//   is no crash (no crash record; the leaver is not alive from its leave on); a crash leave is a
//   crash like any other. "Present" members of an event at t: alive members on other slots
//   whose identity started at or before t. Leave known by all: every present member still alive
//   has the leaver's view entry dead or left. Join known by all: every present member still
//   alive has taken the joiner in (its view of the slot turned alive or suspect for that
//   identity). A crash record's survivors are the members present at the crash; a record still
//   open when its slot gets a new identity is closed (removal_all never set; not undetected
//   even without a removal: churn.crashes_replaced_count).

#include <array>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/swim/context.h"
#include "sim/net/world.h"

namespace fdsim::swim {

class SwimRecorder final : public Signals, public net::HostListener {
 public:
  struct CrashRecord {
    NodeId node;
    SimTime crashed;
    std::optional<SimTime> first_suspicion;
    std::optional<SimTime> first_removal;
    std::optional<SimTime> removal_all;
    uint32_t gen = 0;     // the identity (churn)
    bool closed = false;  // its slot took a new identity before every survivor removed it
  };

  SwimRecorder(World& world, size_t members);

  // Signals.
  void message_sent(SimTime t, NodeId from, Msg m) override;
  void suspicion_raised(SimTime t, NodeId by, NodeId target, uint32_t target_gen) override;
  void state_changed(SimTime t, NodeId observer, NodeId target, uint32_t target_gen,
                     PeerState from, PeerState to) override;
  void refuted(SimTime t, NodeId n) override;
  void probe_finished(SimTime t, NodeId n, bool failed) override;
  void dead_declared(SimTime t, NodeId by, NodeId target, uint32_t target_gen) override;
  // HostListener.
  void on_crash(NodeId n) override;
  // Churn (swim_model.h): call enable_churn() before the run starts.
  void enable_churn() { churn_ = true; }
  void churn_absent(NodeId n);
  void churn_leave(NodeId n, bool graceful);
  void churn_join(NodeId n, uint32_t gen);

  nlohmann::json metrics() const;

  const std::vector<CrashRecord>& crashes() const { return crashes_; }
  uint64_t suspicions() const { return suspicions_; }
  uint64_t false_suspicions() const { return false_suspicions_; }
  uint64_t removals() const { return removals_; }
  uint64_t false_removals() const { return false_removals_; }
  uint64_t refutations() const { return refutations_; }
  uint64_t messages(Msg m) const { return messages_[size_t(m)]; }
  // False-positive events (starved runs): [observer starved][target starved].
  uint64_t false_removal_events(bool by_starved, bool of_starved) const {
    return fp_events_[by_starved][of_starved];
  }
  bool has_starved() const { return starved_count_ > 0; }

 private:
  struct ChurnRecord {  // a graceful leave or a join
    NodeId node;
    uint32_t gen;
    SimTime at;
    std::optional<SimTime> known_all;
    std::vector<bool> knows;  // joins: by observer slot, took the joiner in
  };
  bool measuring(SimTime t) const { return t >= world_.warmup_end; }
  bool current(NodeId n, uint32_t gen) const { return gen == gen_[n]; }
  bool alive_identity(NodeId n, uint32_t gen) const { return alive_[n] && gen == gen_[n]; }
  // Alive member s on another slot than n whose identity started at or before t.
  bool present(NodeId s, NodeId n, SimTime t) const { return s != n && alive_[s] && since_[s] <= t; }
  void check_all_removed(SimTime t);
  void check_churn_records(SimTime t);

  World& world_;
  size_t members_;
  std::vector<bool> alive_;                    // by node
  std::vector<std::vector<bool>> removed_;     // [observer][target]
  std::vector<size_t> removed_by_;             // alive observers that removed the target
  std::vector<CrashRecord> crashes_;
  uint64_t suspicions_ = 0, false_suspicions_ = 0, removals_ = 0, false_removals_ = 0,
           refutations_ = 0, probes_ = 0, probes_failed_ = 0;
  std::array<uint64_t, kMsgCount> messages_{};
  std::vector<bool> starved_;  // by node: named by a network.starved entry
  size_t starved_count_ = 0;
  uint64_t fp_events_[2][2] = {{0, 0}, {0, 0}};
  uint64_t fp_declared_[2][2] = {{0, 0}, {0, 0}};  // [declarer starved][target starved]
  // Churn.
  bool churn_ = false;
  std::vector<uint32_t> gen_;     // by slot: the current identity
  std::vector<SimTime> since_;    // by slot: when it started
  std::vector<bool> leaving_;     // by slot: a graceful leave, until its host goes down
  std::vector<ChurnRecord> leaves_, joins_;
  uint64_t crash_leaves_ = 0, leave_views_dead_ = 0;
};

// {"mean", "min", "p50", "max", "count"} of a sample (nulls when empty; p50 = the middle value,
// the mean of the two middle values for even n).
nlohmann::json summarize(std::vector<double> values);

}  // namespace fdsim::swim
