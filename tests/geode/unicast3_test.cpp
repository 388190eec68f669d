// The membership's reliable channel under the source rules is JGroups UNICAST3 (3.6.20.Final,
// the version Geode uses; models/geode/member_unicast3.cpp cites the lines): a per-member xmit
// task every xmit_interval (500 ms), started with the member's process (here every member
// starts at 0, so its runs are at 0.5 s, 1.0 s, 1.5 s, ...), which resends the highest sent
// message of a destination only when the (acked, sent) watermark did not move since its
// previous run. Hand-built traces: 7 members, M = 1000 ms, 1 ms constant delays; m6's
// SuspectMembers messages to m3 (reliable) cross a one-way cut m6 -> m3.
//
// Each test states what the old rule (one resend exactly 500 ms after the send, then every
// 500 ms) gave; all four fail on the old code (checked at b639221: the arrivals came at the
// old rule's instants, e.g. 3.101, 3.301 and 3.451 s in the first test).
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

// Arrival instants at m3 of m6's SuspectMembers copies (network "recv" records).
std::vector<SimTime> arrivals_at_m3(const Harness& h) {
  std::vector<SimTime> out;
  for (const json& r : h.records("recv", 3))
    if (r["from"] == 6 && r["msg"] == "geode.suspect_members") out.push_back(Harness::time_of(r));
  return out;
}

std::vector<SimTime> resends_by_m6(const Harness& h) {
  std::vector<SimTime> out;
  for (const json& r : h.records("xmit_resend", 6))
    if (r["to"] == 3) out.push_back(Harness::time_of(r));
  return out;
}

}  // namespace

TEST(GeodeUnicast3, FirstResendComesAtTheSecondXmitRunAfterTheSend) {
  // Sends at 2.1 s, 2.3 s and 2.45 s (three phases inside the task's period (2.0, 2.5]), lost
  // in the cut m6 -> m3 that lasts until 2.99 s. The run at 2.5 s only stores the watermark
  // (the send moved it), the run at 3.0 s resends: the copy arrives at 3.001 s for all three
  // sends, 0.9 s, 0.7 s and 0.55 s after them. Old rule: resends at +0.5 s (2.6, 2.8, 2.95 s:
  // still cut) and +1.0 s, arriving at 3.101, 3.301 and 3.451 s.
  for (int64_t send_ms : {2100, 2300, 2450}) {
    SCOPED_TRACE(send_ms);
    Harness h(config(Profile::current, 7));
    uint32_t cut = 0;
    h.at(at_ms(2000), [&] { cut = h.net.add_partition({6}, {3}, /*one_way=*/true); });
    h.at(at_ms(2990), [&] { h.net.heal(cut); });
    h.at(at_ms(send_ms), [&] { h.m(6).initiate_suspicion(mid(1)); });
    h.run_until(at_ms(3600));
    EXPECT_EQ(resends_by_m6(h), (std::vector<SimTime>{at_ms(3000)}));
    EXPECT_EQ(arrivals_at_m3(h), (std::vector<SimTime>{at_ms(3001)}));
  }
}

TEST(GeodeUnicast3, ResendsEveryIntervalWhileTheWatermarkStands) {
  // Sent at 2.2 s into a cut until 3.7 s: the runs at 3.0 s and 3.5 s resend into the cut,
  // the run at 4.0 s resends and the copy arrives at 4.001 s; no resend after that (acked).
  // Old rule: copies at 2.7, 3.2 and 3.7 s; the heal at 3.7 s runs first (scheduled before
  // the copy's timer), so the 3.7 s copy arrives at 3.701 s (measured on the old code).
  Harness h(config(Profile::current, 7));
  uint32_t cut = 0;
  h.at(at_ms(2000), [&] { cut = h.net.add_partition({6}, {3}, true); });
  h.at(at_ms(3700), [&] { h.net.heal(cut); });
  h.at(at_ms(2200), [&] { h.m(6).initiate_suspicion(mid(1)); });
  h.run_until(at_ms(5000));
  EXPECT_EQ(resends_by_m6(h), (std::vector<SimTime>{at_ms(3000), at_ms(3500), at_ms(4000)}));
  EXPECT_EQ(arrivals_at_m3(h), (std::vector<SimTime>{at_ms(4001)}));
}

TEST(GeodeUnicast3, ANewerSendMovesTheWatermarkAndTheGapIsRepairedByTheReceiver) {
  // Two messages to m3 into a cut until 3.2 s: A (seqno 1) at 2.1 s, B (seqno 2) at 2.7 s.
  // m6's runs: 2.5 s stores (0, 1); 3.0 s finds (0, 2), stores it, no resend; 3.5 s resends
  // the highest sent, B, which arrives at 3.501 s. m3 now misses A below B: its run at 4.0 s
  // records the gap, its run at 4.5 s asks m6 for seqno 1 (XMIT_REQ, 4.501 s), m6 resends A
  // at once and it arrives at 4.502 s. m6 resends B again at 4.0 s and 4.5 s (acked stays 0
  // until A arrives). Old rule: each message resent on its own timer every 500 ms, no
  // watermark and no retransmission request (the old code fails at the XMIT_REQ check).
  Harness h(config(Profile::current, 7));
  uint32_t cut = 0;
  h.at(at_ms(2000), [&] { cut = h.net.add_partition({6}, {3}, true); });
  h.at(at_ms(3200), [&] { h.net.heal(cut); });
  h.at(at_ms(2100), [&] { h.m(6).initiate_suspicion(mid(1)); });
  h.at(at_ms(2700), [&] { h.m(6).initiate_suspicion(mid(2)); });
  h.run_until(at_ms(5200));
  EXPECT_EQ(resends_by_m6(h), (std::vector<SimTime>{at_ms(3500), at_ms(4000), at_ms(4500)}));
  const auto req = h.first("xmit_request", 3);
  ASSERT_TRUE(req);
  EXPECT_EQ(Harness::time_of(*req), at_ms(4500));
  EXPECT_EQ((*req)["to"], 6);
  EXPECT_EQ((*req)["seqnos"], json::array({1}));
  // B at 3.501 s, B's duplicate at 4.001 s, A at 4.502 s (and B's 4.5 s duplicate at 4.501 s).
  EXPECT_EQ(arrivals_at_m3(h),
            (std::vector<SimTime>{at_ms(3501), at_ms(4001), at_ms(4501), at_ms(4502)}));
  // Delivered once each, A after B (out-of-band delivery).
  std::vector<std::pair<SimTime, json>> got;
  for (const json& r : h.records("suspicion_received", 3))
    if (r["from"] == 6) got.emplace_back(Harness::time_of(r), r["suspects"]);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::make_pair(at_ms(3501), json::array({2})));
  EXPECT_EQ(got[1], std::make_pair(at_ms(4502), json::array({1})));
}

TEST(GeodeUnicast3, ARunDeferredByAPauseMovesThePhase) {
  // Sent at 2.1 s into a cut until 2.65 s; m6 is paused from 2.4 s to 2.7 s. Its run due at
  // 2.5 s runs at the resume (2.7 s) and stores the watermark; scheduleWithFixedDelay puts
  // the next run 500 ms later, 3.2 s, which resends: arrival 3.201 s. Old rule: the resend
  // due at 2.6 s runs at the resume, after the heal, and arrives at 2.701 s.
  Harness h(config(Profile::current, 7));
  uint32_t cut = 0;
  h.at(at_ms(2000), [&] { cut = h.net.add_partition({6}, {3}, true); });
  h.at(at_ms(2650), [&] { h.net.heal(cut); });
  h.at(at_ms(2100), [&] { h.m(6).initiate_suspicion(mid(1)); });
  h.at(at_ms(2400), [&] { h.hosts.pause(6); });
  h.at(at_ms(2700), [&] { h.hosts.resume(6); });
  h.run_until(at_ms(3600));
  EXPECT_EQ(resends_by_m6(h), (std::vector<SimTime>{at_ms(3200)}));
  EXPECT_EQ(arrivals_at_m3(h), (std::vector<SimTime>{at_ms(3201)}));
}

}  // namespace fdsim::geode::test
