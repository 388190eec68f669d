// The coordinator's prepare phase (docs/models/geode-membership.md, "Removal and views"): members that do not ack get a one-shot
// availability check; the view is re-prepared without those that fail it. And a restarted
// coordinator re-joining after the next in line took over.
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {

// wiki, 5 members, M = 1000 (view_ack_timeout = 2487 ms): m3 crashes at 2.2 s and the
// coordinator prepares view 2 (without m3) at 5.823 s. (The `current` profile ends the wait
// early and follows Geode's prepareAndSendView: GeodeSourceRules.PrepareStopsWaiting*.)

TEST(GeodeViews, MemberCrashedDuringPrepare_FailsTheOneShotCheckAndTheNextViewDropsIt) {
  Harness h(config(Profile::wiki, 5));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.at(SimTime::from_ns(5'822'500'000), [&] { h.hosts.crash(4); });
  h.run_until_s(10);
  const auto timeout = h.first("view_ack_timeout", 0);
  ASSERT_TRUE(timeout);
  EXPECT_EQ(Harness::time_of(*timeout), at_ms(5823) + Duration::ms(2487));
  EXPECT_EQ((*timeout)["unresponsive"], json::array({4}));
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return r["suspect"] == 4; });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "refused");
  EXPECT_EQ((*tcp)["attempt"], 1);  // one shot: no retry
  EXPECT_EQ(Harness::time_of(*tcp), at_ms(8312));
  EXPECT_FALSE(h.first("view_installed", 1, [](const json& r) { return r["view_id"] == 2; }));
  const auto v3 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; });
  ASSERT_TRUE(v3);
  EXPECT_EQ(Harness::time_of(*v3), at_ms(8314));
  EXPECT_EQ((*v3)["members"], json::array({0, 1, 2}));
  EXPECT_EQ(h.m(1).view()->id, 3);
}

TEST(GeodeViews, MemberPausedDuringPrepare_PassesTheOneShotCheckAtItsResume) {
  // wiki, M = 1000, view_ack_timeout shortened to 600 ms so that the pause is shorter than
  // m4's watcher's threshold. m3 crashes at 2.2 s; view 2 is prepared at 5.823 s; m4 is
  // paused from just before that until 6.8225 s: the ack times out at 6.423 s, the one-shot
  // TCP check hangs until the resume, gets OK at 6.8235 s, and view 2 (with m4) goes in.
  GeodeConfig c = config(Profile::wiki, 5);
  c.view_ack_timeout = Duration::ms(600);
  Harness h(c);
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.at(SimTime::from_ns(5'822'500'000), [&] { h.hosts.pause(4); });
  h.at(SimTime::from_ns(6'822'500'000), [&] { h.hosts.resume(4); });
  h.run_until_s(10);
  const auto timeout = h.first("view_ack_timeout", 0);
  ASSERT_TRUE(timeout);
  EXPECT_EQ(Harness::time_of(*timeout), at_ms(6423));
  EXPECT_EQ((*timeout)["unresponsive"], json::array({4}));
  const auto tcp = h.first("tcp_check_result", 0, [](const json& r) { return r["suspect"] == 4; });
  ASSERT_TRUE(tcp);
  EXPECT_EQ((*tcp)["outcome"], "ok");
  const auto v2 = h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 2; });
  ASSERT_TRUE(v2);
  EXPECT_EQ(Harness::time_of(*v2), SimTime::from_ns(6'823'500'000));
  EXPECT_EQ((*v2)["members"], json::array({0, 1, 2, 4}));
  EXPECT_FALSE(h.first("view_installed", 0, [](const json& r) { return r["view_id"] == 3; }));
  EXPECT_FALSE(h.first("suspect", std::nullopt, [](const json& r) { return r["suspect"] == 4; }));
  EXPECT_EQ(h.m(4).view()->id, 2);
  EXPECT_EQ(h.model->recorder().false_removals(), 0u);
}

TEST(GeodeViews, RestartedCoordinatorRejoinsUnderTheNextInLine) {
  // m0 crashes at 1.0 s and restarts at 1.1 s. Its join requests reach members that still
  // name the old m0 as coordinator (forwarded there, lost) until m1 has taken over; then m1
  // admits the new m0 at the end of a view.
  Harness h(config(Profile::wiki, 5));
  h.at(at_ms(1000), [&] { h.hosts.crash(0); });
  h.at(at_ms(1100), [&] { h.hosts.recover(0); });
  h.run_until_s(20);
  const MemberId fresh{0, 1, -1};
  EXPECT_EQ(h.m(0).id().incarnation, 1u);
  ASSERT_TRUE(h.m(0).participating());
  for (NodeId n = 0; n < 5; ++n) {
    const View* v = h.m(n).view();
    ASSERT_TRUE(v) << n;
    EXPECT_EQ(v->coordinator, mid(1)) << n;
    EXPECT_EQ(v->members.back(), fresh) << n;
    EXPECT_EQ(v->size(), 5u) << n;
    EXPECT_FALSE(v->contains(mid(0))) << n;
  }
  EXPECT_TRUE(h.first("join_forwarded"));
  EXPECT_EQ(h.model->recorder().false_removals(), 0u);
  const auto& crashes = h.model->recorder().crashes();
  ASSERT_EQ(crashes.size(), 1u);
  EXPECT_TRUE(crashes[0].removal.has_value());
}

}  // namespace fdsim::geode::test
