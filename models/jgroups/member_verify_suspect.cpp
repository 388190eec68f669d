// VERIFY_SUSPECT (src/org/jgroups/protocols/VERIFY_SUSPECT.java of JGroups 2.12.2): a SUSPECT
// from the detectors is checked with ARE_YOU_DEAD and passed up to GMS by one timer thread.
#include <algorithm>

#include "models/jgroups/member.h"

namespace fdsim::jgroups {

// A detector's loop over the suspects of one event: FD_ALL.suspect() (FD_ALL.java:319-322),
// FD_SOCK.suspect() (FD_SOCK.java:459-462) and FD's SUSPECT message (FD.java:249-269) each call
//   for (suspect : suspects) { up_prot.up(SUSPECT, suspect); down_prot.down(SUSPECT, suspect); }
// in one thread. up() runs VERIFY_SUSPECT.up() -> verifySuspect() to its end (:78-95), and
// verifySuspect() puts the suspect in the table and starts the timer thread *before* it sends
// num_msgs ARE_YOU_DEAD down the stack (:190-207). That message is OOB, which the transport
// never bundles (TP.java:1167-1176): the calling thread marshals it and writes it to the
// socket itself (:1180-1184, doSend). So the next suspect enters the table only after that
// send, while the timer thread started for the first one may already have looked at the table
// and gone to sleep for a whole timeout (run(), :146-176): the next one is then confirmed about
// one timeout after the first instead of with it. The library's logs show the gaps (the
// harness's "detector" probe, directly below VERIFY_SUSPECT, logs each suspect as it passes).
//
// Contract: runs step(targets[i]) for i = from, from + 1, ... in order. After a step that
// returns true (VERIFY_SUSPECT sent ARE_YOU_DEAD) with another target left, one draw of
// are_you_dead_send_time (stream "jgroups.verify_send") is the time of that send: a positive
// draw resumes the loop that much later, as an event on the member's host (a crash drops it, a
// pause defers it, as it would stop the JVM's thread); a zero draw, or none configured, goes
// on at once in the same event (then the timer thread's first turn, a zero-delay event, finds
// every suspect of the loop in the table). A step that sent nothing (myself, or a suspect
// already in the table: verifySuspect() returns at once) takes no time.
void Member::suspect_loop(std::vector<NodeId> targets, size_t from,
                          std::function<bool(NodeId)> step) {
  for (size_t i = from; i < targets.size(); ++i) {
    const bool sent = step(targets[i]);
    if (!sent || i + 1 == targets.size() || !s_.config.are_you_dead_send_time) continue;
    const Duration send_time = s_.config.are_you_dead_send_time->draw(*verify_send_rng_);
    if (send_time <= Duration::zero()) continue;
    s_.world.hosts.schedule_after(
        self_, send_time, s_.kinds.verify_send,
        [this, rest = std::move(targets), next = i + 1, step = std::move(step)]() mutable {
          if (up_) suspect_loop(std::move(rest), next, std::move(step));
        });
    return;
  }
}

// up(SUSPECT) -> verifySuspect() (VERIFY_SUSPECT.java:78-95, 186-208): unless it is me or
// already in the table, note the start in the table, start the timer thread if none is alive
// (startTimer, :256-262), and send num_msgs ARE_YOU_DEAD.
bool Member::detector_up_suspect(NodeId target, Detector by) {
  s_.signals.detector_suspected(s_.now(), self_, target);
  s_.trace(self_, "jgroups_detector_suspect", {{"target", target}, {"by", detector_name(by)}});
  if (target == self_ || verify_.count(target) != 0) return false;
  verify_[target] = s_.now();
  verify_order_.put(target, s_.address_hash.at(target));
  if (!verify_thread_) {
    verify_thread_ = true;
    const uint64_t gen = ++verify_gen_;
    // The new thread's first turn: at once (a zero-delay event, so that suspects passed up
    // together are all in the table, as the thread finds them when it gets to run).
    s_.world.hosts.schedule_after(self_, Duration::zero(), s_.kinds.verify_timeout,
                                  [this, gen] { verify_thread_loop(gen); });
  }
  for (int64_t i = 0; i < s_.config.verify_num_msgs; ++i) {
    send(target, Msg::are_you_dead, [asker = self_](Member& m) {
      m.fd_heard_from(asker);
      // up(ARE_YOU_DEAD): num_msgs I_AM_NOT_DEAD back to the asker (:104-117).
      for (int64_t k = 0; k < m.s_.config.verify_num_msgs; ++k)
        m.send(asker, Msg::i_am_not_dead, [me = m.self_](Member& x) {
          x.fd_heard_from(me);
          x.verify_on_i_am_not_dead(me);
        });
    });
  }
  return true;
}

// unsuspect() (:239-253): only if it is still in the table: remove it (the timer thread is not
// woken), UNSUSPECT down (FD restarts pinging it, FD_SOCK stops rebroadcasting it) and up (GMS
// forgets the suspicion).
void Member::verify_on_i_am_not_dead(NodeId from) {
  auto it = verify_.find(from);
  if (it == verify_.end()) return;
  verify_.erase(it);
  verify_order_.remove(from);
  s_.trace(self_, "jgroups_unsuspect", {{"target", from}});
  if (has(Detector::fd)) fd_unsuspect(from);
  if (has(Detector::fd_sock)) bcast_remove(false, from);
  gms_suspected_.erase(std::remove(gms_suspected_.begin(), gms_suspected_.end(), from),
                       gms_suspected_.end());
}

// The timer thread, run() (:146-176):
//   while (!suspects.isEmpty()) {
//     diff = 0;
//     for each mbr in Hashtable order: diff = now - start(mbr);
//       if (diff >= timeout) { confirm and remove mbr; continue; }
//       diff = max(diff, timeout - diff);
//     pass every confirmed suspect up; if (diff > 0) sleep(diff);
//   }
// So the sleep is set by the entry visited last: a fresh entry alone gives `timeout` (confirmed
// exactly on time), but an entry already older than timeout / 2 gives its own age (it wakes at
// start + 2 x age), and a confirmed one its age, at least `timeout`: after confirming the last
// suspect the thread still sleeps one timeout before it exits, and a suspect that comes in
// meanwhile (no new thread: this one is alive) is first looked at when it wakes. Nothing wakes
// the thread early (unsuspect() does not notify it).
void Member::verify_thread_loop(uint64_t gen) {
  if (!up_ || gen != verify_gen_) return;
  if (verify_.empty()) {
    verify_thread_ = false;  // the loop condition: the thread exits
    return;
  }
  const SimTime now = s_.now();
  const Duration timeout = s_.config.verify_timeout;
  Duration diff = Duration::zero();
  std::vector<NodeId> confirmed;
  for (NodeId n : verify_order_.keys()) {
    diff = now - verify_.at(n);
    if (diff >= timeout) {
      confirmed.push_back(n);
      verify_.erase(n);
      verify_order_.remove(n);
      continue;
    }
    diff = std::max(diff, timeout - diff);
  }
  for (NodeId n : confirmed) {
    s_.trace(self_, "jgroups_verified", {{"target", n}});
    s_.signals.verified(now, self_, n);
    gms_suspect(n);
  }
  // diff == 0 only when every entry was confirmed at age 0 (timeout 0): no sleep, the loop
  // condition is checked at once (a zero-delay event).
  s_.world.hosts.schedule_after(self_, std::max(diff, Duration::zero()), s_.kinds.verify_timeout,
                                [this, gen] { verify_thread_loop(gen); });
}

}  // namespace fdsim::jgroups
