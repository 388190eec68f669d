// memberlist's timing formulas against memberlist's own test tables (suspicion_test.go,
// util_test.go, awareness_test.go of hashicorp/memberlist 0.2.2) and the LAN values the
// validation uses.
#include <gtest/gtest.h>

#include "models/swim/lifeguard_math.h"

namespace fdsim::swim {
namespace {

Duration ms(int64_t v) { return Duration::ms(v); }
Duration s(int64_t v) { return Duration::s(v); }

// suspicion_test.go TestSuspicion_remainingSuspicionTime.
TEST(LifeguardMath, RemainingSuspicionTimeMatchesMemberlistTable) {
  struct Case {
    int64_t n, k;
    Duration elapsed, min, max, expected;
  };
  const Case cases[] = {
      {0, 3, s(0), s(2), s(30), s(30)},
      {1, 3, s(2), s(2), s(30), s(14)},
      {2, 3, s(3), s(2), s(30), ms(4810)},
      {3, 3, s(4), s(2), s(30), s(-2)},
      {4, 3, s(5), s(2), s(30), s(-3)},
      {5, 3, s(10), s(2), s(30), s(-8)},
  };
  for (const Case& c : cases)
    EXPECT_EQ(remaining_suspicion_time(c.n, c.k, c.elapsed, c.min, c.max), c.expected)
        << "n=" << c.n << " elapsed=" << to_string(c.elapsed);
}

// suspicion_test.go TestSuspicion_Timer: k = 3, min 500 ms, max 2 s; the timeout after n
// confirmations (elapsed 0). That Go test measures wall time with a 25 ms fudge and lists 810 ms
// for two confirmations; the formula gives floor(1000 (2 - ln 3 / ln 4 x 1.5)) = 811 ms.
TEST(LifeguardMath, SuspicionTimerValuesMatchMemberlistTable) {
  EXPECT_EQ(remaining_suspicion_time(1, 3, s(0), ms(500), s(2)), ms(1250));
  EXPECT_EQ(remaining_suspicion_time(2, 3, s(0), ms(500), s(2)), ms(811));
  EXPECT_EQ(remaining_suspicion_time(3, 3, s(0), ms(500), s(2)), ms(500));
}

// util_test.go TestSuspicionTimeout: suspicionTimeout(3, n, 1 s) / 3.
TEST(LifeguardMath, SuspicionTimeoutMatchesMemberlistTable) {
  const std::pair<int64_t, Duration> cases[] = {{5, ms(1000)},   {10, ms(1000)},
                                                {50, ms(1698)},  {100, ms(2000)},
                                                {500, ms(2698)}, {1000, ms(3000)}};
  for (const auto& [n, expected] : cases)
    EXPECT_EQ(suspicion_timeout(3, n, s(1)) / 3, expected) << "n=" << n;
}

// The LAN values of the validation sizes: SuspicionMult 4, ProbeInterval 1 s (min), and
// SuspicionMaxTimeoutMult 6 times that (max).
TEST(LifeguardMath, LanSuspicionTimeoutsForValidationSizes) {
  EXPECT_EQ(suspicion_timeout(4, 8, s(1)), ms(4000));
  EXPECT_EQ(suspicion_timeout(4, 16, s(1)), ms(4816));
  EXPECT_EQ(suspicion_timeout(4, 32, s(1)), ms(6020));
  EXPECT_EQ(suspicion_timeout(4, 16, s(1)) * 6, ms(28896));
  // Scaled-down configuration of the validation: 200 ms probes.
  EXPECT_EQ(suspicion_timeout(4, 16, ms(200)), Duration::ns(963'200'000));
  // n = 0 and n = 1 take the floor of 1.
  EXPECT_EQ(suspicion_timeout(4, 0, s(1)), ms(4000));
  // LAN k = SuspicionMult - 2 = 2 with n = 8: one confirmation gives floor(1000 * (24 -
  // ln 2 / ln 3 * 20)) ms = 11381 ms, two give min.
  EXPECT_EQ(remaining_suspicion_time(1, 2, s(0), s(4), s(24)), ms(11381));
  EXPECT_EQ(remaining_suspicion_time(2, 2, s(0), s(4), s(24)), s(4));
}

// util_test.go TestRetransmitLimit, plus the LAN multiplier 4.
TEST(LifeguardMath, RetransmitLimitMatchesMemberlistTable) {
  EXPECT_EQ(retransmit_limit(3, 0), 0);
  EXPECT_EQ(retransmit_limit(3, 1), 3);
  EXPECT_EQ(retransmit_limit(3, 99), 6);
  EXPECT_EQ(retransmit_limit(4, 8), 4);
  EXPECT_EQ(retransmit_limit(4, 9), 4);
  EXPECT_EQ(retransmit_limit(4, 10), 8);
  EXPECT_EQ(retransmit_limit(4, 32), 8);
}

TEST(LifeguardMath, PushPullScale) {
  EXPECT_EQ(push_pull_scale(s(30), 32), s(30));
  EXPECT_EQ(push_pull_scale(s(30), 33), s(60));
  EXPECT_EQ(push_pull_scale(s(30), 64), s(60));
  EXPECT_EQ(push_pull_scale(s(30), 65), s(90));
}

// awareness_test.go TestAwareness: deltas applied in turn, max 8.
TEST(LifeguardMath, AwarenessMatchesMemberlistTable) {
  struct Case {
    int64_t delta, score;
    Duration timeout;
  };
  const Case cases[] = {{0, 0, s(1)},   {-1, 0, s(1)}, {-10, 0, s(1)}, {1, 1, s(2)},
                        {-1, 0, s(1)},  {10, 7, s(8)}, {-1, 6, s(7)},  {-1, 5, s(6)},
                        {-1, 4, s(5)},  {-1, 3, s(4)}, {-1, 2, s(3)},  {-1, 1, s(2)},
                        {-1, 0, s(1)},  {-1, 0, s(1)}};
  Awareness a(8);
  for (const Case& c : cases) {
    a.apply_delta(c.delta);
    EXPECT_EQ(a.score(), c.score);
    EXPECT_EQ(a.scale_timeout(s(1)), c.timeout);
  }
}

}  // namespace
}  // namespace fdsim::swim
