// Several suspects of one detector loop enter VERIFY_SUSPECT's table one after another, each
// after the previous verifySuspect() call's ARE_YOU_DEAD send (are_you_dead_send_time):
// exact hand-derived traces at 1 ms constant latency, no loss.
#include <algorithm>

#include <gtest/gtest.h>

#include "tests/jgroups/harness.h"

namespace fdsim::jgroups {
namespace {

using test::at_s;
using test::Harness;

constexpr Duration millis(int64_t v) { return Duration::ns(v * 1000000); }

// FD_ALL alone (interval 3000 ms, timeout 10000 ms), N = 4, VERIFY_SUSPECT timeout T = 1500 ms
// (udp.xml's), start_phases "view": every member's FD_ALL tasks tick at 3, 6, 9, ... s and its
// heartbeats arrive 1 ms later. Nodes 2 and 3 crash at 20.5 s: their last heartbeats reached
// the coordinator at 18.001. Its checks at 21, 24, 27 s find them 2.999, 5.999, 8.999 s old;
// the check at 30.000 finds both 11.999 s old (> 10 s) and suspects both at once, 2 before 3
// (the model's timestamp table is ordered by node).
JGroupsConfig fd_all_two_crashes(std::shared_ptr<const net::LatencyModel> send_time) {
  JGroupsConfig c = test::config(4, Detector::fd_all);
  c.phases_from_view = true;
  c.verify_timeout = millis(1500);
  c.are_you_dead_send_time = std::move(send_time);
  return c;
}

struct TwoCrashes {
  std::vector<SimTime> suspected2, suspected3, verified2, verified3;
  bool two_first = false;  // VERIFY_SUSPECT's Hashtable visits 2 before 3
};

TwoCrashes run_two_crashes(std::shared_ptr<const net::LatencyModel> send_time, uint64_t seed) {
  test::HarnessOptions o;
  o.seed = seed;
  Harness h(fd_all_two_crashes(std::move(send_time)), o);
  h.at(at_s(20.5), [&] {
    h.hosts.crash(2);
    h.hosts.crash(3);
  });
  h.run_until_s(40.0);
  TwoCrashes r;
  r.suspected2 = h.model_times("jgroups_detector_suspect", 0, 2);
  r.suspected3 = h.model_times("jgroups_detector_suspect", 0, 3);
  r.verified2 = h.model_times("jgroups_verified", 0, 2);
  r.verified3 = h.model_times("jgroups_verified", 0, 3);
  JavaHashtableOrder order;
  order.put(2, h.model->address_hash(2));
  order.put(3, h.model->address_hash(3));
  r.two_first = order.keys().front() == 2;
  return r;
}

// A 5 ms send (delta): 2 enters the table at s1 = 30.000 and the timer thread starts; its first
// turn (at once) finds only 2 (age 0): it sleeps max(0, T - 0) = T. 3 enters at s2 = s1 + delta
// = 30.005. The thread wakes at s1 + T = 31.500: 2 is confirmed (age T). 3 is T - delta old:
// - Hashtable visits 2 first: 2's age (T, confirmed) is overwritten by 3's max(T - delta,
//   delta) = T - delta; 3 is confirmed at 31.500 + 1495 ms = 32.995 = s2 + 2T - 2 delta;
// - it visits 3 first: the sleep is set by 2, confirmed at age T: T; 3 is confirmed at s1 + 2T
//   = 33.000 = s2 + 2T - delta.
// Either way 3 is confirmed about one timeout after 2, not with it. (The view without 2,
// installed at 31.550, stamps 3 afresh, so the check at 33.000 does not suspect it again.)
// Before the per-call time was modelled, both entered at 30.000 and both were confirmed at
// 31.500: this test failed on 3's suspicion and confirmation times.
TEST(JGroupsVerifySend, SecondSuspectOfOneFdAllCheckIsConfirmedATimeoutLater) {
  int two_first = 0, three_first = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const TwoCrashes r = run_two_crashes(net::constant_latency(5.0), seed);
    ++(r.two_first ? two_first : three_first);
    const SimTime s1 = at_s(30.0), s2 = at_s(30.005);
    const Duration T = millis(1500);
    ASSERT_EQ(r.suspected2, std::vector<SimTime>{s1}) << seed;
    ASSERT_EQ(r.suspected3, std::vector<SimTime>{s2}) << seed;
    EXPECT_EQ(r.verified2, std::vector<SimTime>{s1 + T}) << seed;
    const SimTime three = r.two_first ? s2 + T * 2 - millis(10) : s2 + T * 2 - millis(5);
    EXPECT_EQ(r.verified3, std::vector<SimTime>{three})
        << "seed " << seed << (r.two_first ? " (2 visited first)" : " (3 visited first)");
  }
  // Both Hashtable orders occur among these seeds (both branches above are checked).
  EXPECT_GT(two_first, 0);
  EXPECT_GT(three_first, 0);
}

// Without the setting, or with a zero send time, the loop passes both up at the same instant
// (the old behaviour): the thread's first turn finds both, both are confirmed at s1 + T.
TEST(JGroupsVerifySend, NoSendTimeConfirmsBothTogether) {
  for (const auto& send_time : {std::shared_ptr<const net::LatencyModel>(), net::constant_latency(0.0)}) {
    const TwoCrashes r = run_two_crashes(send_time, 1);
    EXPECT_EQ(r.suspected2, std::vector<SimTime>{at_s(30.0)});
    EXPECT_EQ(r.suspected3, std::vector<SimTime>{at_s(30.0)});
    EXPECT_EQ(r.verified2, std::vector<SimTime>{at_s(31.5)});
    EXPECT_EQ(r.verified3, std::vector<SimTime>{at_s(31.5)});
  }
}

// A drawn send time (uniform 1 to 9 ms) comes from the member's keyed stream: the same seed
// gives the same gap, and 3 is confirmed by the rule above with that gap.
TEST(JGroupsVerifySend, DrawnSendTimeIsKeyedAndFollowsTheTimerRule) {
  const auto law = net::uniform_latency(1.0, 9.0);
  std::vector<Duration> gaps;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const TwoCrashes r = run_two_crashes(law, seed);
    ASSERT_EQ(r.suspected2.size(), 1u);
    ASSERT_EQ(r.suspected3.size(), 1u);
    const SimTime s1 = r.suspected2[0], s2 = r.suspected3[0];
    EXPECT_EQ(s1, at_s(30.0));
    const Duration gap = s2 - s1;
    EXPECT_GE(gap, millis(1)) << seed;
    EXPECT_LE(gap, millis(9)) << seed;
    gaps.push_back(gap);
    const Duration T = millis(1500);
    EXPECT_EQ(r.verified2, std::vector<SimTime>{s1 + T}) << seed;
    const SimTime three = r.two_first ? s2 + T * 2 - gap * 2 : s2 + T * 2 - gap;
    EXPECT_EQ(r.verified3, std::vector<SimTime>{three}) << seed;
    EXPECT_EQ(run_two_crashes(law, seed).suspected3, r.suspected3) << "same seed, same draw";
  }
  std::sort(gaps.begin(), gaps.end());
  EXPECT_LT(gaps.front(), gaps.back()) << "the seeds' draws differ";
}

}  // namespace
}  // namespace fdsim::jgroups
