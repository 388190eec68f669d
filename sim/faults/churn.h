#pragma once
// Churn (the "churn" fault, sim/faults/config.h): permanent leaves and fresh joins.
//
// Contract:
// - Slots: the churn entry's `nodes` start present, its `spare_nodes` start absent (their hosts
//   are taken down in FaultInjector::start(), before any Model::start(), so they are in no
//   initial view). Memory is bounded by the slots declared up front: every slot is a node of
//   the scenario's node set (counted by the cost estimate like any node).
// - Leave: the identity on a slot lives one draw of the session law from its start (t = start
//   for `nodes`, its join instant for a joiner). At that instant the participant is told
//   (churn_leave, graceful or not), then the host goes down (Hosts::crash). A graceful leave
//   runs the model's leave protocol first (messages sent then still go out: the network drops
//   only what a dead sender sends later). The identity never comes back; the slot becomes
//   free for a later joiner.
// - Join: join instants form a renewal process of the join law (from start); each takes the
//   lowest-numbered free slot, tells the participant (churn_join) and brings the host up
//   (Hosts::recover: a new host incarnation, so a fresh identity in every model). A join with
//   no free slot is skipped (trace "churn_join_skipped"). Nothing happens at or after stop.
// - Streams: sessions from one stream per slot (purpose "faults.churn", keyed on the slot:
//   the k-th identity on a slot takes that stream's k-th draw); join intervals from one
//   stream keyed on no node. Draws do not depend on the model's state.
// - Trace (when set): "churn_absent", "churn_leave" {graceful}, "churn_join" {incarnation},
//   "churn_join_skipped".
// - Only models with joins implement ChurnParticipant; the loader rejects churn for the
//   others (exit 2), and the injector fails loudly if churn reaches a run without one.

#include <memory>
#include <set>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/faults/config.h"
#include "sim/net/world.h"

namespace fdsim::faults {

class FaultInjector;

// The model side of churn.
class ChurnParticipant {
 public:
  virtual ~ChurnParticipant() = default;
  // Slot n is absent from t = 0 (before Model::start(); its host goes down right after).
  virtual void churn_absent(NodeId n) = 0;
  // The identity on n leaves for good now; its host goes down right after this returns.
  // graceful: run the model's leave protocol (it is not a failure); otherwise the departure
  // is a crash-stop and the model measures it as one.
  virtual void churn_leave(NodeId n, bool graceful) = 0;
  // A fresh identity joins on slot n: called just before its host comes up (on_recover
  // follows); the model runs its join protocol from on_recover.
  virtual void churn_join(NodeId n) = 0;
};

class ChurnDriver {
 public:
  ChurnDriver(World& world, const ChurnProcess& config, FaultInjector& injector,
              ChurnParticipant& participant);
  void start();  // at t = 0, inside FaultInjector::start()

 private:
  void schedule_leave(NodeId n, SimTime from);
  void leave_step(NodeId n, uint32_t incarnation);
  void join_step();
  bool active(SimTime t) const { return !config_.stop || t < *config_.stop; }

  World& world_;
  const ChurnProcess& config_;
  FaultInjector& injector_;
  ChurnParticipant& participant_;
  std::vector<Rng> session_rngs_;  // by slot index (slots_ order)
  std::vector<NodeId> slots_;      // nodes then spare, sorted
  Rng join_rng_;
  std::set<NodeId> free_;          // slots without an identity
  EventKind k_leave_, k_join_;
};

}  // namespace fdsim::faults
