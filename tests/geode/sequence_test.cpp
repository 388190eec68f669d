// Message sequences per profile: one member (m3) of a 5-member view crashes; the exact
// sequence of messages between the watcher (m2), the coordinator (m0) and the crashed member,
// periodic heartbeats left out, as the network traces them ("send" records, in order).
#include <gtest/gtest.h>

#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

using Step = std::tuple<std::string, NodeId, NodeId>;  // message, from, to

std::vector<Step> observed(const Harness& h) {
  std::vector<Step> out;
  for (const json& r : h.records("send")) {
    const NodeId from = r["from"], to = r["to"];
    auto watched = [](NodeId n) { return n == 0 || n == 2 || n == 3; };
    if (!watched(from) || !watched(to)) continue;
    std::string msg = r["msg"];
    if (msg == "geode.heartbeat") continue;
    out.emplace_back(msg.substr(6), from, to);
  }
  return out;
}

// `told_first`: the coordinator sends RemoveMember to the removed member before the prepare
// (current profile: GMSJoinLeave.createAndSendView -> sendRemoveMessages).
std::vector<Step> expected(bool suspect_gets_suspicion, int tcp_attempts, bool told_first) {
  std::vector<Step> s = {{"heartbeat_request", 2, 3}, {"suspect_members", 2, 0}};
  if (suspect_gets_suspicion) s.emplace_back("suspect_members", 2, 3);
  s.emplace_back("heartbeat_request", 0, 3);
  for (int i = 0; i < tcp_attempts; ++i) s.emplace_back("tcp_check", 0, 3);
  if (told_first) s.emplace_back("remove_member", 0, 3);
  s.emplace_back("prepare_view", 0, 2);
  s.emplace_back("view_ack", 2, 0);
  s.emplace_back("install_view", 0, 2);
  s.emplace_back("install_view", 0, 3);
  return s;
}

void check_times(const Harness& h, int64_t check_ms) {
  // check at `check_ms`, suspicion M later, final check from +1 ms for 1022 ms, collection
  // 300 ms, prepare/ack 2 ms.
  EXPECT_EQ(Harness::time_of(*h.first("check_start", 2)), at_ms(check_ms));
  EXPECT_EQ(Harness::time_of(*h.first("suspect", 2)), at_ms(check_ms + 1000));
  EXPECT_EQ(Harness::time_of(*h.first("final_check_start", 0)), at_ms(check_ms + 1001));
  EXPECT_EQ(Harness::time_of(*h.first("removal_requested", 0)), at_ms(check_ms + 2023));
  EXPECT_EQ(Harness::time_of(*h.first("view_prepare", 0)), at_ms(check_ms + 2323));
  const auto installed = h.first("view_installed", 2, [](const json& r) { return r["view_id"] == 2; });
  ASSERT_TRUE(installed);
  EXPECT_EQ(Harness::time_of(*installed), at_ms(check_ms + 2326));
}

}  // namespace

TEST(GeodeSequence, CurrentProfile_CrashOfOneMemberInFiveMemberView) {
  // current: small view (<= 9): the suspicion also goes to the suspect. Last heartbeat of m3
  // arrives at 2.001 s; the tick of 3.0 s sees 999 ms >= M - T and checks.
  Harness h(config(Profile::current, 5));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.run_until_s(8);
  EXPECT_EQ(observed(h), expected(true, 11, true));
  check_times(h, 3000);
}

TEST(GeodeSequence, WikiProfile_CrashOfOneMemberInFiveMemberView) {
  // wiki: 5 > 4 members: preferred m0 m1 m4, the sender m2, no random member left (m3 is the
  // suspect): the suspect does not get the suspicion. The check needs a full M of silence:
  // the tick of 3.5 s.
  Harness h(config(Profile::wiki, 5));
  h.at(at_ms(2200), [&] { h.hosts.crash(3); });
  h.run_until_s(8);
  EXPECT_EQ(observed(h), expected(false, 11, false));
  check_times(h, 3500);
  const auto s = h.first("suspect", 2);
  EXPECT_EQ((*s)["recipients"], json::array({0, 1, 4, 2}));
}

}  // namespace fdsim::geode::test
