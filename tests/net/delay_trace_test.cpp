// Time-ordered trace replay (sim/net/delay_trace.h): delivered delays equal the file's rows in
// order, the trace loops, each link reads it from its own offset (or all share one), lost rows
// drop the datagram, and the reader refuses bad files with the file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/net/delay_trace.h"
#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::NetWorld;

std::string write_trace_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "fdsim-delay-trace-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::shared_ptr<const TraceLatency> load(const std::string& text, double loop_ms = 0,
                                         bool shared = true) {
  std::string err;
  auto rows = load_delay_trace_rows(write_trace_file("t.txt", text), err);
  EXPECT_EQ(err, "");
  return std::make_shared<const TraceLatency>(std::move(rows),
                                              Duration::from_ms(loop_ms).count_ns(), shared);
}

// Sends one datagram 0 -> 1 at each time (ms) and returns its delay in ms, or -1 if lost.
std::vector<double> delays(std::shared_ptr<const LatencyModel> model, const std::vector<double>& at_ms,
                           NodeId src = 0, NodeId dst = 1, size_t nodes = 2) {
  NetworkConfig cfg;
  cfg.latency = std::move(model);
  NetWorld w(nodes, cfg);
  const MsgType t = w.net.type("m");
  std::vector<double> out(at_ms.size(), -1);
  for (size_t i = 0; i < at_ms.size(); ++i)
    w.at_ms(at_ms[i], [&, i] {
      const double sent = w.now_ms();
      w.net.send_unreliable(src, dst, t, 8, [&, i, sent] { out[i] = w.now_ms() - sent; });
    });
  w.sim.run();
  return out;
}

const char* kTrace =
    "# offset_ms delay_ms | lost\n"
    "0 5\n"
    "10, lost\n"
    "20\t7.5   # a comment\n"
    "\n"
    "30 9\n";

TEST(DelayTrace, DeliveredDelaysAreTheRowsInOrderAndTheTraceLoops) {
  const auto m = load(kTrace);  // loop = 30 + 30/3 = 40 ms
  EXPECT_EQ(m->loop_ns(), Duration::ms(40).count_ns());
  const std::vector<double> got = delays(m, {0, 10, 20, 30, 40, 50, 60, 70, 85, 99.999});
  const std::vector<double> want = {5, -1, 7.5, 9, 5, -1, 7.5, 9, 5, -1};  // 85 = 2 x 40 + 5
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << "packet " << i;
}

TEST(DelayTrace, ExplicitLoopKeepsTheLastRowUntilTheLoopEnds) {
  const auto m = load(kTrace, 100);
  const std::vector<double> got = delays(m, {35, 99, 100, 105, 120});
  const std::vector<double> want = {9, 9, 5, 5, 7.5};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << "packet " << i;
}

TEST(DelayTrace, EachLinkReadsFromItsGoldenRatioOffset) {
  const auto m = load(kTrace, 0, /*shared=*/false);
  const size_t nodes = 5;
  const double loop_ms = 40;
  for (NodeId src : {0u, 3u})
    for (NodeId dst : {1u, 4u}) {
      const double x = (double(src) * nodes + dst + 1) * 0.6180339887498949;
      const double off_ms = std::floor((x - std::floor(x)) * loop_ms * 1e6) * 1e-6;
      EXPECT_NEAR(double(m->offset_ns(src, dst, nodes)) * 1e-6, off_ms, 1e-6);
      std::vector<double> at, want;
      for (double t = 0; t < 120; t += 3.7) {
        at.push_back(t);
        const double pos = std::fmod(t + off_ms, loop_ms);
        want.push_back(pos < 10 ? 5 : pos < 20 ? -1 : pos < 30 ? 7.5 : 9);
      }
      const std::vector<double> got = delays(m, at, src, dst, nodes);
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-9) << src << " -> " << dst << " at " << at[i] << " ms";
    }
  // Distinct links start at distinct places.
  EXPECT_NE(m->offset_ns(0, 1, nodes), m->offset_ns(1, 0, nodes));
}

TEST(DelayTrace, LostRowsGiveThePreviousDelayWhereLossDoesNotApply) {
  const auto m = load(kTrace);
  NetworkConfig cfg;
  cfg.latency = m;
  NetWorld w(2, cfg);
  w.at_ms(12, [&] { EXPECT_NEAR(w.net.draw_latency(0, 1).millis(), 5, 1e-9); });
  w.at_ms(22, [&] { EXPECT_NEAR(w.net.draw_latency(0, 1).millis(), 7.5, 1e-9); });
  w.sim.run();
  EXPECT_NEAR(m->mean_ms(), (5 + 7.5 + 9) / 3, 1e-12);
  EXPECT_NEAR(m->quantile_ms(0.5), 7.5, 1e-12);
  EXPECT_NEAR(m->min_ms(), 5, 1e-12);
}

TEST(DelayTrace, ReliableSendsRetransmitThroughLostRows) {
  const auto m = load("0 lost\n50 2\n");  // loop 100 ms: lost in [0, 50)
  NetworkConfig cfg;
  cfg.latency = m;
  cfg.retransmit_interval = Duration::ms(20);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("r");
  double at = -1;
  w.at_ms(0, [&] { w.net.send_reliable(0, 1, t, 8, [&] { at = w.now_ms(); }); });
  w.sim.run();
  EXPECT_NEAR(at, 60 + 2, 1e-9);  // attempts at 0, 20, 40 lost; 60 gets through
}

TEST(DelayTrace, ReaderRefusesBadFilesNamingTheLineNotTheContent) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"0 1\n5 secret-token\n", ":2: expected"},
      {"0 1\n0 2\n", ":2: offsets must be strictly increasing"},
      {"0 1\n", "at least two rows"},
      {"0 lost\n1 lost\n", "every row"},
      {"0 -1\n1 2\n", ":1: expected"},
      {"0 1 2\n1 2\n", ":1: expected"},
      {"0,,1\n1 2\n", ":1: expected"},
  };
  for (const Case& c : cases) {
    std::string err;
    const auto rows = load_delay_trace_rows(write_trace_file("bad.txt", c.text), err);
    EXPECT_TRUE(rows.empty()) << c.text;
    EXPECT_NE(err.find(c.want), std::string::npos) << err;
    EXPECT_EQ(err.find("secret"), std::string::npos) << err;
  }
  std::string err;
  EXPECT_TRUE(load_delay_trace_rows("/dev/null", err).empty());
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

}  // namespace
}  // namespace fdsim::net
