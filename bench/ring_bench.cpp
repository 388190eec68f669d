// The heartbeat-ring benchmark (bench/README.md) through fdsim's real engine, hosts and
// network layer, with a fixed-timeout heartbeat model.
//
// Usage: ring_bench INPUT.json [--nodes N] [--horizon-s H]
// INPUT is one of bench/inputs/*.json, this program's private format (not an fdsim scenario):
//   {"name", "description", "nodes", "horizon_s", "heartbeat_period_ms" (1000),
//    "check_period_ms" (1000), "timeout_ms" (5000),
//    "latency": <latency object of docs/scenario-format.md> (constant 0.5 ms),
//    "loss": probability (0), "loss_model": <Gilbert–Elliott object of docs/scenario-format.md>
//    (absent = Bernoulli "loss"), "compact_streams": per-node streams on CompactRng (false)}
// Prints one JSON line: events dispatched, wall seconds, events per wall second (and per CPU
// second of the run, less sensitive to other load on the machine), peak RSS,
// bytes per node (growth of the peak RSS over the run, divided by N), the peak number of
// pending events and the bytes the event queue holds at the end; plus the run fingerprint and
// suspicion count (0 in these workloads) so that two builds can be checked to run the same
// events.
//
// Event pattern per node and simulated second, as in floor/floor_ring.cpp: one send (a node-bound
// timer that calls Network::send_unreliable), one delivery (the network's event, which stamps
// the receiver's last-heard time), one check (a node-bound timer comparing the neighbour's
// last-heard time with the timeout).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/rng.h"
#include "sim/engine/simulator.h"
#include "sim/net/hosts.h"
#include "sim/net/latency.h"
#include "sim/net/network.h"
#include "sim/net/config.h"
#include "sim/scenario/reader.h"

namespace {

using namespace fdsim;

struct Params {
  int64_t nodes = 1000;
  double horizon_s = 600;
  Duration heartbeat_period = Duration::ms(1000);
  Duration check_period = Duration::ms(1000);
  Duration timeout = Duration::ms(5000);
  std::shared_ptr<const net::LatencyModel> latency;
  double loss = 0;
  std::optional<net::GilbertElliott> loss_model;
  bool compact_streams = false;
  std::string name;
};

// The fixed-timeout ring: node i heartbeats to i-1, watches i+1.
class Ring {
 public:
  Ring(Simulator& sim, net::Hosts& hosts, net::Network& network, const Params& p)
      : sim_(sim), hosts_(hosts), net_(network), p_(p), last_heard_(size_t(p.nodes), SimTime::zero()) {
    k_send_ = sim.kind("ring.send");
    k_check_ = sim.kind("ring.check");
    t_hb_ = network.type("ring.heartbeat");
  }

  void start() {
    const NodeId n = NodeId(p_.nodes);
    for (NodeId i = 0; i < n; ++i) {
      const Duration first = p_.heartbeat_period * int64_t(i % 1000) / 1000;
      hosts_.schedule_after(i, first, k_send_, [this, i] { send(i); });
      hosts_.schedule_after(i, p_.check_period, k_check_, [this, i] { check(i); });
    }
  }
  uint64_t suspicions() const { return suspicions_; }

 private:
  void send(NodeId i) {
    const NodeId n = NodeId(p_.nodes);
    const NodeId to = (i + n - 1) % n;
    net_.send_unreliable(i, to, t_hb_, 64, [this, to] { last_heard_[to] = sim_.now(); });
    hosts_.schedule_after(i, p_.heartbeat_period, k_send_, [this, i] { send(i); });
  }
  void check(NodeId i) {
    const NodeId n = NodeId(p_.nodes);
    if (sim_.now() - last_heard_[(i + 1) % n] > p_.timeout) ++suspicions_;
    hosts_.schedule_after(i, p_.check_period, k_check_, [this, i] { check(i); });
  }

  Simulator& sim_;
  net::Hosts& hosts_;
  net::Network& net_;
  const Params& p_;
  std::vector<SimTime> last_heard_;
  EventKind k_send_, k_check_;
  net::MsgType t_hb_;
  uint64_t suspicions_ = 0;
};

// User plus system CPU seconds of this process so far.
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int fail(const std::string& msg) {
  std::fprintf(stderr, "ring_bench: %s\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return fail("usage: ring_bench SCENARIO.json [--nodes N] [--horizon-s H]");
  const std::string path = argv[1];
  std::ifstream in(path);
  if (!in) return fail(path + ": cannot open");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) return fail(path + ": not valid JSON");

  Params p;
  scenario::Diagnostics diag;
  nlohmann::json resolved;
  scenario::ObjectReader r(&doc, "$", diag, resolved);
  p.name = r.required_string("name");
  r.string("description", "");
  p.nodes = r.required_integer("nodes", 2, 10'000'000);
  p.horizon_s = r.required_number("horizon_s", 0.001, 1e7);
  p.heartbeat_period = r.duration_ms("heartbeat_period_ms", 1000, 0.001);
  p.check_period = r.duration_ms("check_period_ms", 1000, 0.001);
  p.timeout = r.duration_ms("timeout_ms", 5000, 0);
  r.object("latency", [&](scenario::ObjectReader& lr) {
    p.latency = net::parse_latency_model(lr, "", 0.5);
  });
  p.loss = r.probability("loss", 0.0);
  r.at_most_one_of({"loss", "loss_model"});
  r.object("loss_model", [&](scenario::ObjectReader& gr) {
    if (gr.present()) p.loss_model = net::parse_gilbert_elliott(gr);
  });
  p.compact_streams = r.boolean("compact_streams", false);
  r.finish();
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--nodes") p.nodes = std::stoll(argv[i + 1]);
    else if (a == "--horizon-s") p.horizon_s = std::stod(argv[i + 1]);
    else return fail("unknown option " + a);
  }
  if (!diag.ok()) return fail(path + ": " + diag.problems.front().str());

  const long rss_before_kib = peak_rss_kib();
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_s();
  Simulator sim;
  net::Hosts hosts(sim, size_t(p.nodes));
  net::NetworkConfig nc;
  nc.latency = p.latency;
  nc.loss = p.loss;
  nc.loss_model = p.loss_model;
  nc.compact_streams = p.compact_streams;
  RngFactory rng(1, 0);
  net::Network network(sim, hosts, rng, nc);
  Ring ring(sim, hosts, network, p);
  ring.start();
  sim.run_until(SimTime::zero() + Duration::from_seconds(p.horizon_s) - Duration::ns(1));
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double run_cpu_s = cpu_s() - cpu0;
  const long rss_kib = peak_rss_kib();

  nlohmann::json out = {
      {"scenario", p.name},
      {"nodes", p.nodes},
      {"horizon_s", p.horizon_s},
      {"events", sim.events_dispatched()},
      {"suspicions", ring.suspicions()},
      {"fingerprint", sim.fingerprint()},
      {"peak_queue", sim.peak_queue_size()},
      {"queue_bytes_per_node", double(sim.queue_bytes()) / double(p.nodes)},
      {"rng_streams", network.streams_created()},
      {"wall_s", wall_s},
      {"events_per_wall_s", double(sim.events_dispatched()) / wall_s},
      {"cpu_s", run_cpu_s},
      {"events_per_cpu_s", double(sim.events_dispatched()) / run_cpu_s},
      {"peak_rss_kib", rss_kib},
      {"bytes_per_node", double(rss_kib - rss_before_kib) * 1024.0 / double(p.nodes)},
  };
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
