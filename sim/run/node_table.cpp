#include "sim/run/node_table.h"

#include <algorithm>

namespace fdsim::run {

NodeTable::NodeTable(Simulator& sim, size_t node_count, SimTime warmup_end, SimTime horizon)
    : sim_(sim), warmup_end_(warmup_end), horizon_(horizon), rows_(node_count) {}

int64_t NodeTable::clipped(SimTime from, SimTime to) const {
  const SimTime a = std::max(from, warmup_end_), b = std::min(to, horizon_);
  return b > a ? (b - a).count_ns() : 0;
}

void NodeTable::on_crash(NodeId n) {
  Row& r = rows_[n];
  if (in_window(sim_.now())) ++r.crashes;
  if (r.paused) {  // a crash ends a pause
    r.paused_ns += clipped(r.paused_since, sim_.now());
    r.paused = false;
  }
  if (!r.down) {
    r.down = true;
    r.down_since = sim_.now();
  }
}

void NodeTable::on_recover(NodeId n, uint32_t) {
  Row& r = rows_[n];
  if (in_window(sim_.now())) ++r.recoveries;
  if (r.down) {
    r.down_ns += clipped(r.down_since, sim_.now());
    r.down = false;
  }
}

void NodeTable::on_pause(NodeId n) {
  Row& r = rows_[n];
  if (in_window(sim_.now())) ++r.pauses;
  if (!r.paused) {
    r.paused = true;
    r.paused_since = sim_.now();
  }
}

void NodeTable::on_resume(NodeId n) {
  Row& r = rows_[n];
  if (r.paused) {
    r.paused_ns += clipped(r.paused_since, sim_.now());
    r.paused = false;
  }
}

void NodeTable::on_sick(NodeId n, bool sick) {
  Row& r = rows_[n];
  if (sick && !r.sick) {
    r.sick = true;
    r.sick_since = sim_.now();
  } else if (!sick && r.sick) {
    r.sick_ns += clipped(r.sick_since, sim_.now());
    r.sick = false;
  }
}

void NodeTable::finish() {
  if (finished_) return;
  finished_ = true;
  for (Row& r : rows_) {
    if (r.down) r.down_ns += clipped(r.down_since, horizon_);
    if (r.paused) r.paused_ns += clipped(r.paused_since, horizon_);
    if (r.sick) r.sick_ns += clipped(r.sick_since, horizon_);
    r.down = r.paused = r.sick = false;
  }
}

nlohmann::json NodeTable::table() const {
  const int64_t window_ns = clipped(SimTime::zero(), horizon_);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    rows.push_back({{"node", i},
                    {"crashes_count", r.crashes},
                    {"recoveries_count", r.recoveries},
                    {"pauses_count", r.pauses},
                    {"up_time_s", Duration::ns(window_ns - r.down_ns).seconds()},
                    {"paused_time_s", Duration::ns(r.paused_ns).seconds()},
                    {"sick_time_s", Duration::ns(r.sick_ns).seconds()}});
  }
  return rows;
}

}  // namespace fdsim::run
