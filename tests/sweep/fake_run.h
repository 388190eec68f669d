#pragma once
// A fake, deterministic run layer for sweep tests.
//
// Scenario: {"name": s, "seed": n, "replications": n, "model": {"x": number >= 0, "y": number,
// "fail_x": number}} (every key optional; unknown keys are errors, like the real loader).
// resolve() fills the defaults (seed 1, replications 1, x 1, y 0). execute() gives two arms in
// the non-alphabetical order "fixed", "adaptive" (manifest arm_order) with
//   fixed.delay_s.mean    = x + u(seed, replication)           u in [0, 1)
//   adaptive.delay_s.mean = x + y + u(seed, replication) / 2
//   fixed.sometimes_null  = null on even replications, else replication
//   both.count            = integer 3
//   fixed.wave            = sin(model.wave), only when the scenario sets "wave" (a metric that
//                           is not monotone in its leaf; "wave" has no default)
// and fails (internal error) when x == fail_x. Executions are counted (thread-safe), and
// optionally appended as lines "<run id>" to a log file (O_APPEND, one write per line, so
// lines from concurrent threads and processes never interleave).

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION
#include "sim/engine/hash.h"
#include "sim/sweep/plan.h"
#include "sim/sweep/run_api.h"

namespace fdsim::sweep::testing {

using nlohmann::json;

class FakeRun {
 public:
  std::atomic<int> executions{0};
  std::string log_path;  // optional execution log

  RunApi api() {
    RunApi api;
    api.resolve = [](const json& s, const std::string& source) { return resolve(s, source); };
    api.execute = [this](const json& s, const std::string& source, uint64_t rep,
                         const run::RunOptions&) { return execute(s, source, rep); };
    return api;
  }

  static run::ResolveOutcome resolve(const json& s, const std::string& source) {
    run::ResolveOutcome out;
    auto bad = [&](const std::string& path, const std::string& msg) {
      out.problems.push_back(source + ": " + path + ": " + msg);
    };
    if (!s.is_object()) {
      bad("$", "expected an object");
      return out;
    }
    json r = {{"name", "fake"}, {"seed", 1}, {"replications", 1},
              {"model", {{"x", 1.0}, {"y", 0.0}, {"fail_x", -1.0}}}};
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (it.key() == "model") continue;
      if (!r.contains(it.key())) bad("$." + it.key(), "unknown key");
      else r[it.key()] = it.value();
    }
    if (s.contains("model")) {
      for (auto it = s["model"].begin(); it != s["model"].end(); ++it) {
        if (it.key() == "wave" && it.value().is_number()) {  // optional, no default
          r["model"]["wave"] = it.value();
          continue;
        }
        if (!r["model"].contains(it.key())) {
          bad("$.model." + it.key(), "unknown key");
          continue;
        }
        if (!it.value().is_number()) bad("$.model." + it.key(), "expected a number");
        else r["model"][it.key()] = it.value();
      }
    }
    if (r["model"]["x"].is_number() && r["model"]["x"].get<double>() < 0)
      bad("$.model.x", "expected a number >= 0, got " + r["model"]["x"].dump());
    out.ok = out.problems.empty();
    if (out.ok) out.resolved = r;
    return out;
  }

  static double u(uint64_t seed, uint64_t rep) {
    return double(mix64(hash_combine(seed, rep)) >> 11) * 0x1.0p-53;
  }

  run::RunOutcome execute(const json& s, const std::string& source, uint64_t rep) {
    run::RunOutcome out;
    const auto res = resolve(s, source);
    if (!res.ok) {
      out.problems = res.problems;
      return out;
    }
    const json& r = res.resolved;
    const double x = r["model"]["x"].get<double>(), y = r["model"]["y"].get<double>();
    ++executions;
    if (!log_path.empty()) {
      const std::string line = run_identity(r, rep) + "\n";
      const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        [[maybe_unused]] ssize_t n = ::write(fd, line.data(), line.size());
        ::close(fd);
      }
    }
    if (x == r["model"]["fail_x"].get<double>()) {
      out.internal_error = "fake failure at x = " + json(x).dump();
      return out;
    }
    const double noise = u(r["seed"].get<uint64_t>(), rep);
    json fixed = {{"delay_s", {{"mean", x + noise}}}, {"count", 3},
                  {"label", "not a number"}, {"flag", true},
                  {"sometimes_null", rep % 2 == 0 ? json(nullptr) : json(rep)}};
    if (r["model"].contains("wave")) fixed["wave"] = std::sin(r["model"]["wave"].get<double>());
    json adaptive = {{"delay_s", {{"mean", x + y + noise / 2}}}, {"count", 3}};
    out.ok = true;
    // The manifest names this build, as the real run layer's does (resume and merge check it).
    out.result = {{"manifest",
                   {{"arm_order", {"fixed", "adaptive"}},
                    {"replication", rep},
                    {"fdsim_version", FDSIM_VERSION},
                    {"git_revision", FDSIM_GIT_REVISION}}},
                  {"metrics", {{"fixed", fixed}, {"adaptive", adaptive}}}};
    out.run_stats = {{"wall_time_s", 0.0}};
    return out;
  }
};

}  // namespace fdsim::sweep::testing
