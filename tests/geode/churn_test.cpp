// Churn on the Geode ring (sim/faults/churn.h, GeodeModel's ChurnParticipant): exact
// hand-built traces. Six slots, members 0..4 in the initial view, slot 5 spare; member 3's
// session is 10 s (an empirical law of one value), joins come every 20 s and stop at 25 s, so
// exactly one leave (3 at 10 s) and one join (at 20 s, on the lowest free slot: 3, which its
// leaver freed; so the joiner is a fresh identity on a slot whose old identity left)
// happen. Constant 1 ms links, no loss, member timeout 5 s: the leave must be handled by the
// leave request, long before any failure detection could act.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/geode/geode_model.h"
#include "sim/faults/churn.h"
#include "sim/faults/config.h"
#include "sim/faults/injector.h"
#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

struct ChurnRun {
  ChurnRun(Profile profile, bool graceful)
      : ChurnRun(churn_config(profile), churn_faults(graceful)) {}
  ChurnRun(GeodeConfig c, faults::FaultsConfig f)
      : cfg(std::move(c)),
        hosts(sim, cfg.node_count),
        net(sim, hosts, RngFactory(1, 0), Harness::make_net(HarnessOptions{})),
        world{sim, hosts, net, RngFactory(1, 0), SimTime::zero(), at_s(60)},
        model(world, cfg, 0),
        faults(std::move(f)),
        injector(world, faults) {
    sim.set_trace(&sink);
    model.enable_churn();
    injector.set_churn_participant(&model);
    injector.start();
    model.start();
    sim.run_until(at_s(60));
  }

  static GeodeConfig churn_config(Profile profile) {
    GeodeConfig c = GeodeConfig::defaults(profile, Duration::ms(5000), 6);
    c.members = {0, 1, 2, 3, 4};
    c.locators = {0};
    return c;
  }
  static faults::FaultsConfig churn_faults(bool graceful) {
    faults::ChurnProcess p;
    p.nodes = {3};
    p.spare = {5};
    p.session = faults::Lifetime::empirical({10.0});
    p.join = faults::Lifetime::empirical({20.0});
    p.graceful = graceful;
    p.stop = at_s(25);
    p.stream = "faults.churn";
    faults::FaultsConfig f;
    f.churn = p;
    return f;
  }

  std::vector<json> records(const std::string& kind, std::optional<NodeId> node = std::nullopt) const {
    std::vector<json> out;
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!node || r["node"] == *node)) out.push_back(r);
    return out;
  }
  bool any_about(const std::string& kind, const char* field, NodeId n) const {
    for (const json& r : sink.records)
      if (r["kind"] == kind && about(r, field, n)) return true;
    return false;
  }
  static bool has(const json& members, NodeId n) {
    for (const auto& m : members)
      if (m == n) return true;
    return false;
  }

  GeodeConfig cfg;
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  RecordingSink sink;
  GeodeModel model;
  faults::FaultsConfig faults;
  faults::FaultInjector injector;
};

void expect_leave_then_join(Profile profile) {
  ChurnRun r(profile, true);
  // t = 0: slot 5 is absent, so the initial view is 0..4.
  ASSERT_EQ(r.records("churn_absent", 5).size(), 1u);
  // t = 10 s: member 3 sends its leave request to the preferred coordinators (0, 1, 2, 4 in
  // a five-member view: getPreferredCoordinators(.., 5) without itself), then goes down.
  const auto leave = r.records("churn_leave", 3);
  ASSERT_EQ(leave.size(), 1u);
  EXPECT_EQ(Harness::time_of(leave[0]), at_s(10));
  std::vector<NodeId> to;
  for (const json& s : r.records("send", 3))
    if (s["msg"] == "geode.leave_request") {
      EXPECT_EQ(Harness::time_of(s), at_s(10));
      to.push_back(s["to"].get<NodeId>());
    }
  EXPECT_EQ(to, (std::vector<NodeId>{0, 1, 2, 4}));
  // The coordinator receives it 1 ms later and the next view drops 3: installed after the
  // coordinator's request collection (300 ms) and the prepare round trip, 303 ms after the
  // leave.
  bool coordinator_got_it = false;
  for (const json& x : r.records("leave_request_received", 0))
    if (x["member"] == 3) {
      coordinator_got_it = true;
      EXPECT_EQ(Harness::time_of(x), at_s(10) + Duration::ms(1));
    }
  EXPECT_TRUE(coordinator_got_it);
  std::optional<json> without3;
  for (const json& v : r.records("view_installed", 0))
    if (!ChurnRun::has(v["members"], 3)) {
      without3 = v;
      break;
    }
  ASSERT_TRUE(without3);
  EXPECT_EQ(Harness::time_of(*without3), at_s(10) + Duration::ms(303));
  const int64_t k = (*without3)["view_id"].get<int64_t>();
  // No failure handling of the leaver: no suspicion, no final check, no crash measured.
  EXPECT_FALSE(r.any_about("suspect", "suspect", 3));
  EXPECT_FALSE(r.any_about("final_check_start", "suspect", 3));
  const GeodeRecorder& rec = r.model.recorder();
  EXPECT_TRUE(rec.crashes().empty());
  EXPECT_EQ(rec.false_removals(), 0u);
  const json m = r.model.metrics();
  EXPECT_EQ(m["crashes_count"], 0);
  EXPECT_EQ(m["churn_leaves_graceful_count"], 1);
  EXPECT_EQ(m["churn_leave_to_removal_s"]["count"], 1);
  EXPECT_DOUBLE_EQ(m["churn_leave_to_removal_s"]["max"].get<double>(), 0.303);
  EXPECT_EQ(m["members_initial_count"], 5);
  EXPECT_GT(m["messages_per_member_per_s"]["leave_request"].get<double>(), 0.0);

  // t = 20 s: a fresh identity on slot 3 (host incarnation 1; the old identity {3, 0} left)
  // joins through the coordinator and is in view k + 1. Slot 5 stays absent.
  EXPECT_TRUE(r.records("churn_join", 5).empty());
  EXPECT_TRUE(r.hosts.is_crashed(5));
  const auto join = r.records("churn_join", 3);
  ASSERT_EQ(join.size(), 1u);
  EXPECT_EQ(Harness::time_of(join[0]), at_s(20));
  EXPECT_EQ(join[0]["incarnation"], 1);
  std::optional<json> with5;
  for (const json& v : r.records("view_installed", 0))
    if (Harness::time_of(v) >= at_s(20) && ChurnRun::has(v["members"], 3)) {
      with5 = v;
      break;
    }
  ASSERT_TRUE(with5);
  EXPECT_EQ((*with5)["view_id"].get<int64_t>(), k + 1);
  EXPECT_GE(Harness::time_of(*with5), at_s(20));
  EXPECT_LT(Harness::time_of(*with5), at_s(20.5));
  const Member& j = r.model.member(3);
  EXPECT_EQ(j.id().node, 3u);
  EXPECT_EQ(j.id().incarnation, 1u);
  EXPECT_EQ(j.id().join_view, k + 1);
  // In the ring afterwards: every member's view has it, it watches a neighbour and is watched.
  bool watched = false;
  for (NodeId n : {0u, 1u, 2u, 3u, 4u}) {
    ASSERT_TRUE(r.model.member(n).participating()) << n;
    EXPECT_TRUE(r.model.member(n).view()->contains(j.id())) << n;
    EXPECT_FALSE(r.model.member(n).view()->contains(MemberId{3, 0, 1})) << n;
    EXPECT_FALSE(r.model.member(n).view()->contains_node(5)) << n;
    const auto nb = r.model.member(n).neighbour();
    if (nb && *nb == j.id()) watched = true;
  }
  EXPECT_TRUE(watched);
  EXPECT_TRUE(j.neighbour().has_value());
  EXPECT_FALSE(r.any_about("suspect", "suspect", 3));
  EXPECT_EQ(m["churn_joins_count"], 1);
  EXPECT_EQ(m["churn_joins_completed_count"], 1);
  EXPECT_EQ(m["false_suspicions_count"], 0);
  EXPECT_EQ(m["members_in_view_at_horizon_count"], 5);
}

}  // namespace

TEST(GeodeChurn, GracefulLeaveGoesThroughTheLeaveRequestAndAJoinerIsAFreshMember_Current) {
  expect_leave_then_join(Profile::current);
}

TEST(GeodeChurn, GracefulLeaveGoesThroughTheLeaveRequestAndAJoinerIsAFreshMember_Wiki) {
  expect_leave_then_join(Profile::wiki);
}

TEST(GeodeChurn, LeaveOfTheLeadMemberIsNoQuorumLoss) {
  // Members 0 (locator, weight 3), 1 (lead member, 15), 2 (10): 1 weighs more than half of
  // 28. A crash of 1 would lose quorum; its leave must not (GMSJoinLeave.isMajorityLost
  // weighs only crashed members, not the view's shutdownMembers).
  GeodeConfig c = GeodeConfig::defaults(Profile::current, Duration::ms(5000), 3);
  c.members = {0, 1, 2};
  c.locators = {0};
  faults::FaultsConfig f;
  faults::ChurnProcess p;
  p.nodes = {1};
  p.session = faults::Lifetime::empirical({10.0});
  p.stream = "faults.churn";
  f.churn = p;
  ChurnRun r(c, f);
  EXPECT_TRUE(r.records("partition_declared").empty());
  EXPECT_TRUE(r.records("quorum_lost_at_install").empty());
  EXPECT_TRUE(r.records("forced_disconnect").empty());
  for (NodeId n : {0u, 2u}) {
    ASSERT_TRUE(r.model.member(n).participating()) << n;
    EXPECT_EQ(r.model.member(n).view()->size(), 2u) << n;
  }
  EXPECT_EQ(r.model.metrics()["churn_leaves_graceful_count"], 1);
}

TEST(GeodeChurn, CrashLeaveIsAFailure_DetectedByTheRing) {
  // "leave": "crash": no leave request; the ring detects and removes 3 as a crash.
  ChurnRun r(Profile::current, false);
  for (const json& s : r.records("send", 3)) EXPECT_NE(s["msg"], "geode.leave_request");
  const GeodeRecorder& rec = r.model.recorder();
  ASSERT_EQ(rec.crashes().size(), 1u);
  EXPECT_EQ(rec.crashes()[0].id.node, 3u);
  ASSERT_TRUE(rec.crashes()[0].removal);
  EXPECT_GT((*rec.crashes()[0].removal - at_s(10)).seconds(), 5.0);  // at least the timeout
  const json m = r.model.metrics();
  EXPECT_EQ(m["churn_leaves_crash_count"], 1);
  EXPECT_EQ(m["churn_leaves_graceful_count"], 0);
}

}  // namespace fdsim::geode::test
