// The floor of the heartbeat-ring benchmark (bench/README.md): the same event pattern as
// ring_bench, run by the least an event loop can be: a std::priority_queue (binary heap) of
// plain structs ordered by (time, seq), a switch on the event kind, no engine, no network layer,
// no callbacks, no model. An engine that keeps up with this loop costs nothing for what it adds.
//
// Build (as bench/compare.sh does): g++ -O2 -std=c++17 floor_ring.cpp -o floor_ring
// Run:   floor_ring N HORIZON_S
// Prints {"nodes":N,"events":E,"suspicions":S,"wall_s":W,"events_per_wall_s":R,"cpu_s":C,
// "events_per_cpu_s":Q}: wall and CPU time measured in the process from the first push to the
// end of the loop, as ring_bench measures its own (so process start-up counts for neither).
//
// Per node i and simulated second: a send to (i - 1) mod N (first at (i mod 1000)/1000 s), its
// delivery 0.5 ms later (stamps the receiver's last-heard time), and a check of (i + 1) mod N
// from t = 1 s (a suspicion if nothing arrived for more than 5 s). Events at or after the
// horizon are not dispatched.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <queue>
#include <string>
#include <vector>

namespace {

double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

enum Kind : int32_t { kSend = 0, kDeliver = 1, kCheck = 2 };

struct Event {
  int64_t time_ns;
  uint64_t seq;
  int32_t node;
  int32_t kind;
};

// std::priority_queue keeps the largest element on top: "later" puts the earliest there.
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.seq > b.seq;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: floor_ring N HORIZON_S\n");
    return 2;
  }
  const int n = std::stoi(argv[1]);
  const int64_t horizon_ns = int64_t(std::stod(argv[2]) * 1e9);
  const int64_t period_ns = 1000000000, latency_ns = 500000, timeout_ns = 5000000000;

  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_s();
  std::priority_queue<Event, std::vector<Event>, Later> queue;
  std::vector<int64_t> last_heard_ns(size_t(n), 0);
  uint64_t seq = 0, events = 0, suspicions = 0;
  for (int i = 0; i < n; ++i) {
    queue.push({period_ns * (i % 1000) / 1000, seq++, i, kSend});
    queue.push({period_ns, seq++, i, kCheck});
  }
  while (!queue.empty()) {
    const Event e = queue.top();
    queue.pop();
    if (e.time_ns >= horizon_ns) break;
    ++events;
    switch (e.kind) {
      case kSend:
        queue.push({e.time_ns + latency_ns, seq++, (e.node + n - 1) % n, kDeliver});
        queue.push({e.time_ns + period_ns, seq++, e.node, kSend});
        break;
      case kDeliver:
        last_heard_ns[size_t(e.node)] = e.time_ns;
        break;
      case kCheck:
        if (e.time_ns - last_heard_ns[size_t((e.node + 1) % n)] > timeout_ns) ++suspicions;
        queue.push({e.time_ns + period_ns, seq++, e.node, kCheck});
        break;
    }
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double run_cpu_s = cpu_s() - cpu0;
  std::printf("{\"nodes\":%d,\"events\":%llu,\"suspicions\":%llu,\"wall_s\":%.6f,"
              "\"events_per_wall_s\":%.6g,\"cpu_s\":%.6f,\"events_per_cpu_s\":%.6g}\n",
              n, (unsigned long long)events, (unsigned long long)suspicions, wall_s,
              double(events) / wall_s, run_cpu_s, double(events) / run_cpu_s);
  return 0;
}
