#pragma once
// What the Geode members announce (OMNeT++-style signals): the protocol code emits these and
// knows nothing of statistics; the recorder (geode_metrics.h) subscribes.
//
// Contract: every call is made at the simulated instant the event happens, by the node it
// happens on, exactly once per event; the view passed to view_installed() is the view as that
// node installs it, shared and immutable: a subscriber may keep the pointer (one copy of a view
// serves every member that installs it, so memory stays linear in the view size).

#include <memory>
#include <vector>

#include "models/geode/messages.h"
#include "models/geode/view.h"
#include "sim/engine/time.h"

namespace fdsim::geode {

enum class DisconnectReason { removed, partition };

class Signals {
 public:
  virtual ~Signals() = default;
  // A logical message handed to the network (retransmissions not counted).
  virtual void message_sent(SimTime, NodeId /*from*/, Msg, uint32_t /*bytes*/) {}
  // `by` sent a SuspectMembersMessage about `suspect` (its neighbour check failed).
  virtual void suspicion_raised(SimTime, NodeId /*by*/, const MemberId& /*suspect*/) {}
  virtual void final_check_done(SimTime, NodeId /*by*/, const MemberId& /*suspect*/,
                                bool /*passed*/) {}
  // `at` installed `view`; `created_here` when `at` is the coordinator that made it, in which
  // case `removed` lists the members of its previous view that the new view drops.
  virtual void view_installed(SimTime, NodeId /*at*/, const std::shared_ptr<const View>&,
                              bool /*created_here*/, const std::vector<MemberId>& /*removed*/) {}
  // A live member stopped participating (told it is removed, or a declared partition).
  virtual void disconnected(SimTime, NodeId, DisconnectReason) {}
  virtual void partition_declared(SimTime, NodeId /*coordinator*/) {}
  // A disconnected member starts re-joining under the new identity `id` (auto-reconnect).
  virtual void reconnect_started(SimTime, NodeId, const MemberId& /*id*/) {}
};

}  // namespace fdsim::geode
