// Geode start-up benchmark (issue 26 item 7): wall time and peak memory of building an
// N-member Geode ring and running it for a short simulated time, to show that the per-member
// start-up cost (ring position, heartbeat targets) does not grow with the view size.
//
// Usage: geode_startup N [SIMULATED_SECONDS (default 1)]
// One process per size (peak RSS is per process); bench/geode_startup.sh runs the sizes.
// The ring: the `current` profile, member timeout 5 s, one locator (member 0), constant 1 ms
// latency, no faults, no trace. Prints one JSON line:
//   members, simulated_s, build_wall_s (constructing the model), start_wall_s (start():
//   initial view, every member's neighbour and loops), run_wall_s (the simulated seconds),
//   events, peak_rss_bytes, rss_bytes_per_member.
// Wall times come from std::chrono::steady_clock around the phases (outside the simulation,
// so determinism is unaffected); a figure, machine-dependent: never a test.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "models/geode/geode_model.h"
#include "sim/engine/simulator.h"
#include "sim/net/hosts.h"
#include "sim/net/latency.h"
#include "sim/net/network.h"

namespace {

using namespace fdsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return int64_t(u.ru_maxrss) * 1024;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: geode_startup N [SIMULATED_SECONDS]\n");
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  const double sim_s = argc == 3 ? std::strtod(argv[2], nullptr) : 1.0;
  if (n < 2 || n > 10'000'000 || !(sim_s > 0 && sim_s <= 3600)) {
    std::fprintf(stderr, "geode_startup: N must be in [2, 1e7], seconds in (0, 3600]\n");
    return 2;
  }
  const auto t_build = Clock::now();
  Simulator sim;
  net::Hosts hosts(sim, size_t(n));
  net::NetworkConfig nc;
  nc.latency = net::constant_latency(1.0);
  net::Network network(sim, hosts, RngFactory(1, 0), nc);
  World world{sim, hosts, network, RngFactory(1, 0), SimTime::zero(),
              SimTime::from_seconds(sim_s)};
  geode::GeodeConfig cfg =
      geode::GeodeConfig::defaults(geode::Profile::current, Duration::ms(5000), size_t(n));
  cfg.locators = {0};
  auto model = std::make_unique<geode::GeodeModel>(world, cfg, 0);
  const double build_s = seconds_since(t_build);

  const auto t_start = Clock::now();
  model->start();
  const double start_s = seconds_since(t_start);

  const auto t_run = Clock::now();
  sim.run_until(SimTime::from_seconds(sim_s));
  const double run_s = seconds_since(t_run);

  const int64_t rss = peak_rss_bytes();
  std::printf(
      "{\"members\": %ld, \"simulated_s\": %g, \"build_wall_s\": %.3f, \"start_wall_s\": %.3f, "
      "\"run_wall_s\": %.3f, \"events\": %llu, \"peak_rss_bytes\": %lld, "
      "\"rss_bytes_per_member\": %lld}\n",
      n, sim_s, build_s, start_s, run_s, (unsigned long long)sim.events_dispatched(),
      (long long)rss, (long long)(rss / n));
  return 0;
}
