#pragma once
// The suspicion-driven part of a Geode run's work, for the cost estimate (sim/scenario/
// cost_estimate.h; the loader adds it once the faults, the network and the horizon are known).
//
// Contract (an upper bound, checked by tests/cli/cost_bound_property.py; docs/scenario-format.md,
// "Run budgets"): a Geode member raises a suspicion only when a neighbour check fails (no reply
// within heartbeat_request_wait and no contact since the check started), or, under the `current`
// source rules, when an availability check fails. Over one simulation the suspicions raised are
// at most
//   S = S_random + 2 x (members that go down + member-cycles of the windows) + joins + S_fail
// where
// - S_random: every monitor tick of every member may start a check, which fails by loss or
//   delay: n x horizon / monitor_period x P_start x P_fail, with
//     P_silent(w) = min over k of (L + D / (w - k x g))^k   (no heartbeat arrives in a window w:
//                   the k heartbeats surely sent in its first w - slack are each lost or later
//                   than the slack; g = heartbeat_period + send_jitter; 1 when none fits)
//     P_start = P_silent(check_threshold), or 1 with a detector arm
//     P_fail  = (1 - (1 - L)^2 + 2 x D / heartbeat_request_wait) x P_silent(heartbeat_request_wait)
//               (the request or its reply lost or late, and the heartbeats during the wait too)
//   L the largest loss probability of any link (Bernoulli, or Gilbert-Elliott's larger state
//   loss, which bounds every packet's loss whatever came before), D the largest mean one-way
//   delay (Markov's inequality: P(delay > x) <= D / x); a trace latency (time-correlated, with
//   its own lost rows) makes every probability 1;
// - members that go down: crashes (scheduled, crash processes, group crash processes, crash
//   storms) and churn leaves; a random process counts its mean plus 4 standard deviations plus
//   4 (a Poisson tail bound), plus one draw per node for the first period; the members of a
//   partition that heals within the horizon (each side suspects the other once; after the
//   heal a check may pass);
// - member-cycles of the windows: a member paused, sick, playing dead, starved, or behind a
//   loss burst or a delay spike during D may pass a final check and be suspected again after
//   one heartbeat_request_wait: (1 + D / heartbeat_request_wait) suspicions per member;
// - joins: recoveries (a new identity), churn joins and re-joins after a healed partition.
// - S_fail, suspicions whose final checks cannot pass (no FinalCheckPassed to every member):
//   - of a partition that lasts to the horizon (two sides), from the initial view (every
//     member watches the next; the coordinator is the first preferred member): the
//     neighbour checks across the cut, at most one per watcher and monitor tick (crossing
//     edges of the ring, + 2 per join from elsewhere, x (1 + time left / monitor_period)),
//     plus the availability checks of a prepare's non-ackers: the side holding the
//     coordinator checks each member of the other side once (x (1 + members that go down
//     or may be removed by mistake): a new coordinator may check again); the other side only
//     if it can take over, i.e. if its neighbour checks plus every other suspicion of the run
//     reach the drops it needs (the preferred members ahead of its first preferred one;
//     without one, every preferred member and every member ahead of its first); at most
//     2 x (a + b) (a third group: that). Measured: a tenth cut at the end of a 1e3 ring, 113
//     suspicions in all (100 cut members checked by the coordinator); + the re-joins (after
//     partition_shutdown + the reconnect wait, if that comes before the horizon);
//   - connection holders (source rules): a process crash (crash_kind "process") with
//     peer_connections closes the connections it holds: every member that joined after it
//     holds its start-up connection and every member that sent it an application request
//     its reply connection, at most every other member of the view, n + joins - 1 (an old
//     identity stays in the view until it is removed). Each gets EOF and runs an
//     availability check (a heartbeat request, one TCP attempt, the self-check), which
//     fails, and raises a suspicion of its own (measured: a crash at the middle of a 1e4
//     ring, 5 000 holders, 7.8e6 work units of suspicion receipts). With crash_kind "host"
//     and unreachable_send_errors, every member sending it a membership message final-checks
//     it (at most once each: a failed check requests its removal); counted the same.
// The factor 2 counts the member's watcher and the member itself (which suspects its own
// neighbour when it comes back).
// Per suspicion (R = the fan-out): R messages, up to kFinalChecksPerSuspicion final checks, each
// a heartbeat request, its reply and up to 1 + final_check_timeout / final_check_retry probes
// (kEventsPerProbe events each), and on a pass a FinalCheckPassed to every member (n; not for
// S_fail); a connection holder's check kEventsPerHolderCheck more; work units: each receipt
// walks the view and the recorded members (2 n_v / 64, n_v = n + joins the view's size at
// most), choosing R >= 64 recipients n_v x R / 64, and the metrics' crash records C / 64.
// Memory held back (held_bytes): a window that delays delivery rather than drops it (a pause, a
// play-dead member, a loss burst whose reliable messages are resent until it ends) may hold
// every event its suspicions and view changes cause, kBytesPerHeldMessage each (a pause process:
// only the pauses in progress at once, nodes x (mean length + check_threshold + 2 x
// heartbeat_request_wait) / mean interval by Little's law, with the tail margin; a delay spike:
// the share extra delay / its length of its events); a loss burst
// below loss 1 holds a message for about loss / (1 - loss) retransmission intervals. (The
// loader adds the same hold for the network's own loss: events per second x L / (1 - L) x the
// retransmission interval.)
// View changes: at most one per suspicion a stressor causes, one per random suspicion whose
// final check fails (TCP probes are not lost: P <= 2 D / final_check_timeout), one per join and
// per prepare round a partition forces (1 + D / view_ack_timeout); a partition lasting to the
// horizon: its removals and re-joins are batched by the coordinator of each side, at most one
// view per request_collection per side from the partition on (view_creator.h), and at most
// one per suspicion and join; each kEventsPerViewMember x n_v events; each view installed at each
// member makes the metrics look at the open crash records (C / 64 units), and each record is
// followed around the ring once (2n / 64).
// Retransmissions: every message a loss burst holds (2 x its member-cycles x (events per
// suspicion + per view change), as held_bytes) is sent again every retransmission interval
// (the shorter of the network's and reliable_retransmit) until an attempt gets through: at
// loss 1, min(burst, reliable_give_up) / interval + 1 attempts; below, 3 q / (1 - q) + 1 at
// most that (measured: a 60 s burst at loss 1 in an 18-member wiki ring, 9.5e6 network
// retransmissions; the estimate had no term for them and was 4.5 x below the work). A
// play-dead member's window counts as a burst at loss 1 on its links (the network drops every
// attempt to or from it and resends: 5.8e6 retransmissions with 55 of 73 members playing dead
// for 15 s).
// Memory held back also counts the connection holders' checks that may run at once (every
// scheduled crash; of a random process, the crashes within 2 x (final_check_timeout +
// heartbeat_request_wait) + 4 D, with the tail margin): each its state and its suspicion's
// R messages, (R + 1) x kBytesPerHeldMessage (measured about 1.7 kB per holder: ten crashes
// in a 2 425-member ring, 42 MB more heap).
#include <string>

#include "models/geode/config.h"
#include "sim/faults/config.h"
#include "sim/net/network.h"

namespace fdsim::geode {

inline constexpr double kFinalChecksPerSuspicion = 3.0;
inline constexpr double kEventsPerProbe = 3.0;        // attempt, answer or timeout, retry timer
inline constexpr double kEventsPerViewMember = 8.0;   // prepare, ack, install, ack, with sends
// A connection holder's check of a crashed process: the EOF, a heartbeat request and one TCP
// attempt (attempt, answer), the self-check.
inline constexpr double kEventsPerHolderCheck = 6.0;
// A reliable message held for a retransmission (its UNICAST3 or network entry, its pending
// resend timer): about 330 B measured (47 members, a 4 s loss burst at loss 1: 16 400 more
// events, 5.3 MB more heap); also the bytes per pending message of the loss term below.
inline constexpr double kBytesPerHeldMessage = 384.0;

struct GeodeCost {
  double events_per_s = 0;  // per simulated second (total over the horizon / horizon)
  double work_per_s = 0;
  double suspicions = 0;    // S above, over the horizon
  double view_changes = 0;
  // Memory: messages held back by pauses, play-dead members and loss bursts (every event their
  // suspicions and view changes cause, pending at once), bytes.
  double held_bytes = 0;
  std::string held_formula;
  std::string formula;      // "S = ... suspicions, V = ... view changes"
};

// `largest_mean_delay_s`: the largest mean one-way delay of any link (the loader's figure).
GeodeCost geode_cost_bound(const GeodeConfig& c, const faults::FaultsConfig& faults,
                           const net::NetworkConfig& network, size_t node_count,
                           double horizon_s, double largest_mean_delay_s);

}  // namespace fdsim::geode
