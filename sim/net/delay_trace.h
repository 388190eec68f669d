#pragma once
// Time-ordered replay of a recorded delay/loss trace (latency model "trace").
//
// File format: one row per line, "offset_ms delay_ms" or "offset_ms lost" (separated by spaces,
// tabs or one comma); offsets are finite, >= 0 and strictly increasing; delays finite and >= 0;
// blank lines are skipped and '#' starts a comment. At least two rows. The reader follows the
// delay-samples reader (delay_samples.h): regular files only, at most kMaxDelaySamplesFileBytes,
// never echoes the file's contents; problems name the file and the line.
// Replay: the trace is a step function of time that loops with period `loop` (default: the last
// offset plus the mean row spacing, (last - first) / (rows - 1)). A packet sent at time t on the
// link src -> dst reads the row in force at position (t + offset(src, dst)) mod loop: the last
// row whose offset is <= that position (before the first row's offset, the last row, which is
// still in force from the previous loop). A "lost" row drops the datagram (reason "lost"; a
// reliable send retransmits), otherwise the packet takes the row's delay (plus active delay
// spikes). Where no loss applies (probes, Network::draw_latency) a lost row gives the delay of
// the latest delivered row before it (cyclically).
// Per-link offsets ("links": "offset", the default): offset(src, dst) =
//   floor(frac((src * nodes + dst + 1) * 0.6180339887498949) * loop)   (nanoseconds)
// (golden-ratio spreading: deterministic, no RNG, spread evenly over the loop however many links
// there are). "links": "shared": every link reads the trace at offset 0, so all links are slow
// at once.
// Used outside the network (a pause duration, a service time), draw() picks a uniform delivered
// row, like the empirical model; mean_ms()/quantile_ms() are those of the delivered rows' delays
// (what a model sizing timeouts sees, rows weighted equally, not by their duration).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/ids.h"
#include "sim/net/latency.h"

namespace fdsim::net {

struct TraceRow {
  int64_t offset_ns = 0;
  int64_t delay_ns = 0;  // kLostRow = the packet is lost
};
inline constexpr int64_t kLostRow = -1;

class TraceLatency final : public LatencyModel {
 public:
  // rows: at least two, strictly increasing offsets >= 0, at least one delivered row;
  // loop_ns > last offset (0 = the default above). Aborts otherwise (the reader validates).
  TraceLatency(std::vector<TraceRow> rows, int64_t loop_ns, bool shared);

  Duration draw(Rng& rng) const override;
  Duration draw(CompactRng& rng) const override;
  double mean_ms() const override { return mean_ms_; }
  double quantile_ms(double p) const override;
  double min_ms() const override { return sorted_ms_.front(); }

  // The row index in force for a packet sent at t on src -> dst (nodes = node count).
  size_t row_at(NodeId src, NodeId dst, size_t nodes, SimTime t) const;
  bool lost(size_t row) const { return rows_[row].delay_ns == kLostRow; }
  // The delay of row (for a lost row, that of the latest delivered row before it).
  Duration delay(size_t row) const { return Duration::ns(fallback_ns_[row]); }
  int64_t offset_ns(NodeId src, NodeId dst, size_t nodes) const;
  int64_t loop_ns() const { return loop_ns_; }
  bool shared() const { return shared_; }
  const std::vector<TraceRow>& rows() const { return rows_; }

 private:
  std::vector<TraceRow> rows_;
  std::vector<int64_t> fallback_ns_;  // per row: its delay, or the previous delivered delay
  std::vector<double> sorted_ms_;     // delivered delays, ascending
  double mean_ms_ = 0;
  int64_t loop_ns_ = 0;
  bool shared_ = false;
};

// Reads a trace file (format above). Never throws; on a problem returns no rows and sets
// `error` ("trace.txt:12: expected \"offset_ms delay_ms\" or \"offset_ms lost\" ..."); on
// success the rows satisfy TraceLatency's preconditions and `error` is empty.
// `digest` (if given) receives the file's digest for the run identity.
std::vector<TraceRow> load_delay_trace_rows(const std::string& path, std::string& error,
                                           std::string* digest = nullptr);

}  // namespace fdsim::net
