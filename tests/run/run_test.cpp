// The run layer: determinism, the manifest, arms and simulations, the per-node table, progress,
// traces.

#include <cinttypes>
#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include "sim/engine/hash.h"
#include "sim/run/run.h"
#include "fdsim_build_info.h"
#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION

namespace fdsim::run {
namespace {

using nlohmann::json;

// A small heartbeat study: 4 nodes, two arms, node 1 crashes at 10 s and recovers at 30 s,
// node 2 pauses 5 s at 20 s.
json run_study() {
  return json::parse(R"({
    "name": "study", "seed": 5, "horizon_s": 60, "warmup_s": 5,
    "nodes": {"count": 4},
    "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 2}, "loss": 0.01},
    "faults": [{"kind": "crash", "at_s": 10, "nodes": [1]},
               {"kind": "recover", "at_s": 30, "nodes": [1]},
               {"kind": "pause", "at_s": 20, "duration_ms": 5000, "nodes": [2]}],
    "detectors": {"heartbeat_period_ms": 500,
                  "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}},
                           {"name": "phi", "detector": {"kind": "phi_accrual"}}]}
  })");
}

// A Geode ring with two neighbour-check arms.
json run_ring() {
  return json::parse(R"({
    "name": "ring", "seed": 2, "horizon_s": 40,
    "nodes": {"count": 5},
    "faults": [{"kind": "crash", "at_s": 10, "nodes": [3]}],
    "membership": {"neighbour_check": [
      {"name": "fixed"},
      {"name": "phi", "detector": {"kind": "phi_accrual"}}]}
  })");
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

TEST(Run, SameScenarioSeedAndReplication_GiveIdenticalResultsAndTraces) {
  RunOptions opts;
  opts.trace = true;
  const RunOutcome a = execute(run_study(), "study.json", 0, opts);
  const RunOutcome b = execute(run_study(), "elsewhere/study.json", 0, opts);
  ASSERT_TRUE(a.ok) << (a.problems.empty() ? a.internal_error : a.problems[0]);
  ASSERT_TRUE(b.ok);
  EXPECT_EQ(a.result.dump(), b.result.dump());
  EXPECT_EQ(a.trace_lines, b.trace_lines);
  EXPECT_FALSE(a.trace_lines.empty());
}

TEST(Run, ReplicationAndSeed_ChangeTheRun) {
  const RunOutcome r0 = execute(run_study(), "s", 0);
  const RunOutcome r1 = execute(run_study(), "s", 1);
  RunOptions other_seed;
  other_seed.seed = 6;
  const RunOutcome s6 = execute(run_study(), "s", 0, other_seed);
  ASSERT_TRUE(r0.ok && r1.ok && s6.ok);
  const auto fp = [](const RunOutcome& o) { return o.result["manifest"]["arms"]["fixed"]["fingerprint"]; };
  EXPECT_NE(fp(r0), fp(r1));
  EXPECT_NE(fp(r0), fp(s6));
  EXPECT_EQ(s6.result["manifest"]["seed"], 6);
  EXPECT_EQ(s6.result["manifest"]["resolved_config"]["seed"], 6);
  EXPECT_EQ(r1.result["manifest"]["replication"], 1);
}

TEST(Run, Manifest_CarriesTheRunIdentity) {
  const RunOutcome o = execute(run_study(), "study.json", 2);
  ASSERT_TRUE(o.ok);
  const json& m = o.result["manifest"];
  EXPECT_EQ(m["fdsim_version"], FDSIM_VERSION);
  EXPECT_EQ(m["git_revision"], FDSIM_GIT_REVISION);
  // The compiler and flags of this build (issue 28), as CMake configured them.
  EXPECT_EQ(m["build"]["compiler_id"], FDSIM_BUILD_COMPILER_ID);
  EXPECT_FALSE(m["build"]["compiler_id"].get<std::string>().empty());
  EXPECT_EQ(m["build"]["compiler_version"], FDSIM_BUILD_COMPILER_VERSION);
  EXPECT_NE(m["build"]["compiler_version"].get<std::string>().find('.'), std::string::npos);
  EXPECT_EQ(m["build"]["build_type"], FDSIM_BUILD_TYPE);
  EXPECT_NE(m["build"]["cxx_flags"].get<std::string>().find("-Wall"), std::string::npos);
  EXPECT_EQ(m["scenario_name"], "study");
  EXPECT_EQ(m["seed"], 5);
  EXPECT_EQ(m["replication"], 2);
  EXPECT_EQ(m["model"], "heartbeat_study");
  EXPECT_EQ(m["arm_order"], (json{"fixed", "phi"}));
  EXPECT_EQ(m["horizon_s"], 60.0);
  EXPECT_EQ(m["warmup_s"], 5.0);
  // The hash is FNV-1a 64 of the canonical dump of the resolved config.
  EXPECT_EQ(m["scenario_hash"], hex(fnv1a64(m["resolved_config"].dump())));
  EXPECT_EQ(m["scenario_hash"], scenario_hash(m["resolved_config"]));
  // Every default is written into the resolved config.
  EXPECT_EQ(m["resolved_config"]["replications"], 1);
  EXPECT_EQ(m["resolved_config"]["metrics"]["per_node"], false);
  EXPECT_TRUE(m["resolved_config"]["network"].contains("retransmit_ms"));
  EXPECT_TRUE(m["resolved_config"]["detectors"].contains("monitors_per_sender"));
  // Per arm: the simulation's identity.
  for (const char* arm : {"fixed", "phi"}) {
    const json& a = m["arms"][arm];
    EXPECT_EQ(a["fingerprint"].get<std::string>().size(), 16u);
    EXPECT_GT(a["events_dispatched_count"].get<uint64_t>(), 0u);
    EXPECT_GT(a["peak_queue_events_count"].get<uint64_t>(), 0u);
    uint64_t by_kind = 0;
    for (const auto& [k, n] : a["events_by_kind_count"].items()) by_kind += n.get<uint64_t>();
    EXPECT_EQ(by_kind, a["events_dispatched_count"].get<uint64_t>());
  }
  // run_stats is apart from the result.
  EXPECT_FALSE(o.result.contains("run_stats"));
  EXPECT_EQ(o.run_stats["events_dispatched_count"], m["arms"]["fixed"]["events_dispatched_count"]);
  EXPECT_GT(o.run_stats["peak_rss_kb"].get<int64_t>(), 0);
}

TEST(Run, HeartbeatStudyArms_ShareOneSimulation) {
  const RunOutcome o = execute(run_study(), "s", 0);
  ASSERT_TRUE(o.ok);
  const json& arms = o.result["manifest"]["arms"];
  EXPECT_EQ(arms["fixed"]["simulation"], 0);
  EXPECT_EQ(arms["phi"]["simulation"], 0);
  EXPECT_EQ(arms["fixed"]["fingerprint"], arms["phi"]["fingerprint"]);
  EXPECT_TRUE(o.result["metrics"].contains("fixed"));
  EXPECT_TRUE(o.result["metrics"].contains("phi"));
  EXPECT_EQ(o.run_stats["simulations"].size(), 1u);
}

TEST(Run, GeodeArms_RunOneSimulationEachOnCommonRandomNumbers) {
  RunOptions opts;
  opts.trace = true;
  const RunOutcome o = execute(run_ring(), "ring.json", 0, opts);
  ASSERT_TRUE(o.ok) << (o.problems.empty() ? o.internal_error : o.problems[0]);
  const json& arms = o.result["manifest"]["arms"];
  EXPECT_EQ(arms["fixed"]["simulation"], 0);
  EXPECT_EQ(arms["phi"]["simulation"], 1);
  EXPECT_EQ(o.result["manifest"]["model"], "membership");
  EXPECT_EQ(o.run_stats["simulations"].size(), 2u);
  // Trace lines carry their arm; the first arm's lines come first.
  size_t fixed = 0, phi = 0;
  bool phi_seen = false;
  for (const auto& line : o.trace_lines) {
    const json rec = json::parse(line);
    ASSERT_TRUE(rec.contains("arm")) << line;
    if (rec["arm"] == "fixed") {
      ++fixed;
      EXPECT_FALSE(phi_seen) << "fixed-arm line after the phi arm started: " << line;
    } else {
      ASSERT_EQ(rec["arm"], "phi") << line;
      ++phi;
      phi_seen = true;
    }
  }
  EXPECT_GT(fixed, 0u);
  EXPECT_GT(phi, 0u);
}

TEST(Run, ConcurrentExecutions_GiveTheSameResultsAsSerialOnes) {
  const std::string serial_study = execute(run_study(), "s", 1).result.dump();
  const std::string serial_ring = execute(run_ring(), "r", 0).result.dump();
  std::string a, b;
  std::thread t1([&] { a = execute(run_study(), "s", 1).result.dump(); });
  std::thread t2([&] { b = execute(run_ring(), "r", 0).result.dump(); });
  t1.join();
  t2.join();
  EXPECT_EQ(a, serial_study);
  EXPECT_EQ(b, serial_ring);
}

TEST(Run, PerNodeTable_MatchesTheFaultSchedule) {
  json s = run_study();
  s["metrics"]["per_node"] = true;
  const RunOutcome o = execute(s, "s", 0);
  ASSERT_TRUE(o.ok);
  for (const char* arm : {"fixed", "phi"}) {
    const json& t = o.result["metrics"][arm]["hosts_per_node"];
    ASSERT_EQ(t.size(), 4u);
    // Window [5 s, 60 s]: node 1 down from 10 s to 30 s, node 2 paused from 20 s to 25 s.
    EXPECT_EQ(t[1]["crashes_count"], 1);
    EXPECT_EQ(t[1]["recoveries_count"], 1);
    EXPECT_DOUBLE_EQ(t[1]["up_time_s"].get<double>(), 35.0);
    EXPECT_EQ(t[2]["pauses_count"], 1);
    EXPECT_DOUBLE_EQ(t[2]["paused_time_s"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(t[2]["up_time_s"].get<double>(), 55.0);
    EXPECT_DOUBLE_EQ(t[0]["up_time_s"].get<double>(), 55.0);
    EXPECT_EQ(t[3]["crashes_count"], 0);
    EXPECT_DOUBLE_EQ(t[3]["sick_time_s"].get<double>(), 0.0);
  }
}

TEST(Run, PerNodeTable_ClipsAFaultThatStartsBeforeTheWarmup) {
  json s = run_study();
  s["metrics"]["per_node"] = true;
  s["warmup_s"] = 15;  // node 1 went down at 10 s: 15 s of its downtime are in the window
  const RunOutcome o = execute(s, "s", 0);
  ASSERT_TRUE(o.ok);
  const json& t = o.result["metrics"]["fixed"]["hosts_per_node"];
  EXPECT_EQ(t[1]["crashes_count"], 0);  // before the window
  EXPECT_EQ(t[1]["recoveries_count"], 1);
  EXPECT_DOUBLE_EQ(t[1]["up_time_s"].get<double>(), 45.0 - 15.0);
}

TEST(Run, Progress_IsMonotoneAndEndsAtTheTotal) {
  std::vector<std::pair<double, double>> calls;
  std::vector<uint64_t> events;
  RunOptions opts;
  opts.progress = [&](double done, double total) { calls.emplace_back(done, total); };
  opts.progress_info = [&](const ProgressInfo& p) { events.push_back(p.events); };
  const RunOutcome o = execute(run_ring(), "s", 0, opts);
  ASSERT_TRUE(o.ok);
  ASSERT_FALSE(calls.empty());
  for (size_t i = 1; i < calls.size(); ++i) {
    EXPECT_GE(calls[i].first, calls[i - 1].first);
    EXPECT_GE(events[i], events[i - 1]);
  }
  EXPECT_DOUBLE_EQ(calls.back().first, 80.0);  // 2 arms x 40 s
  EXPECT_DOUBLE_EQ(calls.back().second, 80.0);
  EXPECT_EQ(events.back(), o.run_stats["events_dispatched_count"].get<uint64_t>());
}

TEST(Run, BadInput_ComesBackAsProblemsWithTheSourceName) {
  json s = run_study();
  s["horizon_s"] = "long";
  s["faults"][0]["nodes"] = json::array({9});
  const RunOutcome o = execute(s, "dir/x.json", 0);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(o.internal_error.empty());
  EXPECT_TRUE(o.result.is_null());
  ASSERT_EQ(o.problems.size(), 2u);
  EXPECT_EQ(o.problems[0],
            "dir/x.json: $.horizon_s: expected a number > 0 and <= 1000000000, got the string "
            "\"long\"");
  EXPECT_EQ(o.problems[1].rfind("dir/x.json: $.faults[0].nodes[0]: ", 0), 0u) << o.problems[1];
  // Without a source name, just the paths.
  const RunOutcome bare = execute(s, "", 0);
  ASSERT_EQ(bare.problems.size(), 2u);
  EXPECT_EQ(bare.problems[0].rfind("$.horizon_s: ", 0), 0u);
}

TEST(Run, NotAnObject_IsBadInput) {
  const RunOutcome o = execute(json::array({1, 2}), "x.json", 0);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.problems,
            std::vector<std::string>{"x.json: $: expected a JSON object (a scenario), got an array"});
}

TEST(Resolve, ReturnsTheResolvedConfigWithoutRunning) {
  const ResolveOutcome r = resolve(run_study(), "s.json");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.resolved, execute(run_study(), "s.json", 0).result["manifest"]["resolved_config"]);
  json bad = run_study();
  bad["warmup_s"] = 60;
  const ResolveOutcome b = resolve(bad, "s.json");
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.problems,
            std::vector<std::string>{"s.json: $.warmup_s: expected warmup_s < horizon_s (60), got 60"});
}

}  // namespace
}  // namespace fdsim::run
