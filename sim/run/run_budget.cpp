#include "sim/run/run_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include "sim/scenario/cost_estimate.h"

namespace fdsim::run {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
std::atomic<unsigned> g_concurrent{1};

// Bytes of the process's address space now (/proc/self/statm, first field in pages).
double address_space_bytes() {
  std::ifstream f("/proc/self/statm");
  double pages = 0;
  if (!(f >> pages)) return 0;
  return pages * double(::sysconf(_SC_PAGESIZE));
}

// The cgroup (v2, or v1's memory controller) limit and usage of this process; +inf if none.
double cgroup_room_bytes() {
  std::ifstream cg("/proc/self/cgroup");
  std::string line, v2_path, v1_path;
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
    const auto p = line.find(":memory:");
    if (p != std::string::npos) v1_path = line.substr(p + 8);
  }
  auto read_number = [](const std::string& path) {
    std::ifstream f(path);
    std::string text;
    if (!(f >> text) || text == "max") return kInf;
    try {
      return std::stod(text);
    } catch (...) {
      return kInf;
    }
  };
  double limit = kInf, usage = 0;
  if (!v2_path.empty()) {
    const std::string dir = "/sys/fs/cgroup" + v2_path;
    limit = read_number(dir + "/memory.max");
    if (std::isfinite(limit)) usage = read_number(dir + "/memory.current");
  }
  if (!std::isfinite(limit) && !v1_path.empty()) {
    const std::string dir = "/sys/fs/cgroup/memory" + v1_path;
    limit = read_number(dir + "/memory.limit_in_bytes");
    if (limit > 1e18) limit = kInf;  // v1 writes "no limit" as 2^63 rounded to pages
    if (std::isfinite(limit)) usage = read_number(dir + "/memory.usage_in_bytes");
  }
  if (!std::isfinite(limit)) return kInf;
  return std::max(0.0, limit - (std::isfinite(usage) ? usage : 0.0));
}

double compute_environment_bytes() {
  double room = kInf;
  rlimit rl{};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    room = std::max(0.0, double(rl.rlim_cur) - address_space_bytes());
  return std::min(room, cgroup_room_bytes());
}

}  // namespace

double environment_memory_bytes() {
  static const double bytes = compute_environment_bytes();
  return bytes;
}

double environment_share_bytes() {
  return environment_memory_bytes() * 0.75 / double(std::max(1u, g_concurrent.load()));
}

void set_concurrent_simulations(unsigned n) { g_concurrent.store(std::max(1u, n)); }

BudgetEstimate simulation_estimate(const Scenario& s) {
  return {s.cost.memory_bytes, (s.cost.events_per_s + s.cost.work_per_s) * s.cost.horizon_s};
}

BudgetLimits simulation_budget(const Scenario& s) {
  const scenario::CostLimits& lim = scenario::cost_limits();
  const BudgetEstimate est = simulation_estimate(s);
  BudgetLimits b;
  // Memory: the estimate's bound, or the limit given on the command line; never above the
  // validation limit or the environment's share.
  b.memory_bytes = kMemorySlack * est.memory_bytes + kMemoryFloorBytes;
  b.memory_origin = "2 x the estimate + 64 MB";
  if (lim.memory_explicit || !(b.memory_bytes <= lim.memory_bytes)) {
    b.memory_bytes = lim.memory_bytes;
    b.memory_origin = lim.memory_explicit ? "--max-memory-gb" : "the validation limit";
  }
  const double env = environment_share_bytes();
  if (env < b.memory_bytes) {
    b.memory_bytes = env;
    b.memory_origin = "the environment's share: 3/4 of the address-space or cgroup room";
  }
  b.work_units = kWorkSlack * est.work_units + kWorkFloorUnits;
  b.work_origin = "2 x the estimate + 1e6";
  if (lim.events_explicit || !(b.work_units <= lim.events)) {
    b.work_units = lim.events;
    b.work_origin = lim.events_explicit ? "--max-events" : "the validation limit";
  }
  if (!(b.memory_bytes >= 0)) b.memory_bytes = 0;
  if (!(b.work_units >= 0)) b.work_units = 0;
  return b;
}

}  // namespace fdsim::run
