#pragma once
// The workload of the load-sharing model: who gets which tasks, when (docs/models/load-sharing.md, "Tasks").
//
// Contract: TaskSource draws node i's arrivals from the stream (i, "ls.arrivals") (Poisson:
// one Exp(1) per arrival, ArrivalSchedule; other processes: arrival_process.h), execution
// times from (i, "ls.exec") and relative deadlines from (i, "ls.deadline"), each task's
// attributes at its arrival, in arrival order. Nothing else is drawn from these streams, so with
// the same seed and replication every arm and every policy sees exactly the same tasks at every
// node (common random numbers), whatever happens to them afterwards.

#include <optional>
#include <vector>

#include "models/loadsharing/arrival_process.h"
#include "models/loadsharing/arrival_schedule.h"
#include "models/loadsharing/task.h"
#include "models/loadsharing/task_distributions.h"
#include "sim/engine/rng.h"

namespace fdsim::loadsharing {

struct WorkloadConfig {
  std::vector<ArrivalSchedule> arrivals;        // per node: Poisson (rate and load phases)
  // Non-Poisson arrival processes (`arrival_processes`): a node with process_of_node[n] >= 0
  // draws its arrivals from processes[process_of_node[n]] (its rank in the entry's node set is
  // process_rank[n]) instead of arrivals[n].
  std::vector<ArrivalProcessSpec> processes;
  std::vector<int32_t> process_of_node;  // per node; -1 = Poisson
  std::vector<size_t> process_rank;      // per node
  std::vector<ExecTimeDistribution> exec_laws;  // distinct laws (index 0 = the default)
  std::vector<size_t> exec_law_of_node;         // per node, index into exec_laws
  DeadlineDistribution deadline;

  const ExecTimeDistribution& exec_law(NodeId n) const { return exec_laws[exec_law_of_node[n]]; }
};

// The attributes of one node's next task, drawn lazily.
struct DrawnArrival {
  SimTime at;
  Duration exec;
  Duration relative_deadline;
};

class TaskSource {
 public:
  TaskSource(const WorkloadConfig& config, const RngFactory& rng, size_t node_count);

  // The first arrival at node n at or after t = 0, or nullopt if its rate is zero forever.
  std::optional<SimTime> first_arrival(NodeId n);
  // Called at the arrival instant `now` of node n's pending arrival: draws that task's execution
  // time and deadline and the time of the following arrival (nullopt = none).
  DrawnArrival draw_task(NodeId n, SimTime now, std::optional<SimTime>* next);

 private:
  struct NodeStreams {
    Rng arrivals;
    Rng exec;
    Rng deadline;
  };
  const WorkloadConfig& config_;
  std::vector<NodeStreams> streams_;
  std::vector<std::optional<ArrivalProcess>> processes_;  // per node; empty = Poisson
};

}  // namespace fdsim::loadsharing
