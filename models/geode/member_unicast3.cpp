// The membership's reliable channel when reliable_retransmit > 0: JGroups UNICAST3 as Geode
// uses it (JGroups 3.6.20.Final, the version Geode's DependencyConstraints.groovy names;
// Geode's jgroups-config.xml sets xmit_interval="500" and leaves ack_threshold at 5).
// Line numbers are of src/org/jgroups/protocols/UNICAST3.java at tag JGroups-3.6.20.Final.
//
// What is modelled (docs/models/geode-membership.md, "Reliable channel"):
// - Send windows (SenderEntry): per destination identity, seqnos 1, 2, ...; every message
//   is kept until the cumulative ack covers it. Each copy is one datagram (lossy).
// - The xmit task (RetransmitTask, startRetransmitTask ~1112-1115: scheduleWithFixedDelay(
//   task, 0, xmit_interval) from start() ~403): one per member, first run when the member's
//   process starts, then every xmit_interval after the previous run (a run deferred by a
//   pause re-anchors the phase: fixed delay). triggerXmit (~1518-1574), in its order:
//   * receiver part (~1531-1546): for each sender with messages missing below the highest
//     received one, the first run only records the highest missing seqno (xmit_task_map);
//     a later run asks the sender to resend the missing seqnos up to the recorded one
//     (removeHigherThan(prev_seqno)) and records the new highest; no gap: the record goes.
//   * sender part (~1549-1564): for each send window, if highest acked < highest sent and
//     both equal the watermark of the previous run, resend the *highest sent* message only;
//     otherwise store (highest acked, highest sent) as the watermark. So the first resend of
//     a lost message comes at the task's second run after the send: 0.5 to 1.0 s later
//     (the old model: exactly 0.5 s), then one every interval; a newer send to the same
//     destination moves the watermark and postpones it.
//   * An XMIT_REQ is answered at once with the requested messages (handleXmitRequest).
// - Acks: UNICAST3 acks the highest seqno received without a gap, delayed to the receiver's
//   next task run (ack_threshold 5 > 1, ~783-786). The model's ack is implicit and instant
//   at the receipt (no ack datagram, never lost): see the README's known differences.
// - OOB delivery (Geode sets OOB on membership messages): a message is passed up when its
//   first copy arrives, in any order (~789-793); later copies are dropped as duplicates.
// - Not in UNICAST3, kept from the model's network: a message is abandoned (counted as
//   received, never delivered) once the network's reliable_give_up has passed since its
//   send, and a window to an identity that is gone (host crashed or restarted, process
//   disconnected) is dropped: UNICAST3 closes such connections at the next view.
//
// The task runs only while its member has an unacked message or a gap to repair: idle runs
// do nothing but store the watermark, which the next send changes anyway (so skipping them
// is exact), except that a pause while idle does not move the phase (a simplification).
#include "models/geode/member.h"

#include <algorithm>

namespace fdsim::geode {

using nlohmann::json;

struct Member::Unicast3Window {
  struct Copyable {
    net::MsgType type;
    uint32_t bytes;
    std::function<void()> deliver;  // emptied at the first receipt
    SimTime give_up;
  };
  MemberId sender, receiver;
  bool closed = false;                   // the sender's side is gone (reset)
  std::map<uint64_t, Copyable> table;    // sender: seqno -> message, every seqno > acked
  uint64_t highest_sent = 0;
  uint64_t acked = 0;                    // the cumulative ack: highest seqno without a gap
  uint64_t mark_acked = 0, mark_sent = 0;  // the sender's watermark (SenderEntry.watermark)
  std::set<uint64_t> received_above;     // receiver: received seqnos > acked
  uint64_t highest_received = 0;
  uint64_t xmit_mark = 0;                // receiver: xmit_task_map entry (0 = none)

  bool unacked() const { return acked < highest_sent; }
  bool gap() const { return acked < highest_received || xmit_mark != 0; }
  // A seqno arrives (or is abandoned): true if it is new.
  bool take(uint64_t seq) {
    if (seq <= acked || received_above.count(seq) > 0) return false;
    received_above.insert(seq);
    while (!received_above.empty() && *received_above.begin() == acked + 1) {
      received_above.erase(received_above.begin());
      ++acked;
    }
    highest_received = std::max(highest_received, seq);
    return true;
  }
  // The sender drops what the cumulative ack covers.
  void prune() { table.erase(table.begin(), table.upper_bound(acked)); }
};

void Member::send_unicast3(const MemberId& to, net::MsgType type, uint32_t bytes,
                           std::function<void()> deliver) {
  auto& w = send_windows_[to];
  if (!w) {
    w = std::make_shared<Unicast3Window>();
    w->sender = me_;
    w->receiver = to;
  }
  const uint64_t seq = ++w->highest_sent;
  w->table.emplace(seq, Unicast3Window::Copyable{type, bytes, std::move(deliver),
                                                now() + shared_.world.net.config().reliable_give_up});
  unicast3_copy(w, seq);
  xmit_task_wake();
}

void Member::unicast3_copy(const std::shared_ptr<Unicast3Window>& w, uint64_t seq) {
  auto it = w->table.find(seq);
  if (it == w->table.end()) return;
  shared_.world.net.send_unreliable(node_, w->receiver.node, it->second.type, it->second.bytes,
                                    [&sh = shared_, w, seq] {
                                      Member& r = sh.at(w->receiver.node);
                                      if (r.accepts(w->receiver)) r.unicast3_receive(w, seq);
                                    });
}

void Member::unicast3_receive(const std::shared_ptr<Unicast3Window>& w, uint64_t seq) {
  if (!w->take(seq)) return;  // a duplicate
  std::function<void()> deliver;
  if (auto it = w->table.find(seq); it != w->table.end()) {
    deliver = std::move(it->second.deliver);
    it->second.deliver = nullptr;  // received: never abandoned, never delivered again
  }
  w->prune();
  if (w->gap()) {
    recv_windows_[w->sender] = w;
    xmit_task_wake();
  }
  if (deliver) deliver();
}

void Member::on_xmit_request(const MemberId& from, const std::vector<uint64_t>& seqs) {
  auto it = send_windows_.find(from);
  if (it == send_windows_.end()) return;
  const std::shared_ptr<Unicast3Window> w = it->second;
  if (tracing()) trace("xmit_request_received", {{"from", from.node}, {"seqnos", seqs}});
  for (uint64_t s : seqs) unicast3_copy(w, s);
}

bool Member::xmit_task_busy() const {
  for (const auto& [to, w] : send_windows_)
    if (w->unacked()) return true;
  for (const auto& [from, w] : recv_windows_)
    if (w->gap()) return true;
  return false;
}

void Member::xmit_task_wake() {
  if (xmit_scheduled_) return;
  // The first run of the fixed-delay chain anchored at xmit_anchor_ strictly after now.
  const int64_t x = shared_.config.reliable_retransmit.count_ns();
  const int64_t d = (now() - xmit_anchor_).count_ns();
  const int64_t k = (d >= 0 ? d / x : -((-d + x - 1) / x)) + 1;
  xmit_scheduled_ = true;
  at(xmit_anchor_ + Duration::ns(x) * k, shared_.kinds.retransmit,
     [this] { xmit_task_run(); });
}

void Member::xmit_task_run() {
  xmit_scheduled_ = false;
  xmit_anchor_ = now();  // fixed delay: the next run is one interval after this one
  const net::Hosts& hosts = shared_.world.hosts;
  // Receiver part: ask for messages missing below the highest received (triggerXmit ~1531-1546).
  for (auto it = recv_windows_.begin(); it != recv_windows_.end();) {
    Unicast3Window& w = *it->second;
    std::vector<uint64_t> missing;
    for (uint64_t s = w.acked + 1; s < w.highest_received; ++s)
      if (w.received_above.count(s) == 0) missing.push_back(s);
    if (missing.empty() || w.closed) {
      w.xmit_mark = 0;  // xmit_task_map.remove(target)
      it = recv_windows_.erase(it);
      continue;
    }
    const uint64_t highest = missing.back();
    if (w.xmit_mark == 0) {
      w.xmit_mark = highest;  // no retransmission yet
    } else {
      std::erase_if(missing, [&](uint64_t s) { return s > w.xmit_mark; });
      if (highest > w.xmit_mark) w.xmit_mark = highest;
      if (!missing.empty()) {
        if (tracing()) trace("xmit_request", {{"to", w.sender.node}, {"seqnos", missing}});
        const uint32_t bytes = kHeaderBytes + 8 * uint32_t(missing.size());
        shared_.world.net.send_unreliable(
            node_, w.sender.node, shared_.xmit_type, bytes,
            [&sh = shared_, sender = w.sender, from = me_, missing] {
              Member& s = sh.at(sender.node);
              if (s.accepts(sender)) s.on_xmit_request(from, missing);
            });
      }
    }
    ++it;
  }
  // Sender part: resend the highest sent message if the watermark did not move (~1549-1564).
  for (auto it = send_windows_.begin(); it != send_windows_.end();) {
    const std::shared_ptr<Unicast3Window> w = it->second;
    const MemberId& to = w->receiver;
    if (hosts.is_crashed(to.node) || hosts.incarnation(to.node) != host_incarnation(to.incarnation) ||
        !shared_.at(to.node).accepts(to)) {
      w->closed = true;
      it = send_windows_.erase(it);
      continue;
    }
    // Not UNICAST3: the network's reliable give-up abandons a message.
    for (auto& [seq, c] : w->table)
      if (c.give_up <= now() && c.deliver) {
        c.deliver = nullptr;
        w->take(seq);
      }
    w->prune();
    if (w->unacked() && w->mark_acked == w->acked && w->mark_sent == w->highest_sent) {
      if (tracing()) trace("xmit_resend", {{"to", to.node}, {"seqno", w->highest_sent}});
      unicast3_copy(w, w->highest_sent);
    } else {
      w->mark_acked = w->acked;
      w->mark_sent = w->highest_sent;
    }
    ++it;
  }
  if (xmit_task_busy()) xmit_task_wake();
}

void Member::unicast3_reset() {
  for (auto& [to, w] : send_windows_) w->closed = true;
  send_windows_.clear();
  recv_windows_.clear();
  xmit_scheduled_ = false;  // a run still scheduled belongs to the old epoch: it is dropped
}

}  // namespace fdsim::geode
