#pragma once
// The simulated network: latency and loss models, partitions, loss bursts and delay spikes,
// and three transports.
//
// Transports (all are "from node src to node dst"; `deliver` runs on dst through
// Hosts::run_on with dst's incarnation at send time, so a message to an incarnation that has
// crashed is dropped even if dst recovered since, and a paused dst runs it at resume):
// - send_unreliable: one attempt. Dropped at send time if src or dst is crashed or play-dead,
//   if a partition cuts src -> dst, or with the loss probability of the link combined with
//   every active loss burst on it. Otherwise it arrives after a latency draw plus every active
//   delay spike on the link; on arrival it is dropped if dst crashed (or recovered as a new
//   incarnation) or plays dead. Datagrams may be reordered.
// - send_reliable: attempts at t0, t0 + r, t0 + 2r, ... (r = retransmit interval) until one
//   gets through (lost attempts: the link's loss draw, src or dst play-dead at the attempt or
//   dst play-dead on arrival). The channel gives up, and the message is never delivered, when
//   src crashes (its retransmissions die with it), dst's send-time incarnation is gone, a
//   partition cuts src -> dst at an attempt, or an attempt would start at or after
//   t0 + give-up. Delivered at most once (exactly once if it does not give up). Acks are not
//   modelled: a delivered attempt is not retransmitted.
// - probe (TCP-like connect + one request/answer, e.g. Geode's final check): if a partition
//   cuts either direction or src or dst plays dead at the start, the connect hangs and the
//   probe times out at start + timeout. Otherwise the connect travels one latency draw; on
//   arrival, if dst is crashed a refusal comes back after another draw (one round trip; with
//   set_crashed_hosts_refuse(false) nothing comes back and the probe times out); if
//   dst plays dead or a partition now cuts either direction, it hangs; if dst is up, `serve`
//   runs on dst at once; if dst is paused, `serve` runs at dst's resume (the connect hangs in
//   the meantime) unless the probe has timed out by then. The answer is sent back after
//   another latency draw (it hangs if dst -> src is cut at that instant; like datagrams, an
//   answer already in flight is not caught by a later partition). Any outcome reached at or
//   after start + timeout is a timeout, reported at start + timeout. No loss on probes (TCP
//   retransmits) beyond what timing implies. `done` runs on src (through Hosts::run_on with
//   src's incarnation at the start): exactly once, unless src crashes first.
// Partitions: a set of active cuts, each between groups a and b (both ways, or only a -> b);
// an empty b means "every node not in a". A node is never cut from itself.
// Link overrides: the first override whose `from` and `to` sets contain (src, dst) gives the
// link's latency and/or loss (an empty set matches any node; a field the override leaves
// unset keeps the network default); later overrides are not consulted.
// Every attempt is counted by message type (sent, bytes; then delivered or dropped), and a
// probe counts as one message that is delivered if answered. Separately, the traffic meter
// (traffic.h) counts the measurement window's messages and bytes by type and sending node
// (a probe's served answer as a message of the target) and drops by reason. When Simulator::trace() is set,
// every attempt records "send" on src and every delivery "recv" on dst, with fields
// {"msg", "from", "to", "msg_id"}; drops record "drop" on src with a "reason"; a probe's end
// records "probe_result" on src with an "outcome". msg_id numbers messages 1, 2, ... in the
// order they are handed to the network (a reliable message keeps its id across attempts; a
// probe has one id for its request and answer), whether or not a trace is recorded, so the
// send, recv and drop records of one message pair up by it.
// Bursty loss: a link whose loss model is Gilbert–Elliott (bursty_loss.h) steps its chain at
// every attempt that reaches the loss draw (after the down, play-dead and cut checks) and is
// lost with the new state's probability combined with every active loss burst; one chain per
// directed link, or one per override with "shared" (stored only for links that carried
// traffic). link_loss() reports its stationary loss rate.
// Trace latency (delay_trace.h): a link whose latency model is a TraceLatency reads the row in
// force at the send instant; a "lost" row drops the attempt at the loss draw (before the
// Bernoulli or Gilbert–Elliott draw, which is skipped), otherwise the delay is the row's.
// Randomness: per sending node, streams "net.latency" and "net.loss", created on first use;
// a deterministic latency model and a zero loss probability draw nothing, so a run with
// constant latency and no loss creates no stream at all. Every one-way draw on the link
// a -> b uses a's stream (a probe's refusal or answer uses dst's). The streams are Rng
// (mt19937_64), or CompactRng when NetworkConfig::compact_streams is set.
// Cost per message: one pooled slot and the engine event; no heap allocation beyond the
// callback's own (std::function keeps captures of up to 16 bytes inline).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/engine/rng.h"
#include "sim/net/bursty_loss.h"
#include "sim/net/hosts.h"
#include "sim/net/latency.h"
#include "sim/net/starvation.h"

namespace fdsim::net {

using MsgType = uint16_t;

struct TypeCount {
  std::string name;
  uint64_t sent = 0;        // attempts handed to the network (retransmissions included)
  uint64_t bytes = 0;       // bytes of those attempts
  uint64_t delivered = 0;   // deliveries that ran on the destination
  uint64_t dropped = 0;     // lost, cut off, or destination down
  uint64_t gave_up = 0;     // reliable messages abandoned (never delivered)
};

enum class ProbeOutcome : uint8_t { answered, refused, timed_out };

// Sizes of a probe's two messages (traffic.h counts the request and, when served, the answer).
struct ProbeBytes {
  uint32_t request = 0;
  uint32_t answer = 0;
};

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
  // Loss of the matching links: `loss` (Bernoulli) or `loss_model` (Gilbert–Elliott), never
  // both; neither = the default's loss and loss model.
  std::optional<double> loss;
  std::optional<GilbertElliott> loss_model;
};

struct NetworkConfig {
  std::shared_ptr<const LatencyModel> latency;  // default model for every link
  double loss = 0.0;                            // per-attempt loss probability
  // Gilbert–Elliott bursty loss (bursty_loss.h) instead of `loss` on every link without an
  // override; unset = Bernoulli `loss`.
  std::optional<GilbertElliott> loss_model;
  Duration retransmit_interval = Duration::ms(100);
  Duration reliable_give_up = Duration::s(60);
  std::vector<LinkOverride> overrides;  // first match wins
  // Starved (slow-processing) hosts: windows and processes the network schedules from its
  // construction on (starvation.h); empty = none, and nothing is scheduled.
  std::vector<StarvedEntry> starved;
  // Per-node streams with the 12-byte CompactRng engine instead of Rng's mt19937_64: the same
  // keys, different draws; about 2 x 16 bytes per node instead of up to 2 x 2.5 KB per
  // sending node. Off by default so that existing results reproduce bit for bit.
  bool compact_streams = false;
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
  void probe(NodeId src, NodeId dst, Duration timeout, MsgType type, ProbeBytes bytes,
             std::function<int64_t()> serve, std::function<void(ProbeResult)> done);

  // Whether a probe to a crashed host is refused (true, the default: the process died and the
  // host's kernel answers the connect with a reset) or hangs until its timeout (false: the
  // whole machine is down and nothing answers). A model whose crashes stand for machines
  // sets false before the run.
  void set_crashed_hosts_refuse(bool refuse);
  // Message cost (traffic.h): counted from `from` on (sim/run sets the measurement window's
  // start before the models start); traffic_metrics() is the `traffic` object of
  // docs/metrics.md over [from, window_end).
  void set_traffic_window(SimTime from);
  nlohmann::json traffic_metrics(SimTime window_end) const;

  // True if a datagram from src to dst would currently be cut by a partition.
  bool cut(NodeId src, NodeId dst) const;
  // Draws one one-way latency for src -> dst now (including any active delay spike), from
  // src's "net.latency" stream.
  Duration draw_latency(NodeId src, NodeId dst);
  // The latency model and base loss probability of the link src -> dst (overrides applied,
  // loss bursts and delay spikes not; the stationary rate of a Gilbert–Elliott link): what a
  // model may use to size its timeouts.
  const LatencyModel& latency_model(NodeId src, NodeId dst) const;
  double link_loss(NodeId src, NodeId dst) const;
  const NetworkConfig& config() const;
  // Number of keyed RNG streams created so far (tests check that constant latency with no loss
  // creates none).
  size_t streams_created() const;

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
