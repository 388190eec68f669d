#include "sim/net/starvation.h"

#include <algorithm>

#include "sim/engine/trace.h"
#include "sim/net/hosts.h"

namespace fdsim::net {

Starvation::Starvation(Simulator& sim, Hosts& hosts, const RngFactory& rng,
                       std::vector<StarvedEntry> entries)
    : sim_(sim), hosts_(hosts), rng_(rng), entries_(std::move(entries)) {
  if (entries_.empty()) return;
  k_window_ = sim_.kind("net.starved");
  open_windows_.assign(hosts_.size(), 0);
  service_rng_.resize(hosts_.size());
  process_rng_.resize(entries_.size());
  std::vector<bool> has_queue(hosts_.size(), false);
  for (size_t e = 0; e < entries_.size(); ++e) {
    const StarvedEntry& en = entries_[e];
    process_rng_[e].resize(en.nodes.size());
    for (NodeId n : en.nodes) {
      if (!has_queue[n]) {
        has_queue[n] = true;
        if (en.queue_limit > 0 || en.lifo)
          hosts_.set_service_queue(n, bounded_queue(en.queue_limit, en.drop_oldest, en.lifo));
        if (en.timers_on_time || en.mode != StarveMode::service) hosts_.set_timers_on_time(n, true);
      }
      if (!en.mean_normal_s) {
        sim_.schedule_at(en.at, k_window_, n, [this, e, n] { open(e, n); });
        if (en.end) sim_.schedule_at(*en.end, k_window_, n, [this, e, n] { close(e, n); });
      } else {
        schedule_next(e, n);
      }
    }
  }
}

Rng& Starvation::process_stream(size_t e, NodeId n) {
  const auto& nodes = entries_[e].nodes;
  const size_t i = size_t(std::lower_bound(nodes.begin(), nodes.end(), n) - nodes.begin());
  std::unique_ptr<Rng>& p = process_rng_[e][i];
  if (!p) p = std::make_unique<Rng>(rng_.stream(n, entries_[e].stream));
  return *p;
}

// Process: the next window opens after a normal period from now (or from start).
void Starvation::schedule_next(size_t e, NodeId n) {
  const StarvedEntry& en = entries_[e];
  const SimTime from = std::max(sim_.now(), en.start);
  const SimTime at = from + Duration::from_seconds(process_stream(e, n).exponential(1.0 / *en.mean_normal_s));
  if (en.stop && at >= *en.stop) return;
  sim_.schedule_at(at, k_window_, n, [this, e, n] {
    open(e, n);
    const Duration len = Duration::from_seconds(
        process_stream(e, n).exponential(1.0 / *entries_[e].mean_starved_s));
    sim_.schedule_after(len, k_window_, n, [this, e, n] {
      close(e, n);
      schedule_next(e, n);
    });
  });
}

void Starvation::open(size_t e, NodeId n) {
  std::shared_ptr<Rng>& r = service_rng_[n];
  if (!r) r = std::make_shared<Rng>(rng_.stream(n, "host.service"));
  if (open_windows_[n]++ > 0 && entries_[e].mode == StarveMode::stall) return;  // already stalled
  switch (entries_[e].mode) {
    case StarveMode::service: hosts_.starve(n, entries_[e].service, r); break;
    case StarveMode::stall: hosts_.stall(n, entries_[e].socket_buffer_packets); break;
    case StarveMode::inbound_delay: hosts_.delay_inbound(n, entries_[e].service, r, entries_[e].delay_fifo); break;
  }
  if (TraceSink* t = sim_.trace()) t->record(sim_.now(), n, "starve", {{"entry", e}});
}

void Starvation::close(size_t e, NodeId n) {
  if (open_windows_[n] == 0) return;
  if (--open_windows_[n] == 0) {
    switch (entries_[e].mode) {
      case StarveMode::service: hosts_.end_starve(n); break;
      case StarveMode::stall: hosts_.end_stall(n, entries_[e].service, service_rng_[n]); break;
      case StarveMode::inbound_delay: hosts_.end_delay_inbound(n); break;
    }
  }
  if (TraceSink* t = sim_.trace()) t->record(sim_.now(), n, "starve_end", {{"entry", e}});
}

}  // namespace fdsim::net
