// The shipped Geode example scenarios (scenarios/examples/geode/): each loads without a
// problem through the sections' own parsers (top level, network, faults, membership) and,
// run for replication 0 with the real fault injector, does what its description says.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/geode/geode_model.h"
#include "sim/faults/config.h"
#include "sim/faults/injector.h"
#include "sim/net/config.h"
#include "sim/scenario/top_level.h"
#include "tests/geode/harness.h"

namespace fdsim::geode::test {
namespace {

struct Loaded {
  scenario::TopLevel top;
  net::NetworkConfig network;
  faults::FaultsConfig faults;
  GeodeConfig membership;
};

Loaded load(const std::string& name) {
  const std::string path = std::string(FDSIM_SOURCE_DIR) + "/scenarios/examples/geode/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  const json doc = json::parse(in);
  scenario::Diagnostics diag;
  json resolved;
  scenario::ObjectReader root(&doc, "$", diag, resolved);
  Loaded l;
  l.top = scenario::parse_top_level(root);
  const std::string base = std::filesystem::path(path).parent_path().string();
  root.object("network", [&](scenario::ObjectReader& r) {
    l.network = net::parse_network_config(r, l.top.nodes, base);
  });
  l.faults = faults::parse_faults_config(root, l.top.nodes, base);
  root.object("membership", [&](scenario::ObjectReader& r) {
    l.membership = parse_geode_config(r, l.top.nodes);
  });
  root.finish();
  std::string problems;
  for (const auto& p : diag.problems) problems += p.str() + "\n";
  EXPECT_TRUE(diag.ok()) << name << ":\n" << problems;
  return l;
}

struct ScenarioRun {
  explicit ScenarioRun(const Loaded& l, size_t arm = 0,
                       std::optional<SimTime> stop = std::nullopt, bool trace = true)
      : hosts(sim, l.top.nodes.count),
        net(sim, hosts, RngFactory(l.top.seed, 0), l.network),
        world{sim, hosts, net, RngFactory(l.top.seed, 0), l.top.warmup_end, l.top.horizon},
        model(world, l.membership, arm),
        injector(world, l.faults) {
    if (trace) sim.set_trace(&sink);
    injector.start();
    model.start();
    sim.run_until(stop.value_or(l.top.horizon));
  }
  std::optional<json> first(const std::string& kind, std::optional<NodeId> node = std::nullopt,
                            std::function<bool(const json&)> pred = nullptr) const {
    for (const json& r : sink.records)
      if (r["kind"] == kind && (!node || r["node"] == *node) && (!pred || pred(r))) return r;
    return std::nullopt;
  }
  Simulator sim;
  net::Hosts hosts;
  net::Network net;
  World world;
  RecordingSink sink;
  GeodeModel model;
  faults::FaultInjector injector;
};

}  // namespace

TEST(GeodeScenarios, CrashedMember_RemovedWithinTheWikiBounds) {
  const Loaded l = load("crashed-member.json");
  ScenarioRun r(l);
  const auto& c = r.model.recorder().crashes();
  ASSERT_EQ(c.size(), 1u);
  ASSERT_TRUE(c[0].removal);
  const double s = (*c[0].removal - c[0].crashed).seconds();
  EXPECT_GT(s, 12.803);
  EXPECT_LT(s, 17.806);
  EXPECT_EQ(r.model.recorder().false_suspicions(), 0u);
  EXPECT_FALSE(r.model.member(0).view()->contains_node(4));
}

TEST(GeodeScenarios, CrashedCoordinator_MemberOneTakesOver) {
  const Loaded l = load("crashed-coordinator.json");
  ScenarioRun r(l);
  const auto t = r.first("become_coordinator", 1);
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)["old_coordinator"], 0);
  const View* v = r.model.member(5).view();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->coordinator.node, 1u);
  EXPECT_GE(v->id, 6);
  EXPECT_FALSE(v->contains_node(0));
  EXPECT_FALSE(r.first("view_prepare", 1, [](const json& x) { return x["view_id"] == 2; }));
}

TEST(GeodeScenarios, GcPause_FalseRemovalOfThePausedMember) {
  const Loaded l = load("gc-pause-false-removal.json");
  ScenarioRun r(l);
  EXPECT_EQ(r.model.recorder().false_removals(), 1u);
  EXPECT_EQ(r.model.recorder().crashes().size(), 0u);
  EXPECT_TRUE(r.model.member(3).disconnected());
  const auto d = r.first("forced_disconnect", 3);
  ASSERT_TRUE(d);
  EXPECT_EQ(Harness::time_of(*d), at_s(53));  // at the resume: the InstallView was waiting
}

TEST(GeodeScenarios, OneWayPartition_CutOffMemberIsRemovedAndDisconnects) {
  const Loaded l = load("one-way-partition.json");
  ScenarioRun r(l);
  EXPECT_EQ(r.model.recorder().false_removals(), 1u);
  const auto d = r.first("forced_disconnect", 5);
  ASSERT_TRUE(d);
  EXPECT_FALSE(r.model.member(0).view()->contains(MemberId{5, 0, -1}));
  // Auto-reconnect (issue 26): 60 s after the disconnect, with the partition healed at 70 s,
  // m5 re-joins as a new identity.
  const auto rc = r.first("reconnect", 5);
  ASSERT_TRUE(rc);
  EXPECT_EQ(Harness::time_of(*rc), Harness::time_of(*d) + Duration::s(60));
  EXPECT_EQ(r.model.member(5).reconnects(), 1u);
  EXPECT_TRUE(r.model.member(0).view()->contains(MemberId{5, 1u << kReconnectShift, -1}));
  for (NodeId n = 0; n < 10; ++n) EXPECT_TRUE(r.model.member(n).participating()) << n;
}

TEST(GeodeScenarios, PartitionQuorumLoss_CoordinatorSideShutsDownOtherSideTakesOver) {
  const Loaded l = load("partition-quorum-loss.json");
  ScenarioRun r(l);
  const auto declared = r.first("partition_declared", 0);
  ASSERT_TRUE(declared);
  EXPECT_EQ(r.model.recorder().partition_declarations(), 1u);
  // Disconnected, then (auto-reconnect, 60 s later) re-joining in vain: the partition does
  // not heal, so no view admits them; the attempt gives up after the join timeout (24 s) and
  // the member waits again (60 s, beyond the horizon).
  for (NodeId n : {0u, 1u, 2u}) {
    const auto d = r.first("forced_disconnect", n);
    ASSERT_TRUE(d) << n;
    EXPECT_EQ(r.model.member(n).reconnects(), 1u) << n;
    const auto failed = r.first("reconnect_attempt_failed", n);
    ASSERT_TRUE(failed) << n;
    EXPECT_EQ(Harness::time_of(*failed), Harness::time_of(*d) + Duration::s(60 + 24)) << n;
    EXPECT_TRUE(r.model.member(n).reconnect_pending()) << n;
    EXPECT_FALSE(r.model.member(n).participating()) << n;
  }
  const View* v = r.model.member(9).view();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->coordinator.node, 3u);
  EXPECT_EQ(v->size(), 7u);
  for (NodeId n = 3; n < 10; ++n) EXPECT_TRUE(r.model.member(n).participating()) << n;
}

TEST(GeodeScenarios, HundredMembersLossy_BothCrashesRemoved) {
  // Arm "fixed" only, run to 480 s (both crashes, at 250 s and 450 s, are removed by then),
  // without a trace: the whole file (two arms, 600 s) is too long for the unit suite.
  const Loaded l = load("hundred-members-lossy.json");
  ASSERT_EQ(l.membership.arm_names(), (std::vector<std::string>{"fixed", "phi"}));
  ScenarioRun r(l, 0, at_s(480), /*trace=*/false);
  const auto& c = r.model.recorder().crashes();
  ASSERT_EQ(c.size(), 2u);
  ASSERT_TRUE(c[0].removal && c[1].removal);
  // wiki bounds (README.md), with the lognormal delays' allowance of a few ms per hop.
  for (const auto& x : c) {
    EXPECT_GT((*x.removal - x.crashed).seconds(), 12.8);
    EXPECT_LT((*x.removal - x.crashed).seconds(), 17.9);
  }
  EXPECT_EQ(r.model.recorder().false_removals(), 0u);
}

TEST(GeodeScenarios, SeqNeighbourCheckAnswered_ReplyAtTheResumePassesTheCheck) {
  const Loaded l = load("seq-neighbour-check-answered.json");
  ScenarioRun r(l);
  const auto passed = r.first("check_passed", 1);
  ASSERT_TRUE(passed);
  EXPECT_EQ((*passed)["target"], 2);
  EXPECT_EQ((*passed)["replied"], true);
  EXPECT_FALSE(r.first("suspect"));
}

TEST(GeodeScenarios, SeqSilentNeighbourRemoved_FinalCheckFailsAndViewTwoIsInstalled) {
  const Loaded l = load("seq-silent-neighbour-removed.json");
  ScenarioRun r(l);
  EXPECT_TRUE(r.first("suspect", 2));
  EXPECT_TRUE(r.first("final_check_failed", 0));
  EXPECT_TRUE(r.first("view_installed", 2, [](const json& x) { return x["view_id"] == 2; }));
}

TEST(GeodeScenarios, SeqSuspicionRecorded_NonCoordinatorOnlyRecords) {
  const Loaded l = load("seq-suspicion-recorded.json");
  ScenarioRun r(l);
  const auto rec = r.first("suspicion_received", 5);
  ASSERT_TRUE(rec);
  EXPECT_EQ((*rec)["action"], "record");
  EXPECT_FALSE(r.first("final_check_start", 5));
  EXPECT_TRUE(r.first("final_check_start", 0));
}

}  // namespace fdsim::geode::test
