// Starved (slow-processing) hosts (sim/net/hosts.h, sim/net/starvation.h): Poisson message
// arrivals with a deterministic service give the M/D/1 mean handling delay; a bounded queue
// drops the M/D/1/K blocking share at overload; timers and sends are delayed by the backlog;
// crash, pause and the scheduled windows behave as documented.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/net/starvation.h"
#include "tests/net/net_fixture.h"

namespace fdsim::net {
namespace {

using testing_support::NetWorld;

// Poisson arrivals (rate lambda per ms) from node 1 to node 0 over a constant 1 ms link; node 0
// starved with a constant service of service_ms from t = 0 with the given queue. Returns the
// handling delays (ms from arrival to the callback) and the number sent.
struct Mg1 {
  std::vector<double> handling_ms;
  size_t sent = 0;
  uint64_t dropped = 0;
};
Mg1 run_queue(double lambda_per_ms, double service_ms, size_t count, size_t limit) {
  NetworkConfig cfg = testing_support::constant_net(1);
  StarvedEntry e;
  e.nodes = {0};
  e.service = constant_latency(service_ms);
  e.queue_limit = limit;
  e.stream = "net.starved";
  cfg.starved.push_back(e);
  NetWorld w(2, cfg, 5);
  const MsgType t = w.net.type("m");
  Rng arrivals(12345);
  Mg1 out;
  double at = 0;
  for (size_t i = 0; i < count; ++i) {
    at += arrivals.exponential(lambda_per_ms);
    w.at_ms(at, [&] {
      const double arrive = w.now_ms() + 1;
      ++out.sent;
      w.net.send_unreliable(1, 0, t, 8, [&, arrive] { out.handling_ms.push_back(w.now_ms() - arrive); });
    });
  }
  w.sim.run();
  out.dropped = w.hosts.service_stats(0)->dropped_messages;
  EXPECT_EQ(w.net.type_counts()[t].dropped, out.dropped);  // counted by the network too
  return out;
}

TEST(Starved, PoissonArrivalsWithDeterministicServiceGiveTheMD1MeanDelay) {
  for (double rho : {0.5, 0.8}) {
    const double mu = 1.0;  // service 1 ms
    const Mg1 r = run_queue(rho * mu, 1.0, 200000, 0);
    ASSERT_EQ(r.handling_ms.size(), r.sent);
    double sum = 0;
    for (double d : r.handling_ms) sum += d;
    const double mean = sum / double(r.handling_ms.size());
    const double w = rho / (2 * mu * (1 - rho)) + 1 / mu;  // M/D/1: waiting + service
    // Relative tolerance: the waiting times are strongly autocorrelated near rho = 1.
    EXPECT_NEAR(mean, w, (rho < 0.6 ? 0.02 : 0.05) * w) << "rho " << rho;
  }
}

// M/D/1/K blocking probability (K = limit + 1 items in the system): the embedded chain at
// departures (states 0..K-1) with Poisson(rho) arrivals per service; P_block = 1 - 1/(pi0 + rho)
// (throughput lambda (1 - P_block) = mu (1 - p0) with p0 = pi0 / (pi0 + rho)).
double md1k_blocking(double rho, size_t K) {
  std::vector<double> a(K + 1);
  for (size_t k = 0; k <= K; ++k) a[k] = std::exp(-rho) * std::pow(rho, double(k)) / std::tgamma(double(k) + 1);
  std::vector<double> pi(K, 1.0 / double(K));
  for (int it = 0; it < 20000; ++it) {
    std::vector<double> nx(K, 0.0);
    for (size_t i = 0; i < K; ++i) {
      const size_t base = i == 0 ? 0 : i - 1;  // customers left behind before the arrivals
      double rest = 1;
      for (size_t j = base; j + 1 < K; ++j) {
        nx[j] += pi[i] * a[j - base];
        rest -= a[j - base];
      }
      nx[K - 1] += pi[i] * rest;
    }
    pi = nx;
  }
  return 1 - 1 / (pi[0] + rho);
}

TEST(Starved, BoundedQueueDropsTheMD1KShareAtOverload) {
  const size_t limit = 4;  // K = 5
  const double rho = 1.5;
  const double want = md1k_blocking(rho, limit + 1);
  EXPECT_GT(want, 1 - 1 / rho);  // above the fluid bound 1 - 1/rho = 1/3
  const Mg1 r = run_queue(rho, 1.0, 200000, limit);
  const double share = double(r.dropped) / double(r.sent);
  EXPECT_EQ(r.handling_ms.size() + r.dropped, r.sent);
  EXPECT_NEAR(share, want, 4 * std::sqrt(want * (1 - want) / double(r.sent)) * 3)
      << "M/D/1/K blocking " << want;
  for (double d : r.handling_ms) EXPECT_LE(d, double(limit + 1) + 1e-9);  // at most K services
}

TEST(Starved, TimersAndSendsAreDelayedByTheBacklog) {
  NetWorld w(2, testing_support::constant_net(1));
  auto stream = std::make_shared<Rng>(1);
  w.hosts.starve(0, constant_latency(5), stream);
  const MsgType t = w.net.type("m");
  std::vector<double> ran;
  double recv = -1;
  // Three timers due at 10 ms on node 0: served one after the other, 5 ms each.
  for (int i = 0; i < 3; ++i)
    w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(10), w.sim.kind("test.timer"), [&] {
      ran.push_back(w.now_ms());
      if (ran.size() == 3) w.net.send_unreliable(0, 1, t, 8, [&] { recv = w.now_ms(); });
    });
  w.sim.run();
  EXPECT_EQ(ran, (std::vector<double>{15, 20, 25}));
  EXPECT_DOUBLE_EQ(recv, 26);  // the send left with the third callback, 1 ms link
  EXPECT_EQ(w.hosts.service_stats(0)->served, 3u);
  // A host that is not starved runs its work at once.
  w.hosts.end_starve(0);
  double at = -1;
  w.hosts.schedule_after(0, Duration::ms(1), w.sim.kind("test.timer"), [&] { at = w.now_ms(); });
  w.sim.run();
  EXPECT_DOUBLE_EQ(at, 27);
}

// timers: on_time (a delay injected into message handling only): the messages queue and are
// served 5 ms each as before, the timers run when due, in the middle of the backlog, and what
// they send leaves at once.
TEST(Starved, TimersOnTimeRunWhenDueWhileMessagesWaitForTheServer) {
  NetWorld w(2, testing_support::constant_net(1));
  w.hosts.starve(0, constant_latency(5), std::make_shared<Rng>(1));
  w.hosts.set_timers_on_time(0, true);
  const MsgType t = w.net.type("m");
  std::vector<double> handled, ran;
  double recv = -1;
  for (int i = 0; i < 3; ++i)  // arrive at 1 ms: served at 6, 11, 16
    w.net.send_unreliable(1, 0, t, 8, [&] { handled.push_back(w.now_ms()); });
  w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(8), w.sim.kind("test.timer"), [&] {
    ran.push_back(w.now_ms());
    w.net.send_unreliable(0, 1, t, 8, [&] { recv = w.now_ms(); });
  });
  w.sim.run();
  EXPECT_EQ(handled, (std::vector<double>{6, 11, 16}));
  EXPECT_EQ(ran, (std::vector<double>{8}));
  EXPECT_DOUBLE_EQ(recv, 9);
  EXPECT_EQ(w.hosts.service_stats(0)->served, 3u);  // the timer was no work item

  // The default (timers wait): the same timer runs after the message in service (11 ms).
  NetWorld d(2, testing_support::constant_net(1));
  d.hosts.starve(0, constant_latency(5), std::make_shared<Rng>(1));
  std::vector<double> ran_d;
  for (int i = 0; i < 3; ++i) d.net.send_unreliable(1, 0, d.net.type("m"), 8, [] {});
  d.hosts.schedule_at(0, SimTime::zero() + Duration::ms(8), d.sim.kind("test.timer"),
                      [&] { ran_d.push_back(d.now_ms()); });
  d.sim.run();
  EXPECT_EQ(ran_d, (std::vector<double>{21}));  // behind the two queued messages: 11, 16, 21
}

TEST(Starved, CrashEmptiesTheQueueAndPauseHoldsTheServer) {
  NetWorld w(2, testing_support::constant_net(1));
  w.hosts.starve(0, constant_latency(5), std::make_shared<Rng>(1));
  std::vector<double> ran;
  for (int i = 0; i < 3; ++i)
    w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(10), w.sim.kind("test.timer"), [&] { ran.push_back(w.now_ms()); });
  w.at_ms(17, [&] { w.hosts.crash(0); });  // second item in service, third waiting
  w.sim.run();
  EXPECT_EQ(ran, (std::vector<double>{15}));
  EXPECT_EQ(w.hosts.service_backlog(0), 0u);

  NetWorld p(2, testing_support::constant_net(1));
  p.hosts.starve(0, constant_latency(5), std::make_shared<Rng>(1));
  ran.clear();
  for (int i = 0; i < 2; ++i)
    p.hosts.schedule_at(0, SimTime::zero() + Duration::ms(10), w.sim.kind("test.timer"), [&] { ran.push_back(p.now_ms()); });
  p.at_ms(12, [&] { p.hosts.pause(0); });   // the first service would end at 15
  p.at_ms(30, [&] { p.hosts.resume(0); });  // it ends at the resume; the second 5 ms later
  p.sim.run();
  EXPECT_EQ(ran, (std::vector<double>{30, 35}));
}

TEST(Starved, LifoAndDropOldestQueues) {
  auto order = [](bool lifo, bool drop_oldest, size_t limit) {
    NetWorld w(2, testing_support::constant_net(1));
    w.hosts.set_service_queue(0, bounded_queue(limit, drop_oldest, lifo));
    w.hosts.starve(0, constant_latency(1), std::make_shared<Rng>(1));
    std::vector<int> ran;
    for (int i = 0; i < 5; ++i)
      w.hosts.schedule_at(0, SimTime::zero() + Duration::ms(10), w.sim.kind("test.timer"), [&ran, i] { ran.push_back(i); });
    w.sim.run();
    return ran;
  };
  EXPECT_EQ(order(false, false, 0), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(order(true, false, 0), (std::vector<int>{0, 4, 3, 2, 1}));
  EXPECT_EQ(order(false, false, 2), (std::vector<int>{0, 1, 2}));  // 3 and 4 dropped
  EXPECT_EQ(order(false, true, 2), (std::vector<int>{0, 3, 4}));   // 1 and 2 dropped
}

TEST(Starved, ScheduledWindowAndProcessSwitchTheCondition) {
  NetworkConfig cfg = testing_support::constant_net(1);
  StarvedEntry e;
  e.nodes = {1};
  e.service = constant_latency(3);
  e.at = SimTime::zero() + Duration::ms(100);
  e.end = SimTime::zero() + Duration::ms(200);
  cfg.starved.push_back(e);
  NetWorld w(2, cfg);
  const MsgType t = w.net.type("m");
  std::vector<double> got;
  for (double at : {50.0, 150.0, 250.0})
    w.at_ms(at, [&] { w.net.send_unreliable(0, 1, t, 8, [&] { got.push_back(w.now_ms()); }); });
  w.sim.run();
  EXPECT_EQ(got, (std::vector<double>{51, 154, 251}));

  // A process: the fraction of time starved is mean_starved / (mean_normal + mean_starved).
  NetworkConfig pc = testing_support::constant_net(1);
  StarvedEntry p;
  p.nodes = {0};
  p.service = constant_latency(0);
  p.mean_normal_s = 3;
  p.mean_starved_s = 1;
  p.stream = "net.starved";
  p.stop = SimTime::zero() + Duration::s(20000);  // else the process (and sim.run()) never ends
  pc.starved.push_back(p);
  NetWorld pw(1, pc, 9);
  size_t starved = 0, samples = 0;
  for (double s = 0.5; s < 20000; s += 1.0)
    pw.at_ms(s * 1000, [&] {
      ++samples;
      starved += pw.hosts.is_starved(0);
    });
  pw.sim.run();
  // About 5000 cycles of 4 s: the fraction's standard error is about 0.005.
  EXPECT_NEAR(double(starved) / double(samples), 0.25, 0.025);
}

}  // namespace
}  // namespace fdsim::net
