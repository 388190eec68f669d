#include "sim/engine/watchdog.h"

namespace fdsim {

void Watchdog::arm(SimTime deadline) {
  deadline_ = deadline;
  armed_ = true;
  if (sim_.pending(event_)) {
    if (event_time_ <= deadline) return;  // fires early and re-arms itself
    sim_.cancel(event_);
  }
  event_time_ = deadline;
  event_ = sim_.schedule_at(deadline, kind_, node_, [this] { fire(); });
}

void Watchdog::disarm() {
  armed_ = false;
  sim_.cancel(event_);
  event_ = {};
}

void Watchdog::fire() {
  event_ = {};
  if (!armed_) return;
  if (sim_.now() < deadline_) {
    event_time_ = deadline_;
    event_ = sim_.schedule_at(deadline_, kind_, node_, [this] { fire(); });
    return;
  }
  armed_ = false;
  on_expire_();
}

}  // namespace fdsim
