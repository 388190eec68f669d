// The heartbeat-ring benchmark workload (bench/README.md) written for SimGrid's s4u API, as the
// peer simulator to compare fdsim's engine against. Node i sends a 64-byte heartbeat to node
// i-1 (mod N) every second; a receiver actor on each node records arrival times; a checker
// actor on each node looks at its other neighbour every second and counts a suspicion after
// 5 s without a heartbeat. Network: a SimGrid cluster with 500 us links (bench/simgrid/platform.sh).
//
// Workload events = heartbeats sent + received + checks: the same count as fdsim's ring_bench
// (one send, one delivery, one check per node and period). The program times its own event
// loop (wall and CPU clock around Engine::run_until, start-up excluded) and prints one JSON line.
// Usage: simgrid_ring PLATFORM.xml N HORIZON_S [SimGrid --cfg/--log options]
// Build: g++ -O2 -std=c++17 bench/simgrid/simgrid_ring.cpp -o simgrid_ring -lsimgrid
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

int n_nodes = 0;
const double period_s = 1.0, timeout_s = 5.0;
double horizon_s = 0.0;
std::vector<double> last_heard_s;
long long sent = 0, received = 0, checks = 0, suspicions = 0;

sg4::Mailbox* box(int i) { return sg4::Mailbox::by_name("n" + std::to_string(i)); }

void sender(int id) {
  sg4::Mailbox* monitor = box((id + n_nodes - 1) % n_nodes);
  sg4::this_actor::sleep_for(period_s * (id % 1000) / 1000.0);  // spread the phases
  while (sg4::Engine::get_clock() + period_s < horizon_s) {
    static int token;
    monitor->put_init(&token, 64)->detach();
    ++sent;
    sg4::this_actor::sleep_for(period_s);
  }
}

void receiver(int id) {
  sg4::Mailbox* mine = box(id);
  mine->set_receiver(sg4::Actor::self());
  for (;;) {
    mine->get<int>();
    last_heard_s[id] = sg4::Engine::get_clock();
    ++received;
  }
}

void checker(int id) {
  const int neighbour = (id + 1) % n_nodes;
  while (sg4::Engine::get_clock() + period_s < horizon_s) {
    sg4::this_actor::sleep_for(period_s);
    ++checks;
    if (sg4::Engine::get_clock() - last_heard_s[neighbour] > timeout_s) ++suspicions;
  }
}

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: simgrid_ring PLATFORM.xml N HORIZON_S\n");
    return 2;
  }
  e.load_platform(argv[1]);
  n_nodes = std::stoi(argv[2]);
  horizon_s = std::stod(argv[3]);
  last_heard_s.assign(n_nodes, 0.0);
  for (int i = 0; i < n_nodes; ++i) {
    sg4::Host* h = e.host_by_name("n" + std::to_string(i));
    sg4::Actor::create("send", h, sender, i);
    sg4::Actor::create("recv", h, receiver, i)->daemonize();
    sg4::Actor::create("check", h, checker, i);
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  e.run_until(horizon_s);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu_s = cpu_seconds() - cpu0;
  const long long events = sent + received + checks;
  std::printf("{\"nodes\":%d,\"horizon_s\":%g,\"events\":%lld,\"sent\":%lld,\"received\":%lld,"
              "\"checks\":%lld,\"suspicions\":%lld,\"wall_s\":%.3f,\"events_per_wall_s\":%.6g,"
              "\"events_per_cpu_s\":%.6g}\n",
              n_nodes, horizon_s, events, sent, received, checks, suspicions, wall_s,
              wall_s > 0 ? double(events) / wall_s : 0.0, cpu_s > 0 ? double(events) / cpu_s : 0.0);
}
