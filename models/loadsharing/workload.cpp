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
}

std::optional<SimTime> TaskSource::first_arrival(NodeId n) {
  return config_.arrivals[n].next_after(SimTime::zero(), streams_[n].arrivals.exponential(1.0));
}

DrawnArrival TaskSource::draw_task(NodeId n, SimTime now, std::optional<SimTime>* next) {
  NodeStreams& s = streams_[n];
  DrawnArrival d;
  d.at = now;
  d.exec = config_.exec_law(n).draw(s.exec);
  d.relative_deadline = config_.deadline.draw_relative(s.deadline, d.exec);
  *next = config_.arrivals[n].next_after(now, s.arrivals.exponential(1.0));
  return d;
}

}  // namespace fdsim::loadsharing
