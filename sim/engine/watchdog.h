#pragma once
// A deadline that moves often (a heartbeat timeout pushed back on every message) at the cost of
// at most one pending event. Contract: on_expire runs exactly once per arming, at the first
// instant >= the latest deadline set, unless disarmed before. Moving the deadline later costs
// nothing (the pending event re-arms itself when it fires early); moving it earlier cancels
// and reschedules. (ns-3's Watchdog works the same way.)

#include <functional>

#include "sim/engine/simulator.h"

namespace fdsim {

class Watchdog {
 public:
  Watchdog(Simulator& sim, EventKind kind, NodeId node, std::function<void()> on_expire)
      : sim_(sim), kind_(kind), node_(node), on_expire_(std::move(on_expire)) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() { sim_.cancel(event_); }

  void arm(SimTime deadline);
  void arm_after(Duration d) { arm(sim_.now() + d); }
  void disarm();
  bool armed() const { return armed_; }
  SimTime deadline() const { return deadline_; }

 private:
  void fire();

  Simulator& sim_;
  EventKind kind_;
  NodeId node_;
  std::function<void()> on_expire_;
  EventId event_;
  SimTime event_time_;
  SimTime deadline_;
  bool armed_ = false;
};

}  // namespace fdsim
