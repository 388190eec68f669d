#pragma once
// The optional per-node table (`"metrics": {"per_node": true}`, written under each arm's
// metrics as "hosts_per_node"): ground truth about every
// host over the measurement window [warmup_end, horizon], observed through Hosts' listener
// interface (so it is independent of any model).
//
// Contract: for each node 0..N-1, in node order: crashes, recoveries and pauses that happened
// in the window (counts), up_time_s (time not crashed, paused included), paused_time_s and
// sick_time_s, all clipped to the window. Every host starts up at t = 0. Call finish() once at
// the horizon, then table().

#include <vector>

#include <nlohmann/json.hpp>

#include "sim/net/hosts.h"

namespace fdsim::run {

class NodeTable : public net::HostListener {
 public:
  NodeTable(Simulator& sim, size_t node_count, SimTime warmup_end, SimTime horizon);

  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t) override;
  void on_pause(NodeId n) override;
  void on_resume(NodeId n) override;
  void on_sick(NodeId n, bool sick) override;

  void finish();
  nlohmann::json table() const;

 private:
  struct Row {
    uint64_t crashes = 0, recoveries = 0, pauses = 0;
    int64_t down_ns = 0, paused_ns = 0, sick_ns = 0;  // accumulated inside the window
    SimTime down_since, paused_since, sick_since;
    bool down = false, paused = false, sick = false;
  };
  // Length of [from, to) inside the window.
  int64_t clipped(SimTime from, SimTime to) const;
  bool in_window(SimTime t) const { return t >= warmup_end_ && t <= horizon_; }

  Simulator& sim_;
  SimTime warmup_end_, horizon_;
  std::vector<Row> rows_;
  bool finished_ = false;
};

}  // namespace fdsim::run
