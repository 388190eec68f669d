#include "models/loadsharing/workload.h"

namespace fdsim::loadsharing {

TaskSource::TaskSource(const WorkloadConfig& config, const RngFactory& rng, size_t node_count)
    : config_(config) {
  streams_.reserve(node_count);
  for (size_t i = 0; i < node_count; ++i) {
    const NodeId n = NodeId(i);
    streams_.push_back(
        {rng.stream(n, "ls.arrivals"), rng.stream(n, "ls.exec"), rng.stream(n, "ls.deadline")});
  }
  processes_.resize(node_count);
  for (size_t i = 0; i < node_count && i < config.process_of_node.size(); ++i)
    if (config.process_of_node[i] >= 0)
      processes_[i].emplace(config.processes[size_t(config.process_of_node[i])],
                            config.process_rank[i]);
}

std::optional<SimTime> TaskSource::first_arrival(NodeId n) {
  if (processes_[n]) return processes_[n]->first(streams_[n].arrivals);
  return config_.arrivals[n].next_after(SimTime::zero(), streams_[n].arrivals.exponential(1.0));
}

DrawnArrival TaskSource::draw_task(NodeId n, SimTime now, std::optional<SimTime>* next) {
  NodeStreams& s = streams_[n];
  DrawnArrival d;
  d.at = now;
  d.exec = config_.exec_law(n).draw(s.exec);
  d.relative_deadline = config_.deadline.draw_relative(s.deadline, d.exec);
  *next = processes_[n] ? processes_[n]->next(now, s.arrivals)
                        : config_.arrivals[n].next_after(now, s.arrivals.exponential(1.0));
  return d;
}

}  // namespace fdsim::loadsharing
