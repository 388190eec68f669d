#pragma once
// Message cost over the measurement window, the same for every model (docs/metrics.md,
// "Message cost"): the network counts here every attempt handed to it whose send instant is at
// or after the window start, by message type and by sending node, and every drop by reason.
//
// What counts as one message (one packet on the wire):
// - an unreliable send: one message;
// - a reliable send: one message per attempt (retransmissions are real cost), including the
//   attempt a crashed sender makes at the call (dropped at once, reason "down");
// - a probe (a TCP connect plus one request and one answer): the request is one message from
//   the prober at the probe's start; the answer is one message from the target when it serves
//   the request (whether or not the answer gets back). A refused connect (the kernel's reset)
//   and the TCP handshake itself are not counted.
// Bytes are the model's own message sizes (each model documents its table); a probe's request
// and answer carry the sizes the model passes with it.
// Normalisation: per configured node (`top.nodes.count`, whether or not a node is up) and per
// simulated second of the window [warmup_end, horizon).
// Cost: two 8-byte counters per node and per message type; no event, no randomness, so adding
// the meter changes no draw and no fingerprint.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/engine/ids.h"
#include "sim/engine/time.h"

namespace fdsim::net {

// Why an attempt did not arrive (trace records "drop" with this reason's name).
enum class DropReason : uint8_t { down, play_dead, cut, lost, queue_full };
inline constexpr size_t kDropReasonCount = 5;
const char* drop_reason_name(DropReason r);

class TrafficMeter {
 public:
  explicit TrafficMeter(size_t nodes) : node_messages_(nodes, 0), node_bytes_(nodes, 0) {}

  // Counting starts at `from` (the measurement window's start; default 0).
  void set_window_start(SimTime from) { from_ = from; }
  SimTime window_start() const { return from_; }

  void sent(SimTime now, uint16_t type, NodeId src, uint32_t bytes) {
    if (now < from_) return;
    if (type >= by_type_.size()) by_type_.resize(size_t(type) + 1);
    ++by_type_[type].messages;
    by_type_[type].bytes += bytes;
    if (src < node_messages_.size()) {
      ++node_messages_[src];
      node_bytes_[src] += bytes;
    }
  }
  void dropped(SimTime now, DropReason r) {
    if (now >= from_) ++drops_[size_t(r)];
  }

  // The `traffic` object of docs/metrics.md over [window start, window_end): type_names[i] is
  // the name of message type i (every registered type appears, zero or not).
  nlohmann::json metrics(const std::vector<std::string>& type_names, SimTime window_end) const;

 private:
  struct Count {
    uint64_t messages = 0;
    uint64_t bytes = 0;
  };
  SimTime from_ = SimTime::zero();
  std::vector<Count> by_type_;
  std::vector<uint64_t> node_messages_, node_bytes_;
  std::array<uint64_t, kDropReasonCount> drops_{};
};

}  // namespace fdsim::net
