#pragma once
// A starved memberlist member's work, as memberlist's goroutines share a slow CPU: the queue
// discipline (net::ServiceQueue, sim/net/hosts.h) that the SWIM model installs on every member
// named by `network.starved` (swim.starved_queue "memberlist", the default).
//
// Two kinds of work wait for the host's one server:
// - the *receive path and the timers* (`admit`, from Hosts): packets as net.go packetListen /
//   ingestPacket / handleCommand reads them (ping, indirect ping, ack and nack are handled right
//   there, as in handleCommand), push-pull exchanges (the stream path, handleConn), and every
//   timer callback (probe ticker, probe timeout and deadline, suspicion timers, gossip ticker,
//   relay expiry). Served first in, first out by arrival instant; among items that arrived at
//   the same instant, timer callbacks before packets (see "Resume" below).
// - the *handoff lists* (`hand_off`, from the member's receive path): every alive, suspect and
//   dead update of a packet goes to memberlist's high-priority list (alive) or low-priority
//   list (suspect, dead), net.go handleCommand lines 380-399: a list holding `depth` messages
//   (HandoffQueueDepth, default 1024) drops the new one ("handler queue full, dropping
//   message"); net.go getNextMessage (411-425) serves the newest message of the high list
//   first, then the newest of the low list (LIFO, high priority first).
// The two are served alternately while both have work (the packet handler goroutine and the
// others take turns on the CPU, as Go's scheduler gives runnable goroutines time slices in
// turn); either is served alone when the other is empty. A message handed off gives the
// handlers the next turn (handleCommand notifies handoffCh, waking the packet handler).
//
// Resume from a pause: the work deferred by the pause arrives as one batch at the resume
// instant (Hosts::replay_deferred admits it whole), so the rule "timers before packets at the
// same instant" puts every timer that came due during the pause, in due order, ahead of every
// packet that arrived during it, in arrival order. Why: in Go, a timer that expired while the
// process was stopped is run by the runtime's timer check as soon as a P schedules again
// (runtime findRunnable checks timers before it polls the network), so the probe's
// `time.After(ProbeTimeout)` (state.go 384), the suspicion's `time.AfterFunc` (suspicion.go 73) and
// the tickers (state.go 120, 132; a Go ticker keeps one tick, so a long pause yields one
// probe and one gossip round, as the model's tickers already do) are ready at once, while a
// packet waiting in the socket must first be read by NetTransport.udpListen
// (net_transport.go 318-345), passed through the packet channel to packetListen (net.go
// 312-322) and handled there: two goroutine hand-offs later. An ack that arrived during the
// pause therefore loses the race against its probe's timeout timer, and a refutation waiting
// in the socket loses against the suspicion timer: the member's own stale view decides first.
//
// Contract: deterministic (deques only); clear() (a crash) forgets everything; size() counts
// the waiting items of both kinds. Items handed off are ordinary ServiceItems (tag -1: they are
// not network deliveries), each costing one service time like any other work item.

#include <cstdint>
#include <deque>

#include "sim/net/hosts.h"

namespace fdsim::swim {

class HandoffQueue final : public net::ServiceQueue {
 public:
  explicit HandoffQueue(size_t depth) : depth_(depth) {}

  // net::ServiceQueue (the receive path and the timers).
  void admit(net::ServiceItem&& item, std::vector<net::ServiceItem>& dropped) override;
  bool empty() const override { return work_.empty() && high_.empty() && low_.empty(); }
  size_t size() const override { return work_.size() + high_.size() + low_.size(); }
  net::ServiceItem next() override;
  void clear() override;

  // A message handed off by the receive path (net.go handleCommand); false if its list was
  // full and the message was dropped.
  bool hand_off(net::ServiceItem&& item, bool high_priority);

  size_t waiting_work() const { return work_.size(); }
  size_t waiting_high() const { return high_.size(); }
  size_t waiting_low() const { return low_.size(); }
  uint64_t dropped() const { return dropped_; }
  uint64_t handed_off() const { return handed_off_; }

 private:
  std::deque<net::ServiceItem> work_;
  std::deque<net::ServiceItem> high_, low_;
  size_t depth_;
  bool handler_turn_ = false;  // both kinds waiting: serve the handoff lists next
  uint64_t dropped_ = 0, handed_off_ = 0;
};

}  // namespace fdsim::swim
