#pragma once
// A real-time task of the load-sharing model (docs/models/load-sharing.md, "Tasks").
//
// Contract: a task's attributes (arrival instant, execution time, absolute deadline) are fixed
// when it arrives at its origin node and never change afterwards; only its location (hops,
// previous holder) changes when it is transferred. The execution time is the exact amount of
// processor time it needs; whether schedulers may use it is a scenario option.

#include <cstdint>

#include "sim/engine/ids.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

struct Task {
  uint64_t id = 0;          // unique within a run, assigned in arrival order
  NodeId origin = kNoNode;  // where it arrived from the outside world
  NodeId prev = kNoNode;    // the node that last transferred it (kNoNode if never moved)
  SimTime arrival;          // arrival at the origin
  Duration exec;            // exact execution time
  SimTime deadline;         // absolute deadline = arrival + relative deadline
  SimTime joined;           // when it joined the queue of the node holding it (sojourn metrics)
  uint32_t hops = 0;        // transfers so far
  bool counted = false;     // arrived at or after the end of the warm-up (enters the metrics)
  bool feasible = true;     // exec <= relative deadline: it could meet its deadline somewhere
};

}  // namespace fdsim::loadsharing
