#pragma once
// The simulated network: latency and loss models, partitions, loss bursts and delay spikes,
// and three transports.
//
// Transports (all are "from node src to node dst"; `deliver` runs on dst through
// Hosts::run_on, so crash/pause/play-dead semantics apply on arrival):
// - send_unreliable: one attempt. Dropped if src or dst is crashed or play-dead, if a partition
//   cuts src -> dst at send time, or with the loss probability of the link (plus any active
//   loss burst). Otherwise it arrives after a latency draw (plus any active delay spike).
//   Datagrams may be reordered.
// - send_reliable: like unreliable, but a lost attempt is retried every retransmit interval
//   until one gets through, the destination crashes (its incarnation at send time is gone), or
//   a partition cuts src -> dst at an attempt (the reliable channel gives up on a peer it cannot
//   reach), or the give-up time passes. Delivered at most once.
// - probe (TCP-like connect + one request/answer): if dst is crashed, the probe is refused
//   after one round trip; if dst is paused, play-dead, or cut off in either direction, the
//   connect hangs and the probe times out at `timeout`. Otherwise `serve` runs on dst on
//   arrival (after a pause, if one starts in between) and its answer comes back after another
//   latency draw; an answer later than `timeout` after the start is a timeout. No loss on probes
//   (TCP retransmits) beyond what timing implies.
// Every send is counted by message type (messages and bytes) for overhead metrics.
// Randomness: one stream per sending node ("net.latency", "net.loss"), created on first use,
// so a model that sends nothing draws nothing.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/net/hosts.h"
#include "sim/net/latency.h"

namespace fdsim::net {

using MsgType = uint16_t;

struct TypeCount {
  std::string name;
  uint64_t sent = 0;        // attempts handed to the network (retransmissions included)
  uint64_t bytes = 0;       // bytes of those attempts
  uint64_t delivered = 0;   // deliveries that ran on the destination
  uint64_t dropped = 0;     // lost, cut off, or destination down
};

enum class ProbeOutcome : uint8_t { answered, refused, timed_out };

struct ProbeResult {
  ProbeOutcome outcome;
  int64_t answer = 0;  // what `serve` returned, when answered
};

// A set of nodes, for partitions and link overrides.
using NodeSet = std::vector<NodeId>;

struct LinkOverride {
  NodeSet from;  // empty = any node
  NodeSet to;    // empty = any node
  std::shared_ptr<const LatencyModel> latency;  // null = keep the default
  std::optional<double> loss;
};

struct NetworkConfig {
  std::shared_ptr<const LatencyModel> latency;  // default model for every link
  double loss = 0.0;                            // per-attempt loss probability
  Duration retransmit_interval = Duration::ms(100);
  Duration reliable_give_up = Duration::s(60);
  std::vector<LinkOverride> overrides;  // first match wins
};

class Network {
 public:
  Network(Simulator& sim, Hosts& hosts, const RngFactory& rng, NetworkConfig config);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  Simulator& sim() { return sim_; }
  Hosts& hosts() { return hosts_; }

  // Returns the id of the message type with this name, registering it on first use.
  MsgType type(std::string_view name);
  const std::vector<TypeCount>& type_counts() const { return types_; }

  void send_unreliable(NodeId src, NodeId dst, MsgType type, uint32_t bytes,
                       std::function<void()> deliver);
  void send_reliable(NodeId src, NodeId dst, MsgType type, uint32_t bytes,
                     std::function<void()> deliver);
  void probe(NodeId src, NodeId dst, Duration timeout, MsgType type,
             std::function<int64_t()> serve, std::function<void(ProbeResult)> done);

  // True if a datagram from src to dst would currently be cut by a partition.
  bool cut(NodeId src, NodeId dst) const;
  // Draws one one-way latency for src -> dst now (including any active delay spike).
  Duration draw_latency(NodeId src, NodeId dst);

  // --- Writers: only sim/faults (and tests) call these. ---
  // A partition between groups a and b: both ways, or only a -> b. Returns a handle for heal().
  uint32_t add_partition(NodeSet a, NodeSet b, bool one_way);
  void heal(uint32_t partition);
  // Extra loss probability (combined as 1 - (1-p)(1-q)) on links from/to the given sets.
  uint32_t add_loss_burst(NodeSet from, NodeSet to, double loss);
  void end_loss_burst(uint32_t handle);
  // Extra one-way delay added to every latency draw on matching links.
  uint32_t add_delay_spike(NodeSet from, NodeSet to, Duration extra);
  void end_delay_spike(uint32_t handle);

 private:
  struct Impl;
  Simulator& sim_;
  Hosts& hosts_;
  std::vector<TypeCount> types_;
  std::unique_ptr<Impl> impl_;
  friend struct Impl;

 public:
  ~Network();
};

}  // namespace fdsim::net
