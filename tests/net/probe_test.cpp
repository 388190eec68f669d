// Connection probes (TCP-like connect + request/answer), as Geode's final check uses them.
#include <gtest/gtest.h>

#include <optional>

#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::constant_net;
using testing_support::NetWorld;

struct ProbeRun {
  std::optional<ProbeResult> result;
  double done_ms = -1;
  double served_ms = -1;
};

// Starts a probe from 0 to 1 at start_ms with the given timeout; latency is 5 ms each way.
void start_probe(NetWorld& w, ProbeRun& run, double start_ms, double timeout_ms,
                 NodeId src = 0, NodeId dst = 1) {
  const MsgType t = w.net.type("final_check");
  w.at_ms(start_ms, [&w, &run, t, timeout_ms, src, dst] {
    w.net.probe(
        src, dst, Duration::from_ms(timeout_ms), t, ProbeBytes{10, 2},
        [&w, &run] {
          run.served_ms = w.now_ms();
          return int64_t(42);
        },
        [&w, &run](ProbeResult r) {
          EXPECT_FALSE(run.result.has_value()) << "done ran twice";
          run.result = r;
          run.done_ms = w.now_ms();
        });
  });
}

TEST(Probe, UpHost_AnsweredAfterTwoLatencies) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::answered);
  EXPECT_EQ(run.result->answer, 42);
  EXPECT_DOUBLE_EQ(run.served_ms, 105);
  EXPECT_DOUBLE_EQ(run.done_ms, 110);
  const TypeCount& c = w.net.type_counts()[w.net.type("final_check")];
  EXPECT_EQ(c.sent, 1u);
  EXPECT_EQ(c.delivered, 1u);
  // The timeout event was cancelled, not left to fire: the run ends at the answer.
  EXPECT_DOUBLE_EQ(w.now_ms(), 110);
}

TEST(Probe, CrashedHost_RefusedAfterOneRoundTrip) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.crash(1); });
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::refused);
  EXPECT_DOUBLE_EQ(run.done_ms, 110);
  EXPECT_DOUBLE_EQ(run.served_ms, -1);
  EXPECT_EQ(w.net.type_counts()[w.net.type("final_check")].dropped, 1u);
}

TEST(Probe, CrashedHost_TimeoutShorterThanTheRoundTripIsATimeout) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.crash(1); });
  start_probe(w, run, 100, 8);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(run.done_ms, 108);
}

TEST(Probe, AnswerExactlyAtTheDeadlineIsATimeout) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 10);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(run.done_ms, 110);
}

TEST(Probe, PausedHost_HangsUntilTheTimeoutAndIsNotServedLater) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.pause(1); });
  w.at_ms(5000, [&] { w.hosts.resume(1); });
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(run.done_ms, 1100);
  EXPECT_DOUBLE_EQ(run.served_ms, -1);
}

TEST(Probe, PausedHost_AnswersIfThePauseEndsEarlyEnough) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.pause(1); });
  w.at_ms(300, [&] { w.hosts.resume(1); });
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::answered);
  EXPECT_DOUBLE_EQ(run.served_ms, 300);  // served at resume
  EXPECT_DOUBLE_EQ(run.done_ms, 305);    // answer after one more latency
}

TEST(Probe, PlayDeadHost_TimesOut) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.set_play_dead(1, true); });
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(run.done_ms, 1100);
  EXPECT_DOUBLE_EQ(run.served_ms, -1);
}

TEST(Probe, SickHost_StillAnswers) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  w.at_ms(0, [&] { w.hosts.set_sick(1, true); });
  start_probe(w, run, 100, 1000);
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::answered);
}

TEST(Probe, PartitionInEitherDirection_TimesOut) {
  for (bool reverse : {false, true}) {
    NetWorld w(2, constant_net(5));
    ProbeRun run;
    w.at_ms(0, [&] {
      if (reverse)
        w.net.add_partition({1}, {0}, true);  // only the answers' direction is cut
      else
        w.net.add_partition({0}, {1}, true);
    });
    start_probe(w, run, 100, 1000);
    w.sim.run();
    ASSERT_TRUE(run.result);
    EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out) << "reverse = " << reverse;
    EXPECT_DOUBLE_EQ(run.done_ms, 1100);
  }
}

TEST(Probe, PartitionStartedWhileConnecting_HangsWithoutServing) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 1000);
  w.at_ms(104, [&] { w.net.add_partition({1}, {0}, true); });  // the reverse path only
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_DOUBLE_EQ(run.served_ms, -1);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(run.done_ms, 1100);
}

TEST(Probe, PartitionAfterServingDoesNotCatchTheAnswerInFlight) {
  // Like datagrams, a probe's answer is checked against partitions when it is sent.
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 1000);
  w.at_ms(107, [&] { w.net.add_partition({1}, {0}, false); });
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_DOUBLE_EQ(run.served_ms, 105);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::answered);
}

TEST(Probe, ProberThatCrashesNeverHearsTheOutcome) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 1000);
  w.at_ms(107, [&] { w.hosts.crash(0); });
  w.at_ms(108, [&] { w.hosts.recover(0); });
  w.sim.run();
  EXPECT_FALSE(run.result.has_value());
  EXPECT_DOUBLE_EQ(run.served_ms, 105);
}

TEST(Probe, PausedProberHearsTheOutcomeAtResume) {
  NetWorld w(2, constant_net(5));
  ProbeRun run;
  start_probe(w, run, 100, 1000);
  w.at_ms(101, [&] { w.hosts.pause(0); });
  w.at_ms(2000, [&] { w.hosts.resume(0); });
  w.sim.run();
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run.result->outcome, ProbeOutcome::answered);
  EXPECT_DOUBLE_EQ(run.done_ms, 2000);
}

TEST(Probe, ManyConcurrentProbesEachGetTheirOwnOutcome) {
  NetWorld w(4, constant_net(5));
  w.at_ms(0, [&] { w.hosts.crash(2); w.hosts.set_play_dead(3, true); });
  std::vector<ProbeRun> runs(3);
  start_probe(w, runs[0], 10, 100, 0, 1);
  start_probe(w, runs[1], 10, 100, 0, 2);
  start_probe(w, runs[2], 10, 100, 0, 3);
  w.sim.run();
  EXPECT_EQ(runs[0].result->outcome, ProbeOutcome::answered);
  EXPECT_EQ(runs[1].result->outcome, ProbeOutcome::refused);
  EXPECT_EQ(runs[2].result->outcome, ProbeOutcome::timed_out);
  EXPECT_DOUBLE_EQ(runs[2].done_ms, 110);
}

}  // namespace
}  // namespace fdsim::net
