#pragma once
// Starved (slow-processing) hosts: the `network.starved` entries of a scenario and the object
// that switches the host condition (Hosts::starve, sim/net/hosts.h) on and off in time.
//
// An entry is either a scheduled window (at, until end or until the run's end) or a process:
// the node is normal for Exp(mean_normal_s), then starved for Exp(mean_starved_s), repeating
// from start_s; no window starts at or after stop_s (a window already begun runs to its end).
// While a window of an entry is open, the node's work costs draws of the entry's `service`
// model; windows of several entries on one node overlap as a union (the node is starved while
// any is open; the window begun last gives the service model).
// The node's queue discipline is that of the first entry naming it (bounded_queue(limit,
// drop_oldest, lifo)); a model may install its own afterwards (Hosts::set_service_queue). So is
// whether its timer callbacks wait for the server (`timers`: wait, the default) or run when due
// (on_time: Hosts::set_timers_on_time).
// Mode (`mode`): "service" (above; the default): every work item costs a service time;
// "stall": a descheduled process (Hosts::stall): nothing runs during the window, deliveries are
// held up to `socket_buffer_packets` (then dropped), and at its end the timers that came due run
// first and the held deliveries drain at draws of `service` each (the per-message cost), timers
// on time meanwhile; "inbound_delay": every delivery, connection probe and probe answer reaching
// the node during the window is handed over a draw of `service` later, timers and sends on time
// (Hosts::delay_inbound). Stall and inbound-delay nodes run their timers on time. A node is named
// by entries of one mode only (the reader refuses a mix).
// Randomness: service times from the node's stream "host.service" (one per node, created when
// first starved); process windows from "net.starved" for the first process entry, "net.starved#k"
// for the k-th (counting process entries in order). A run without entries creates nothing and
// schedules nothing. Events: two per window ("net.starved"), one per served item
// ("host.service").

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/engine/simulator.h"
#include "sim/net/latency.h"

namespace fdsim::net {

class Hosts;

enum class StarveMode : uint8_t { service, stall, inbound_delay };

struct StarvedEntry {
  StarveMode mode = StarveMode::service;
  size_t socket_buffer_packets = 0;  // stall: deliveries held at most (0 = unbounded)
  bool delay_fifo = false;           // inbound_delay: a lag in arrival order (Hosts::delay_inbound)
  std::vector<NodeId> nodes;
  std::shared_ptr<const LatencyModel> service;
  // Scheduled window (when mean_normal_s is unset): from `at`, until `end` (nullopt = the end).
  SimTime at;
  std::optional<SimTime> end;
  // Process: exponential normal and starved periods, in seconds.
  std::optional<double> mean_normal_s, mean_starved_s;
  SimTime start;
  std::optional<SimTime> stop;
  std::string stream;  // the process's RNG purpose
  // Queue discipline.
  size_t queue_limit = 0;  // waiting items; 0 = unbounded
  bool drop_oldest = false;
  bool lifo = false;
  // Timer callbacks wait for the server like messages (a CPU-starved process), or run when due
  // (only the receive path is slow). Per node, from the first entry naming it.
  bool timers_on_time = false;
};

class Starvation {
 public:
  // Schedules every entry's first window (nothing for an empty list) and installs the queue
  // disciplines. Keeps references to sim and hosts.
  Starvation(Simulator& sim, Hosts& hosts, const RngFactory& rng,
             std::vector<StarvedEntry> entries);

 private:
  void open(size_t entry, NodeId n);
  void close(size_t entry, NodeId n);
  void schedule_next(size_t entry, NodeId n);
  Rng& process_stream(size_t entry, NodeId n);

  Simulator& sim_;
  Hosts& hosts_;
  RngFactory rng_;
  std::vector<StarvedEntry> entries_;
  std::vector<std::vector<std::unique_ptr<Rng>>> process_rng_;  // [entry][index in nodes]
  std::vector<uint32_t> open_windows_;                          // per node
  std::vector<std::shared_ptr<Rng>> service_rng_;               // per node, lazily
  EventKind k_window_ = 0;
};

}  // namespace fdsim::net
