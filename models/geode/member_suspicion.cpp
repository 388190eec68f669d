// Member: suspicion fan-out and receipt and final checks (docs/models/geode-membership.md,
// "Suspicion recipients", "Receiving a suspicion", "Final check").
#include <algorithm>

#include "models/geode/member.h"
#include "models/geode/ring.h"
#include "models/geode/view_creator.h"
#include "sim/engine/budget.h"

namespace fdsim::geode {

using nlohmann::json;

void Member::initiate_suspicion(const MemberId& target) {
  if (!participating() || !in_view(target) || target == me_) return;
  if (removal_requested_.count(target)) return;
  const std::vector<MemberId> recipients = suspect_recipients(
      *view_, me_, {target}, suspected_, shared_.roles, shared_.fanout,
      // Created only for the wiki rules, the only ones that draw (a 2.5 KB engine in each of
      // the n/2 members that suspect a crashed process made one removal's memory grow by
      // 1.2 KB per member; keyed streams draw the same whenever they are created).
      shared_.fanout.random_recipient ? &stream(fanout_rng_, "geode.fanout") : nullptr);
  // Work inside this event (sim/engine/budget.h): choosing R recipients looks at up to R
  // chosen ones per view member (suspect_recipients), quadratic when R is large; one unit per
  // 64 comparisons, charged from R = 64 on (the cost estimate's suspicion fan-out term).
  if (recipients.size() >= 64) charge_work(view_->size() * recipients.size() / 64);
  shared_.signals.suspicion_raised(now(), node_, target);
  if (tracing()) trace("suspect", {{"suspect", target.node}, {"recipients", nodes_of(recipients)}});
  for (const MemberId& r : recipients) {
    if (r == me_) continue;
    send(Msg::suspect_members, r, 1,
         [from = me_, target](Member& d) { d.on_suspect_members(from, {target}); });
  }
  on_suspect_members(me_, {target});
}

void Member::on_suspect_members(const MemberId& from, const std::vector<MemberId>& suspects) {
  if (!participating()) return;
  // Work inside this event (sim/engine/budget.h): the next-in-line check below copies the
  // recorded members and walks the view (O(n) per suspicion received, which a fan-out to many
  // members multiplies); one unit per 64 members.
  charge_work((view_->size() + recorded_.size()) / 64);
  if (source_rules() && sick()) {
    // GMSHealthMonitor.processMessage(SuspectMembersMessage): a sick member ignores every
    // suspicion, its own included.
    if (tracing()) trace("ignored_sick", {{"msg", "suspect_members"}, {"from", from.node}});
    return;
  }
  if (!in_view(from)) {
    // Source rules (GMSHealthMonitor.java:1108-1115): a suspicion from a member that is no
    // longer in my view (and joined no later than it) makes me request its removal
    // (JoinLeave.remove of the sender, which tells a non-member it is removed). A sender
    // that joined in a view newer than mine is processed as usual (it is a member I do not
    // know of yet).
    const bool newer = source_rules() && from.join_view > view_->id;
    if (!newer) {
      if (source_rules() && from.join_view >= 0 && view_->id >= from.join_view) {
        if (tracing()) trace("suspicion_from_non_member", {{"from", from.node}});
        request_removal(from);
      }
      return;
    }
    if (tracing()) trace("suspicion_from_newer_member", {{"from", from.node}, {"join_view", from.join_view}});
  }
  if (!(from == me_) && sick()) {
    if (tracing()) trace("ignored_sick", {{"msg", "suspect_members"}, {"from", from.node}});
    return;
  }
  std::vector<MemberId> others;
  for (const MemberId& s : suspects) {
    if (s == me_) {
      // Suspicion of me: a heartbeat to the sender clears its suspicion (reliable under the
      // source rules).
      if (tracing()) trace("refute", {{"to", from.node}});
      if (!(from == me_))
        send(
            Msg::heartbeat, from, 0,
            [me = me_](Member& d) { d.on_heartbeat(me, kRefutation, 0, SimTime::zero()); },
            /*reliable_reply=*/true);
    } else if (in_view(s)) {
      others.push_back(s);
    }
  }
  if (others.empty()) return;
  if (is_coordinator()) {
    if (tracing()) trace("suspicion_received", {{"from", from.node}, {"suspects", nodes_of(others)},
                                 {"action", "final_check"}});
    for (const MemberId& s : others) start_final_check(s, from);
    return;
  }
  for (const MemberId& s : others) recorded_.insert(s);
  // The proposed view without the recorded suspects; source rules: also without the members
  // that are leaving (isMemberLeaving: a removal request or a leave request seen for them).
  static const std::set<MemberId> none;
  const MemberId check_coordinator = coordinator_without(
      view_->members,
      {&recorded_, source_rules() ? &removal_requested_ : &none, source_rules() ? &left_ : &none},
      shared_.roles);
  const bool next_in_line = check_coordinator == me_;
  if (tracing()) trace("suspicion_received", {{"from", from.node}, {"suspects", nodes_of(others)},
                               {"action", next_in_line ? "final_check" : "record"}});
  if (!next_in_line) return;
  // A copy: a final check can change recorded_ while it starts. Only the next in line pays for
  // it (copying on every receipt made a partition's fan-out to all n members cubic).
  const std::vector<MemberId> recorded(recorded_.begin(), recorded_.end());
  for (const MemberId& s : recorded) start_final_check(s, from);
}

void Member::start_final_check(const MemberId& suspect, const MemberId& initiator,
                               std::function<void()> then) {
  if (!participating() || suspect == me_ || !in_view(suspect) || final_checking(suspect)) return;
  if (removal_requested_.count(suspect)) return;  // already being removed
  if (tracing()) trace("final_check_start", {{"suspect", suspect.node}, {"initiator", initiator.node}});
  run_availability_check(suspect, true,
                         [this, suspect, then = std::move(then)](bool passed) {
                           final_check_done(suspect, passed);
                           if (then) then();
                         });
}

void Member::member_suspected(const MemberId& m) {
  // GMSHealthMonitor.inlineCheckIfAvailable: setNextNeighbor(currentView, mbr) and
  // Services.memberSuspected (health monitor: suspectedMemberIds; join/leave: the prepare's
  // reply processor).
  // (The watch moves to the member after m whoever m is, as setNextNeighbor does.)
  suspected_.insert(m);
  if (view_) set_neighbour(next_neighbour(*view_, me_, m, suspected_, walk_));
  if (creator_) creator_->member_suspected(m);
}

uint64_t Member::run_availability_check(const MemberId& suspect, bool final_check,
                                        std::function<void(bool)> done) {
  const uint64_t id = next_check_id_++;
  Availability a;
  a.suspect = suspect;
  a.start = now();
  a.deadline = now() + shared_.config.final_check_timeout;
  a.retry = final_check;
  a.final_check = final_check;
  a.done = std::move(done);
  if (final_check || source_rules()) ++final_checks_of_[suspect];  // see final_checking
  availability_.emplace(id, std::move(a));
  if (source_rules()) member_suspected(suspect);
  // A HeartbeatRequest without waiting: a reply (or any contact) after the start passes.
  // (A sick or play-dead member sends none: doCheckMember returns at once.)
  if (!(source_rules() && (sick() || shared_.world.hosts.is_play_dead(node_)))) {
    const int64_t rid = next_request_id_++;
    send(Msg::heartbeat_request, suspect, 1,
         [from = me_, rid](Member& d) { d.on_heartbeat_request(from, rid); });
  }
  tcp_attempt(id);
  return id;
}

void Member::tcp_attempt(uint64_t check) {
  auto it = availability_.find(check);
  if (it == availability_.end()) return;
  Availability& a = it->second;
  ++a.attempts;
  const MemberId target = a.suspect;
  const uint32_t bytes = msg_bytes(Msg::tcp_check);
  shared_.signals.message_sent(now(), node_, Msg::tcp_check, bytes);
  if (target.node == node_) {
    // An earlier identity of this host: this process answers "error" (wrong identity).
    after(Duration::zero(), shared_.kinds.tcp_retry, [this, check] {
      tcp_result(check, net::ProbeResult{net::ProbeOutcome::answered, kTcpError});
    });
    return;
  }
  Shared& sh = shared_;
  shared_.world.net.probe(
      node_, target.node, shared_.config.final_check_timeout, shared_.types[Msg::tcp_check],
      net::ProbeBytes{bytes - 1, 1},  // msg_bytes(tcp_check) includes the 1-byte answer
      [&sh, target] { return sh.at(target.node).serve_tcp_check(target); },
      [this, e = epoch_, check](net::ProbeResult r) {
        if (e == epoch_) tcp_result(check, r);
      });
}

void Member::tcp_result(uint64_t check, net::ProbeResult r) {
  auto it = availability_.find(check);
  if (it == availability_.end()) return;
  Availability& a = it->second;
  static const char* outcomes[] = {"answered", "refused", "timed_out"};
  const bool ok = r.outcome == net::ProbeOutcome::answered && r.answer == kTcpOk;
  const char* outcome = r.outcome == net::ProbeOutcome::answered
                            ? (r.answer == kTcpOk ? "ok" : "error")
                            : outcomes[int(r.outcome)];
  if (ok && source_rules()) {
    // doTCPCheckMember: an OK answer refreshes the member's timestamp, if it has one.
    auto c = contact_.find(a.suspect);
    if (c != contact_.end() && c->second < now()) c->second = now();
  }
  // Retries of a final check: wiki, a refused connect only (an "error" answer fails at
  // once). Source rules (GMSHealthMonitor.doTCPCheckMember): every attempt that did not
  // pass (refused, error or EOF answer, timeout) is retried 100 ms later while the start +
  // member timeout has not come.
  const bool may_retry = source_rules() ? !ok : r.outcome == net::ProbeOutcome::refused;
  if (may_retry && a.retry && now() < a.deadline) {
    after(shared_.config.final_check_retry, shared_.kinds.tcp_retry,
          [this, check] { tcp_attempt(check); });
    return;
  }
  // Only the last attempt of a retried final check is traced, with the attempt count.
  if (tracing()) trace("tcp_check_result", {{"suspect", a.suspect.node}, {"outcome", outcome},
                             {"attempt", a.attempts}});
  complete_availability(check, ok);
}

void Member::complete_availability(uint64_t check, bool tcp_ok) {
  auto it = availability_.find(check);
  if (it == availability_.end()) return;
  Availability a = std::move(it->second);
  availability_.erase(it);
  if (a.final_check || source_rules()) {
    auto c = final_checks_of_.find(a.suspect);
    if (--c->second == 0) final_checks_of_.erase(c);
  }
  const auto last = last_contact(a.suspect);
  const bool contact = last && *last >= a.start;
  const bool passed = tcp_ok || contact;
  if (!source_rules()) {
    a.done(passed);
    return;
  }
  if (passed || a.final_check) {
    availability_outcome(a.suspect, passed, a.done);
    return;
  }
  // A failed availability check (not final): self-check first (inlineCheckIfAvailable).
  self_check([this, e = epoch_, suspect = a.suspect, done = a.done](bool self_ok) {
    if (e != epoch_) return;
    if (!self_ok) {
      if (tracing()) trace("self_check_failed", {{"suspect", suspect.node}});
      availability_outcome(suspect, true, done);
      return;
    }
    // Tell peers about the member and let the final check follow.
    if (participating() && in_view(suspect)) {
      suspected_.insert(suspect);
      initiate_suspicion(suspect);
    }
    availability_outcome(suspect, false, done);
  });
}

void Member::availability_outcome(const MemberId& suspect, bool passed,
                                  const std::function<void(bool)>& done) {
  // Source rules: the end of inlineCheckIfAvailable. Passed: FinalCheckPassed to the others,
  // the suspect is no longer suspected and the watch returns. Failed: the member stays
  // suspected (a final check requests its removal in final_check_done).
  if (passed && participating() && in_view(suspect)) {
    tell_final_check_passed(suspect);
    unsuspect(suspect);
    recompute_neighbour();
  }
  done(passed);
}

void Member::self_check(std::function<void(bool)> done) {
  // doTCPCheckMember(localAddress, socketPort, false): a connection to my own
  // failure-detection socket. It is answered at once unless this host plays dead, when the
  // accepted connection is never served and the read times out after the member timeout.
  if (!shared_.world.hosts.is_play_dead(node_)) {
    if (tracing()) trace("self_check", {{"passed", true}});
    done(true);
    return;
  }
  after(shared_.config.final_check_timeout, shared_.kinds.self_check, [this, done] {
    if (tracing()) trace("self_check", {{"passed", false}});
    done(false);
  });
}

void Member::tell_final_check_passed(const MemberId& suspect) {
  for (const MemberId& m : view_->members) {
    if (m == me_ || m == suspect || suspected_.count(m)) continue;
    if (source_rules() && final_checking(m)) continue;  // nor members in a check here
    send(Msg::final_check_passed, m, 2,
         [from = me_, suspect](Member& d) { d.on_final_check_passed(from, suspect); });
  }
}

void Member::check_if_available(const MemberId& target, std::function<void(bool)> done,
                                bool assume_final_checking_available) {
  if (assume_final_checking_available && participating() && final_checking(target)) {
    done(true);  // GMSHealthMonitor.java:678-680: status unknown, but someone is checking
    return;
  }
  if (!participating() || !in_view(target) || removal_requested_.count(target) ||
      target == me_) {
    done(false);  // isMemberLeaving
    return;
  }
  if (tracing()) trace("availability_check_start", {{"suspect", target.node}});
  run_availability_check(target, false, std::move(done));
}

void Member::final_check_done(const MemberId& suspect, bool passed) {
  shared_.signals.final_check_done(now(), node_, suspect, passed);
  if (!participating() || !in_view(suspect)) return;
  if (passed) {
    if (tracing()) trace("final_check_passed", {{"suspect", suspect.node}});
    if (source_rules()) return;  // told, unsuspected and re-watched in availability_outcome
    tell_final_check_passed(suspect);
    unsuspect(suspect);
    recompute_neighbour();
    return;
  }
  if (tracing()) trace("final_check_failed", {{"suspect", suspect.node}});
  suspected_.insert(suspect);
  if (neighbour_ == suspect) set_neighbour(next_neighbour(*view_, me_, suspect, suspected_, walk_));
  request_removal(suspect);
}

void Member::on_final_check_passed(const MemberId& from, const MemberId& suspect) {
  if (!participating() || final_checking(suspect)) return;
  if (tracing()) trace("final_check_passed_received", {{"from", from.node}, {"suspect", suspect.node}});
  if (source_rules()) {
    // GMSHealthMonitor.processMessage(FinalCheckPassedMessage): contactedBy(suspect), with
    // the coarse stamp of the last tick; a suspected member is no longer suspected.
    contacted_by(suspect, last_tick_);
    return;
  }
  const bool was = suspected_.count(suspect) > 0;
  unsuspect(suspect);
  if (was) recompute_neighbour();
}

int64_t Member::serve_tcp_check(const MemberId& target) const {
  const bool ok = participating() && target == me_ && target.join_view == me_.join_view;
  if (tracing()) trace("tcp_check_served", {{"answer", ok ? "ok" : "error"},
                             {"incarnation", target.incarnation},
                             {"view_id", target.join_view}});
  return ok ? kTcpOk : kTcpError;
}

}  // namespace fdsim::geode
