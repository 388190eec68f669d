// Member: suspicion fan-out and receipt (spec 4.2, 4.3) and final checks (spec 4.4).
#include <algorithm>

#include "models/geode/member.h"
#include "models/geode/ring.h"
#include "models/geode/view_creator.h"

namespace fdsim::geode {

using nlohmann::json;

void Member::initiate_suspicion(const MemberId& target) {
  if (!participating() || !in_view(target) || target == me_) return;
  if (removal_requested_.count(target)) return;
  const std::vector<MemberId> recipients = suspect_recipients(
      *view_, me_, {target}, suspected_, shared_.roles, shared_.fanout,
      stream(fanout_rng_, "geode.fanout"));
  shared_.signals.suspicion_raised(now(), node_, target);
  trace("suspect", {{"suspect", target.node}, {"recipients", nodes_of(recipients)}});
  for (const MemberId& r : recipients) {
    if (r == me_) continue;
    send(Msg::suspect_members, r, 1,
         [from = me_, target](Member& d) { d.on_suspect_members(from, {target}); });
  }
  on_suspect_members(me_, {target});
}

void Member::on_suspect_members(const MemberId& from, const std::vector<MemberId>& suspects) {
  if (!participating() || !in_view(from)) return;
  if (!(from == me_) && shared_.world.hosts.is_sick(node_)) {
    trace("ignored_sick", {{"msg", "suspect_members"}, {"from", from.node}});
    return;
  }
  std::vector<MemberId> others;
  for (const MemberId& s : suspects) {
    if (s == me_) {
      // Suspicion of me: a heartbeat to the sender clears its suspicion.
      trace("refute", {{"to", from.node}});
      if (!(from == me_))
        send(Msg::heartbeat, from, 0, [me = me_](Member& d) {
          d.on_heartbeat(me, kRefutation, 0, SimTime::zero());
        });
    } else if (in_view(s)) {
      others.push_back(s);
    }
  }
  if (others.empty()) return;
  if (is_coordinator()) {
    trace("suspicion_received", {{"from", from.node}, {"suspects", nodes_of(others)},
                                 {"action", "final_check"}});
    for (const MemberId& s : others) start_final_check(s, from);
    return;
  }
  for (const MemberId& s : others) recorded_.insert(s);
  const std::vector<MemberId> recorded(recorded_.begin(), recorded_.end());
  const bool next_in_line =
      coordinator_of(without(view_->members, recorded), shared_.roles) == me_;
  trace("suspicion_received", {{"from", from.node}, {"suspects", nodes_of(others)},
                               {"action", next_in_line ? "final_check" : "record"}});
  if (next_in_line)
    for (const MemberId& s : recorded) start_final_check(s, from);
}

void Member::start_final_check(const MemberId& suspect, const MemberId& initiator) {
  if (!participating() || suspect == me_ || !in_view(suspect) || final_checking(suspect)) return;
  if (removal_requested_.count(suspect)) return;  // already being removed
  trace("final_check_start", {{"suspect", suspect.node}, {"initiator", initiator.node}});
  run_availability_check(suspect, true,
                         [this, suspect](bool passed) { final_check_done(suspect, passed); });
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
  availability_.emplace(id, std::move(a));
  // A HeartbeatRequest without waiting: a reply (or any contact) after the start passes.
  const int64_t rid = next_request_id_++;
  send(Msg::heartbeat_request, suspect, 1,
       [from = me_, rid](Member& d) { d.on_heartbeat_request(from, rid); });
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
  Shared& sh = shared_;
  shared_.world.net.probe(
      node_, target.node, shared_.config.final_check_timeout, shared_.types[Msg::tcp_check],
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
  if (r.outcome == net::ProbeOutcome::answered) {
    trace("tcp_check_result", {{"suspect", a.suspect.node},
                               {"outcome", r.answer == kTcpOk ? "ok" : "error"},
                               {"attempt", a.attempts}});
    complete_availability(check, r.answer == kTcpOk);
    return;
  }
  // Only the last attempt of a retried final check is traced, with the attempt count.
  const bool retry = r.outcome == net::ProbeOutcome::refused && a.retry && now() < a.deadline;
  if (retry) {
    after(shared_.config.final_check_retry, shared_.kinds.tcp_retry,
          [this, check] { tcp_attempt(check); });
    return;
  }
  trace("tcp_check_result", {{"suspect", a.suspect.node},
                             {"outcome", outcomes[int(r.outcome)]},
                             {"attempt", a.attempts}});
  complete_availability(check, false);
}

void Member::complete_availability(uint64_t check, bool tcp_ok) {
  auto it = availability_.find(check);
  if (it == availability_.end()) return;
  Availability a = std::move(it->second);
  availability_.erase(it);
  const auto last = last_contact(a.suspect);
  const bool contact = last && *last >= a.start;
  a.done(tcp_ok || contact);
}

void Member::final_check_done(const MemberId& suspect, bool passed) {
  shared_.signals.final_check_done(now(), node_, suspect, passed);
  if (!participating() || !in_view(suspect)) return;
  if (passed) {
    trace("final_check_passed", {{"suspect", suspect.node}});
    for (const MemberId& m : view_->members) {
      if (m == me_ || m == suspect || suspected_.count(m)) continue;
      send(Msg::final_check_passed, m, 2,
           [from = me_, suspect](Member& d) { d.on_final_check_passed(from, suspect); });
    }
    unsuspect(suspect);
    recompute_neighbour();
    return;
  }
  trace("final_check_failed", {{"suspect", suspect.node}});
  suspected_.insert(suspect);
  if (neighbour_ == suspect) set_neighbour(next_neighbour(*view_, me_, suspect, suspected_));
  request_removal(suspect);
}

void Member::on_final_check_passed(const MemberId& from, const MemberId& suspect) {
  if (!participating() || final_checking(suspect)) return;
  trace("final_check_passed_received", {{"from", from.node}, {"suspect", suspect.node}});
  const bool was = suspected_.count(suspect) > 0;
  unsuspect(suspect);
  if (was) recompute_neighbour();
}

int64_t Member::serve_tcp_check(const MemberId& target) const {
  const bool ok = participating() && target == me_ && target.join_view == me_.join_view;
  trace("tcp_check_served", {{"answer", ok ? "ok" : "error"},
                             {"incarnation", target.incarnation},
                             {"view_id", target.join_view}});
  return ok ? kTcpOk : kTcpError;
}

}  // namespace fdsim::geode
