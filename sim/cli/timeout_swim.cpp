#include "sim/cli/timeout_swim.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/swim/timeouts.h"
#include "sim/cli/commands.h"

namespace fdsim::cli {

namespace {

// The ranges of the scenario's swim section (models/swim/config.cpp), so the command accepts
// what a scenario accepts.
std::vector<std::string> check(const SwimTimeoutArgs& a) {
  std::vector<std::string> p;
  auto bad = [&](const std::string& what) { p.push_back("fdsim timeout --model swim: " + what); };
  if (a.members < 1 || a.members > 100000000)
    bad("--members: expected an integer from 1 to 100000000 (give the cluster size)");
  auto ms = [&](const char* name, double v) {
    if (!(v > 0 && v <= 1e9)) bad(std::string(name) + ": expected a number in (0, 1e9] ms");
  };
  ms("--probe-interval-ms", a.probe_interval_ms);
  ms("--probe-timeout-ms", a.probe_timeout_ms);
  auto int_range = [&](const char* name, int64_t v, int64_t lo) {
    if (v < lo || v > 1000)
      bad(std::string(name) + ": expected an integer from " + std::to_string(lo) + " to 1000");
  };
  int_range("--suspicion-mult", a.suspicion_mult, 1);
  int_range("--suspicion-max-timeout-mult", a.suspicion_max_timeout_mult, 1);
  int_range("--awareness-max-multiplier", a.awareness_max_multiplier, 1);
  if (a.confirmations != -1) int_range("--confirmations", a.confirmations, 0);
  return p;
}

std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9f", s);
  return buf;
}

}  // namespace

int run_swim_timeout(const SwimTimeoutArgs& a) {
  const std::vector<std::string> problems = check(a);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  swim::SwimConfig c = swim::SwimConfig::lan_defaults(size_t(a.members));
  c.probe_interval = Duration::from_ms(a.probe_interval_ms);
  c.probe_timeout = Duration::from_ms(a.probe_timeout_ms);
  c.suspicion_mult = a.suspicion_mult;
  c.suspicion_max_timeout_mult = a.suspicion_max_timeout_mult;
  c.awareness_max_multiplier = a.awareness_max_multiplier;
  c.suspicion_confirmations =
      a.confirmations >= 0 ? a.confirmations : std::max<int64_t>(0, a.suspicion_mult - 2);
  swim::SwimArm arm;
  if (a.no_lifeguard) arm = swim::SwimArm{"swim", false, false, false, false};
  const swim::SwimTimeouts t = swim::swim_timeouts(c, arm, a.members);

  nlohmann::json out = {{"model", "swim"},
                        {"members", t.members},
                        {"arm", arm.name},
                        {"probe_interval_ms", c.probe_interval.millis()},
                        {"probe_timeout_ms", c.probe_timeout.millis()},
                        {"suspicion_mult", c.suspicion_mult},
                        {"suspicion_max_timeout_mult", c.suspicion_max_timeout_mult},
                        {"suspicion_confirmations", c.suspicion_confirmations},
                        {"awareness_max_multiplier", c.awareness_max_multiplier},
                        {"k", t.k},
                        {"suspicion_min_ns", t.min.count_ns()},
                        {"suspicion_max_ns", t.max.count_ns()}};
  nlohmann::json sus = nlohmann::json::array();
  for (size_t n = 0; n < t.suspicion.size(); ++n)
    sus.push_back({{"confirmations", n}, {"timeout_ns", t.suspicion[n].count_ns()},
                   {"timeout_s", t.suspicion[n].seconds()}});
  out["suspicion"] = sus;
  nlohmann::json probe = nlohmann::json::array();
  for (const swim::ProbeTimeouts& p : t.probe)
    probe.push_back({{"health_score", p.health_score}, {"deadline_ns", p.deadline.count_ns()},
                     {"deadline_s", p.deadline.seconds()},
                     {"direct_wait_ns", p.direct_wait.count_ns()},
                     {"direct_wait_s", p.direct_wait.seconds()}});
  out["probe"] = probe;
  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("swim (%s), %lld members: k = %lld confirmations expected, min = %.9f s, "
              "max = %.9f s\n",
              arm.name.c_str(), (long long)t.members, (long long)t.k, t.min.seconds(),
              t.max.seconds());
  std::printf("%-14s %s\n", "confirmations", "suspicion timeout (from the suspicion's start)");
  for (size_t n = 0; n < t.suspicion.size(); ++n)
    std::printf("%-14zu %.9f s\n", n, t.suspicion[n].seconds());
  std::printf("%-14s %-16s %s\n", "health score", "probe deadline", "direct-ack wait");
  for (const swim::ProbeTimeouts& p : t.probe)
    std::printf("%-14lld %-16s %.9f s\n", (long long)p.health_score,
                (seconds_text(p.deadline.seconds()) + " s").c_str(), p.direct_wait.seconds());
  return kExitOk;
}

}  // namespace fdsim::cli
