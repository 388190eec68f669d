#include "sim/net/network.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "sim/engine/trace.h"
#include "sim/net/delay_trace.h"
#include "sim/net/traffic.h"

namespace fdsim::net {

namespace {

bool contains(const NodeSet& set, NodeId n) {
  return set.empty() || std::binary_search(set.begin(), set.end(), n);
}

NodeSet normalized(NodeSet s) {
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace

struct Network::Impl {
  bool crashed_hosts_refuse = true;  // set_crashed_hosts_refuse
  // Latency and loss of one link class (the default, or one override), with the constant
  // latency pre-computed so that the hot path draws nothing for deterministic models.
  struct LinkParams {
    const LatencyModel* model = nullptr;
    const TraceLatency* trace = nullptr;  // the model, when it replays a trace
    const GilbertElliott* ge = nullptr;   // bursty loss instead of `loss`
    Duration fixed_latency;
    double loss = 0;  // Bernoulli loss; with `ge`, its stationary rate (reported only)
    uint32_t ge_group = 0;  // with a shared chain: its index in ge_group_state
    bool fixed = false;
  };
  struct Cut {
    uint32_t handle;
    NodeSet a, b;  // b empty = complement of a
    bool one_way;
  };
  struct Burst {
    uint32_t handle;
    NodeSet from, to;
    double loss;
  };
  struct Spike {
    uint32_t handle;
    NodeSet from, to;
    Duration extra;
  };
  // A message in flight (unreliable: until arrival; reliable: until delivered or given up).
  struct Msg {
    std::function<void()> fn;
    uint64_t id = 0;       // message id of the trace records (every attempt shares it)
    SimTime t0;            // reliable: first attempt
    SimTime last_attempt;  // reliable
    NodeId src = 0, dst = 0;
    uint32_t src_inc = 0, dst_inc = 0;
    uint32_t bytes = 0;
    uint32_t attempts = 0;
    MsgType type = 0;
    bool reliable = false;
  };
  struct Probe {
    std::function<int64_t()> serve;
    std::function<void(ProbeResult)> done;
    uint64_t id = 0;  // message id of the trace records
    SimTime deadline;
    EventId timeout_event;
    int64_t answer = 0;
    NodeId src = 0, dst = 0;
    uint32_t src_inc = 0;
    uint32_t gen = 0;
    MsgType type = 0;
    uint32_t answer_bytes = 0;
    bool active = false;
  };

  Impl(Network& n, const RngFactory& r, NetworkConfig c)
      : net(n), sim(n.sim_), hosts(n.hosts_), rng(r), cfg(std::move(c)),
        traffic(n.hosts_.size()) {
    if (!cfg.latency) cfg.latency = constant_latency(1.0);
    if (!(cfg.loss >= 0 && cfg.loss <= 1)) fail(kNoNode, "network loss probability outside [0, 1]");
    if (cfg.retransmit_interval <= Duration::zero())
      fail(kNoNode, "retransmit interval must be > 0");
    default_link = params(*cfg.latency, cfg.loss, cfg.loss_model ? &*cfg.loss_model : nullptr);
    for (LinkOverride& o : cfg.overrides) {
      o.from = normalized(std::move(o.from));
      o.to = normalized(std::move(o.to));
      if (o.loss && o.loss_model) fail(kNoNode, "link override with both loss and loss_model");
      const double loss = o.loss_model ? 0 : o.loss.value_or(cfg.loss);
      if (!(loss >= 0 && loss <= 1)) fail(kNoNode, "link loss probability outside [0, 1]");
      const GilbertElliott* ge = o.loss_model ? &*o.loss_model
                                 : o.loss     ? nullptr
                                 : cfg.loss_model ? &*cfg.loss_model
                                                  : nullptr;
      override_links.push_back(params(o.latency ? *o.latency : *cfg.latency, loss, ge));
    }
    for (LinkParams* p : all_links())
      if (p->ge && p->ge->shared) {
        p->ge_group = uint32_t(ge_group_state.size());
        ge_group_state.push_back(0);
      }
    k_deliver = sim.kind("net.deliver");
    k_retransmit = sim.kind("net.retransmit");
    k_probe = sim.kind("net.probe");
    k_probe_timeout = sim.kind("net.probe_timeout");
    if (!cfg.starved.empty())
      starvation = std::make_unique<Starvation>(sim, hosts, rng, cfg.starved);
    // A delivery a starved host's bounded queue drops counts as dropped ("queue_full").
    hosts.set_service_drop_hook([this](NodeId at, const ServiceItem& it) {
      if (it.tag >= 0 && size_t(it.tag) < net.types_.size())
        dropped(MsgType(it.tag), it.from, at, it.msg_id, DropReason::queue_full);
    });
  }

  ~Impl() { hosts.set_service_drop_hook(nullptr); }  // the hook points into this object

  std::vector<LinkParams*> all_links() {
    std::vector<LinkParams*> v{&default_link};
    for (LinkParams& p : override_links) v.push_back(&p);
    return v;
  }

  LinkParams params(const LatencyModel& m, double loss, const GilbertElliott* ge) const {
    LinkParams p;
    p.model = &m;
    p.trace = dynamic_cast<const TraceLatency*>(&m);
    p.ge = ge;
    if (ge) {
      const bool ok = ge->p_good_to_bad > 0 && ge->p_good_to_bad <= 1 && ge->p_bad_to_good > 0 &&
                      ge->p_bad_to_good <= 1 && ge->loss_good >= 0 && ge->loss_good <= 1 &&
                      ge->loss_bad >= 0 && ge->loss_bad <= 1;
      if (!ok) fail(kNoNode, "Gilbert-Elliott parameters outside their domain");
    }
    p.loss = ge ? ge->stationary_loss() : loss;
    p.fixed = m.deterministic();
    if (p.fixed) p.fixed_latency = Duration::from_ms(m.quantile_ms(0.5));
    return p;
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail(NodeId node, const std::string& what) const {
    fdsim::internal_error("fdsim: internal error at t = %s, node %d: network: %s\n",
                 to_string(sim.now()).c_str(), node == kNoNode ? -1 : int(node), what.c_str());
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_link(NodeId src, NodeId dst) const {
    fail(src, "link from " + std::to_string(src) + " to " + std::to_string(dst) + " with " +
                  std::to_string(hosts.size()) + " nodes");
  }
  void check_nodes(NodeId src, NodeId dst) const {
    if (src >= hosts.size() || dst >= hosts.size()) [[unlikely]]
      fail_link(src, dst);
  }
  void check(NodeId src, NodeId dst, MsgType type) const {
    check_nodes(src, dst);
    if (type >= net.types_.size()) [[unlikely]]
      fail(src, "unregistered message type " + std::to_string(type));
  }

  const LinkParams& link(NodeId src, NodeId dst) const {
    for (size_t i = 0; i < cfg.overrides.size(); ++i) {
      const LinkOverride& o = cfg.overrides[i];
      if (contains(o.from, src) && contains(o.to, dst)) return override_links[i];
    }
    return default_link;
  }

  bool cut(NodeId src, NodeId dst) const {
    if (src == dst) return false;
    for (const Cut& c : cuts) {
      const bool src_a = contains(c.a, src), dst_a = contains(c.a, dst);
      const bool src_b = c.b.empty() ? !src_a : contains(c.b, src);
      const bool dst_b = c.b.empty() ? !dst_a : contains(c.b, dst);
      if (src_a && dst_b) return true;
      if (!c.one_way && src_b && dst_a) return true;
    }
    return false;
  }

  double loss(NodeId src, NodeId dst, const LinkParams& l) const {
    if (bursts.empty()) return l.loss;
    double keep = 1 - l.loss;
    for (const Burst& b : bursts)
      if (contains(b.from, src) && contains(b.to, dst)) keep *= 1 - b.loss;
    return 1 - keep;
  }

  Rng& stream(std::vector<std::unique_ptr<Rng>>& v, NodeId n, const char* purpose) {
    if (v.empty()) v.resize(hosts.size());
    std::unique_ptr<Rng>& p = v[n];
    if (!p) {
      p = std::make_unique<Rng>(rng.stream(n, purpose));
      ++streams;
    }
    return *p;
  }

  // The same keys with the 12-byte engine (NetworkConfig::compact_streams).
  CompactRng& compact(std::vector<std::optional<CompactRng>>& v, NodeId n, const char* purpose) {
    if (v.empty()) v.resize(hosts.size());
    std::optional<CompactRng>& p = v[n];
    if (!p) {
      p.emplace(rng.compact_stream(n, purpose));
      ++streams;
    }
    return *p;
  }

  template <class R>
  bool ge_step(const GilbertElliott& g, uint8_t& state, R& r) {
    // state: 0 = not started, 1 = good, 2 = bad. The first packet starts from a stationary
    // draw, then (like every later packet) the chain steps.
    if (state == 0) state = r.uniform01() < g.pi_bad() ? 2 : 1;
    if (state == 1) {
      if (r.uniform01() < g.p_good_to_bad) state = 2;
    } else if (r.uniform01() < g.p_bad_to_good) {
      state = 1;
    }
    return state == 2;
  }

  template <class R>
  bool ge_lost(NodeId src, NodeId dst, const LinkParams& l, R& r) {
    const GilbertElliott& g = *l.ge;
    uint8_t& state = g.shared ? ge_group_state[l.ge_group]
                              : ge_link_state[(uint64_t(src) << 32) | dst];
    const double h = ge_step(g, state, r) ? g.loss_bad : g.loss_good;
    double keep = 1 - h;
    for (const Burst& b : bursts)
      if (contains(b.from, src) && contains(b.to, dst)) keep *= 1 - b.loss;
    const double p = 1 - keep;
    if (!(p > 0)) return false;
    if (p >= 1) return true;
    return r.bernoulli(p);
  }

  bool lost(NodeId src, NodeId dst, const LinkParams& l) {
    if (l.trace) [[unlikely]] {
      if (l.trace->lost(l.trace->row_at(src, dst, hosts.size(), sim.now()))) return true;
    }
    if (l.ge) [[unlikely]]
      return cfg.compact_streams ? ge_lost(src, dst, l, compact(loss_compact, src, "net.loss"))
                                 : ge_lost(src, dst, l, stream(loss_rng, src, "net.loss"));
    const double p = loss(src, dst, l);
    if (!(p > 0)) return false;
    return cfg.compact_streams ? compact(loss_compact, src, "net.loss").bernoulli(p)
                               : stream(loss_rng, src, "net.loss").bernoulli(p);
  }

  Duration latency(NodeId src, NodeId dst, const LinkParams& l) {
    Duration d = l.trace ? l.trace->delay(l.trace->row_at(src, dst, hosts.size(), sim.now()))
                 : l.fixed              ? l.fixed_latency
                 : cfg.compact_streams ? l.model->draw(compact(latency_compact, src, "net.latency"))
                                        : l.model->draw(stream(latency_rng, src, "net.latency"));
    // Overlapping spikes add up, saturating at kMaxSpikedDelay (issue 24: ten spikes of the
    // largest extra_ms, 1e12 ms each, overflowed int64 nanoseconds and aborted the run). A
    // delay of 2e9 s lands past every horizon (at most 1e9 s), so the clamp changes no result.
    static constexpr Duration kMaxSpikedDelay = Duration::ns(2'000'000'000'000'000'000LL);
    for (const Spike& s : spikes)
      if (contains(s.from, src) && contains(s.to, dst))
        d = s.extra > kMaxSpikedDelay - d ? kMaxSpikedDelay : d + s.extra;
    return d;
  }

  // --- Traces (only when a sink is set). ---
  // Message ids: 1, 2, ... in the order messages (and probes) are handed to the network, so
  // they are deterministic and the same whether or not a trace is recorded.
  uint64_t new_msg_id() { return ++last_msg_id; }

  void trace(NodeId at, const char* kind, MsgType type, NodeId from, NodeId to, uint64_t id,
             const char* reason = nullptr) {
    if (TraceSink* t = sim.trace()) [[unlikely]]
      record(t, at, kind, type, from, to, id, reason);
  }
  [[gnu::noinline]] void record(TraceSink* t, NodeId at, const char* kind, MsgType type,
                                NodeId from, NodeId to, uint64_t id, const char* reason) {
    nlohmann::json f = {
        {"msg", net.types_[type].name}, {"from", from}, {"to", to}, {"msg_id", id}};
    if (reason) f["reason"] = reason;
    t->record(sim.now(), at, kind, f);
  }
  void dropped(MsgType type, NodeId src, NodeId dst, uint64_t id, DropReason reason) {
    ++net.types_[type].dropped;
    traffic.dropped(sim.now(), reason);
    trace(src, "drop", type, src, dst, id, drop_reason_name(reason));
  }
  // One attempt handed to the network (traffic.h: what counts as one message).
  void count_sent(MsgType type, NodeId src, uint32_t bytes) {
    TypeCount& tc = net.types_[type];
    ++tc.sent;
    tc.bytes += bytes;
    traffic.sent(sim.now(), type, src, bytes);
  }
  void delivered(MsgType type, NodeId src, NodeId dst, uint64_t id) {
    ++net.types_[type].delivered;
    trace(dst, "recv", type, src, dst, id);
  }

  // --- Messages. ---
  uint32_t alloc_msg() {
    if (!free_msgs.empty()) {
      const uint32_t s = free_msgs.back();
      free_msgs.pop_back();
      return s;
    }
    msgs.emplace_back();
    return uint32_t(msgs.size() - 1);
  }
  void free_msg(uint32_t slot) {
    msgs[slot].fn = nullptr;
    free_msgs.push_back(slot);
  }

  void schedule_arrival(uint32_t slot, Duration lat) {
    sim.schedule_after(lat, k_deliver, msgs[slot].dst, [this, slot] { arrive(slot); });
  }
  void schedule_retransmit(uint32_t slot, SimTime at) {
    sim.schedule_at(std::max(at, sim.now()), k_retransmit, msgs[slot].src,
                    [this, slot] { attempt(slot); });
  }

  void give_up(uint32_t slot) {
    ++net.types_[msgs[slot].type].gave_up;
    free_msg(slot);
  }

  // One attempt of a reliable message.
  void attempt(uint32_t slot) {
    Msg& m = msgs[slot];
    const HostState& s = hosts.state(m.src);
    if (s.mode == HostMode::crashed || s.incarnation != m.src_inc) return give_up(slot);
    if (m.attempts > 0 && sim.now() - m.t0 >= cfg.reliable_give_up) return give_up(slot);
    count_sent(m.type, m.src, m.bytes);
    ++m.attempts;
    m.last_attempt = sim.now();
    trace(m.src, "send", m.type, m.src, m.dst, m.id);
    const HostState& d = hosts.state(m.dst);
    if (d.mode == HostMode::crashed || d.incarnation != m.dst_inc) {
      dropped(m.type, m.src, m.dst, m.id, DropReason::down);
      return give_up(slot);
    }
    if (!cuts.empty() && cut(m.src, m.dst)) {
      dropped(m.type, m.src, m.dst, m.id, DropReason::cut);
      return give_up(slot);
    }
    const LinkParams& l = link(m.src, m.dst);
    if (s.play_dead || d.play_dead || lost(m.src, m.dst, l)) {
      dropped(m.type, m.src, m.dst, m.id, s.play_dead || d.play_dead ? DropReason::play_dead : DropReason::lost);
      return schedule_retransmit(slot, sim.now() + cfg.retransmit_interval);
    }
    schedule_arrival(slot, latency(m.src, m.dst, l));
  }

  void arrive(uint32_t slot) {
    Msg& m = msgs[slot];
    const HostState& d = hosts.state(m.dst);
    if (d.mode == HostMode::crashed || d.incarnation != m.dst_inc) {
      dropped(m.type, m.src, m.dst, m.id, DropReason::down);
      if (m.reliable) return give_up(slot);
      return free_msg(slot);
    }
    if (d.play_dead) {
      dropped(m.type, m.src, m.dst, m.id, DropReason::play_dead);
      if (m.reliable)
        return schedule_retransmit(slot, m.last_attempt + cfg.retransmit_interval);
      return free_msg(slot);
    }
    std::function<void()> fn = std::move(m.fn);
    const MsgType type = m.type;
    const NodeId src = m.src, dst = m.dst;
    const uint32_t inc = m.dst_inc;
    const uint64_t id = m.id;
    free_msg(slot);
    if (d.mode == HostMode::paused || d.queued) {  // runs at resume, or after its service
      hosts.run_on(
          dst, inc, k_deliver,
          [this, type, src, dst, id, f = std::move(fn)] {
            delivered(type, src, dst, id);
            f();
          },
          int32_t(type), src, id);
      return;
    }
    delivered(type, src, dst, id);
    fn();
  }

  // --- Probes. ---
  Probe* live_probe(uint32_t slot, uint32_t gen) {
    Probe& p = probes[slot];
    return p.active && p.gen == gen ? &p : nullptr;
  }

  void probe_arrive(uint32_t slot, uint32_t gen) {
    Probe* p = live_probe(slot, gen);
    if (!p) return;
    const HostState& d = hosts.state(p->dst);
    if (d.mode == HostMode::crashed) {
      if (!crashed_hosts_refuse) return;  // a machine that is down sends no reset: hangs
      const Duration back = latency(p->dst, p->src, link(p->dst, p->src));
      if (sim.now() + back < p->deadline)
        sim.schedule_after(back, k_probe, p->src,
                           [this, slot, gen] { probe_finish(slot, gen, ProbeOutcome::refused); });
      return;
    }
    if (d.play_dead || cut(p->src, p->dst) || cut(p->dst, p->src)) return;  // hangs
    hosts.run_on(p->dst, d.incarnation, k_probe, [this, slot, gen] { probe_serve(slot, gen); });
  }

  void probe_serve(uint32_t slot, uint32_t gen) {
    Probe* p = live_probe(slot, gen);
    if (!p) return;
    if (hosts.is_play_dead(p->dst)) return;  // started playing dead during a pause: hangs
    std::function<int64_t()> serve = std::move(p->serve);
    const MsgType type = p->type;
    const NodeId src = p->src, dst = p->dst;
    const uint64_t id = p->id;
    const int64_t answer = serve ? serve() : 0;  // may send, schedule, grow `probes`
    p = live_probe(slot, gen);
    if (!p) return;
    p->answer = answer;
    trace(dst, "recv", type, src, dst, id);
    traffic.sent(sim.now(), type, dst, p->answer_bytes);  // the answer leaves dst
    if (cut(dst, src)) return;  // the answer cannot get back: hangs
    const Duration back = latency(dst, src, link(dst, src));
    if (sim.now() + back < p->deadline)
      sim.schedule_after(back, k_probe, src,
                         [this, slot, gen] { probe_finish(slot, gen, ProbeOutcome::answered); });
  }

  void probe_finish(uint32_t slot, uint32_t gen, ProbeOutcome outcome) {
    Probe* p = live_probe(slot, gen);
    if (!p) return;
    if (outcome != ProbeOutcome::timed_out) sim.cancel(p->timeout_event);
    const ProbeResult result{outcome, outcome == ProbeOutcome::answered ? p->answer : 0};
    std::function<void(ProbeResult)> done = std::move(p->done);
    const NodeId src = p->src, dst = p->dst;
    const uint32_t src_inc = p->src_inc;
    const SimTime deadline = p->deadline;
    const MsgType type = p->type;
    const uint64_t id = p->id;
    p->active = false;
    p->serve = nullptr;
    p->done = nullptr;
    free_probes.push_back(slot);
    if (outcome == ProbeOutcome::answered)
      ++net.types_[type].delivered;
    else
      ++net.types_[type].dropped;
    if (TraceSink* t = sim.trace()) {
      static const char* names[] = {"answered", "refused", "timed_out"};
      t->record(sim.now(), src, "probe_result",
                {{"msg", net.types_[type].name},
                 {"from", src},
                 {"to", dst},
                 {"msg_id", id},
                 {"outcome", names[int(outcome)]}});
    }
    if (!done) return;
    if (outcome == ProbeOutcome::answered && hosts.delays_inbound(src)) {
      // The prober reads the answer late (inbound delay, sim/net/hosts.h): after the deadline
      // it has timed out instead.
      hosts.hand_probe_result(src, src_inc, k_probe, deadline,
                              [d = std::move(done), result](bool on_time) {
                                d(on_time ? result : ProbeResult{ProbeOutcome::timed_out, 0});
                              });
      return;
    }
    const HostState& s = hosts.state(src);
    if (s.mode == HostMode::up && s.incarnation == src_inc) {
      done(result);
    } else {
      hosts.run_on(src, src_inc, k_probe, [d = std::move(done), result] { d(result); });
    }
  }

  template <class V>
  void erase_handle(V& v, uint32_t h, const char* what) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->handle == h) {
        v.erase(it);
        return;
      }
    fail(kNoNode, std::string("no active ") + what + " with handle " + std::to_string(h));
  }

  Network& net;
  Simulator& sim;
  Hosts& hosts;
  RngFactory rng;
  NetworkConfig cfg;
  LinkParams default_link;
  std::vector<LinkParams> override_links;  // parallel to cfg.overrides
  // Gilbert–Elliott chains: per directed link (key src << 32 | dst; looked up, never iterated,
  // so the hash order cannot reach the results) and per shared group.
  std::unordered_map<uint64_t, uint8_t> ge_link_state;
  std::vector<uint8_t> ge_group_state;
  std::unique_ptr<Starvation> starvation;
  TrafficMeter traffic;
  std::vector<Cut> cuts;
  std::vector<Burst> bursts;
  std::vector<Spike> spikes;
  uint32_t next_handle = 1;
  std::vector<std::unique_ptr<Rng>> latency_rng, loss_rng;  // per sending node, lazily
  std::vector<std::optional<CompactRng>> latency_compact, loss_compact;  // the same, compact
  size_t streams = 0;
  uint64_t last_msg_id = 0;
  std::vector<Msg> msgs;
  std::vector<uint32_t> free_msgs;
  std::vector<Probe> probes;
  std::vector<uint32_t> free_probes;
  EventKind k_deliver = 0, k_retransmit = 0, k_probe = 0, k_probe_timeout = 0;
};

Network::Network(Simulator& sim, Hosts& hosts, const RngFactory& rng, NetworkConfig config)
    : sim_(sim), hosts_(hosts), impl_(std::make_unique<Impl>(*this, rng, std::move(config))) {}

Network::~Network() = default;

void Network::set_traffic_window(SimTime from) { impl_->traffic.set_window_start(from); }

nlohmann::json Network::traffic_metrics(SimTime window_end) const {
  std::vector<std::string> names;
  names.reserve(types_.size());
  for (const TypeCount& t : types_) names.push_back(t.name);
  return impl_->traffic.metrics(names, window_end);
}

MsgType Network::type(std::string_view name) {
  for (size_t i = 0; i < types_.size(); ++i)
    if (types_[i].name == name) return MsgType(i);
  if (types_.size() >= 65535) impl_->fail(kNoNode, "too many message types");
  types_.push_back(TypeCount{std::string(name)});
  return MsgType(types_.size() - 1);
}

void Network::send_unreliable(NodeId src, NodeId dst, MsgType type, uint32_t bytes,
                              std::function<void()> deliver) {
  Impl& I = *impl_;
  I.check(src, dst, type);
  I.count_sent(type, src, bytes);
  const uint64_t id = I.new_msg_id();
  I.trace(src, "send", type, src, dst, id);
  const HostState& s = hosts_.state(src);
  const HostState& d = hosts_.state(dst);
  if (s.mode == HostMode::crashed || d.mode == HostMode::crashed)
    return I.dropped(type, src, dst, id, DropReason::down);
  if (s.play_dead || d.play_dead) return I.dropped(type, src, dst, id, DropReason::play_dead);
  if (!I.cuts.empty() && I.cut(src, dst)) return I.dropped(type, src, dst, id, DropReason::cut);
  const Impl::LinkParams& l = I.link(src, dst);
  if (I.lost(src, dst, l)) return I.dropped(type, src, dst, id, DropReason::lost);
  const Duration lat = I.latency(src, dst, l);
  const uint32_t slot = I.alloc_msg();
  Impl::Msg& m = I.msgs[slot];
  m.fn = std::move(deliver);
  m.id = id;
  m.src = src;
  m.dst = dst;
  m.dst_inc = d.incarnation;
  m.type = type;
  m.reliable = false;
  I.schedule_arrival(slot, lat);
}

void Network::send_reliable(NodeId src, NodeId dst, MsgType type, uint32_t bytes,
                            std::function<void()> deliver) {
  Impl& I = *impl_;
  I.check(src, dst, type);
  const uint32_t slot = I.alloc_msg();
  Impl::Msg& m = I.msgs[slot];
  m.fn = std::move(deliver);
  m.id = I.new_msg_id();
  m.t0 = sim_.now();
  m.src = src;
  m.dst = dst;
  m.src_inc = hosts_.incarnation(src);
  m.dst_inc = hosts_.incarnation(dst);
  m.bytes = bytes;
  m.attempts = 0;
  m.type = type;
  m.reliable = true;
  if (hosts_.is_crashed(src)) {  // a dead sender sends nothing; count the attempt as dropped
    I.count_sent(type, src, bytes);
    I.dropped(type, src, dst, m.id, DropReason::down);
    return I.give_up(slot);
  }
  I.attempt(slot);
}

void Network::probe(NodeId src, NodeId dst, Duration timeout, MsgType type, ProbeBytes bytes,
                    std::function<int64_t()> serve, std::function<void(ProbeResult)> done) {
  Impl& I = *impl_;
  I.check(src, dst, type);
  if (timeout < Duration::zero()) I.fail(src, "probe with a negative timeout");
  I.count_sent(type, src, bytes.request);
  const uint64_t id = I.new_msg_id();
  I.trace(src, "send", type, src, dst, id);
  uint32_t slot;
  if (!I.free_probes.empty()) {
    slot = I.free_probes.back();
    I.free_probes.pop_back();
  } else {
    I.probes.emplace_back();
    slot = uint32_t(I.probes.size() - 1);
  }
  Impl::Probe& p = I.probes[slot];
  const uint32_t gen = ++p.gen;
  p.serve = std::move(serve);
  p.done = std::move(done);
  p.id = id;
  p.deadline = sim_.now() + timeout;
  p.answer = 0;
  p.src = src;
  p.dst = dst;
  p.src_inc = hosts_.incarnation(src);
  p.type = type;
  p.answer_bytes = bytes.answer;
  p.active = true;
  p.timeout_event = sim_.schedule_at(p.deadline, I.k_probe_timeout, src, [ip = &I, slot, gen] {
    ip->probe_finish(slot, gen, ProbeOutcome::timed_out);
  });
  if (hosts_.is_play_dead(src) || hosts_.is_play_dead(dst) || I.cut(src, dst) || I.cut(dst, src))
    return;  // the connect hangs
  const Duration there = I.latency(src, dst, I.link(src, dst));
  if (sim_.now() + there >= p.deadline) return;
  sim_.schedule_after(there, I.k_probe, dst, [ip = &I, slot, gen] { ip->probe_arrive(slot, gen); });
}

bool Network::cut(NodeId src, NodeId dst) const { return impl_->cut(src, dst); }

void Network::set_crashed_hosts_refuse(bool refuse) { impl_->crashed_hosts_refuse = refuse; }

Duration Network::draw_latency(NodeId src, NodeId dst) {
  impl_->check_nodes(src, dst);
  return impl_->latency(src, dst, impl_->link(src, dst));
}

const LatencyModel& Network::latency_model(NodeId src, NodeId dst) const {
  impl_->check_nodes(src, dst);
  return *impl_->link(src, dst).model;
}

double Network::link_loss(NodeId src, NodeId dst) const {
  impl_->check_nodes(src, dst);
  return impl_->link(src, dst).loss;
}

const NetworkConfig& Network::config() const { return impl_->cfg; }

size_t Network::streams_created() const { return impl_->streams; }

uint32_t Network::add_partition(NodeSet a, NodeSet b, bool one_way) {
  const uint32_t h = impl_->next_handle++;
  impl_->cuts.push_back({h, normalized(std::move(a)), normalized(std::move(b)), one_way});
  if (impl_->cuts.back().a.empty()) impl_->fail(kNoNode, "partition with an empty group a");
  return h;
}

void Network::heal(uint32_t partition) { impl_->erase_handle(impl_->cuts, partition, "partition"); }

uint32_t Network::add_loss_burst(NodeSet from, NodeSet to, double loss) {
  if (!(loss >= 0 && loss <= 1)) impl_->fail(kNoNode, "loss burst probability outside [0, 1]");
  const uint32_t h = impl_->next_handle++;
  impl_->bursts.push_back({h, normalized(std::move(from)), normalized(std::move(to)), loss});
  return h;
}

void Network::end_loss_burst(uint32_t handle) {
  impl_->erase_handle(impl_->bursts, handle, "loss burst");
}

uint32_t Network::add_delay_spike(NodeSet from, NodeSet to, Duration extra) {
  if (extra < Duration::zero()) impl_->fail(kNoNode, "negative delay spike");
  const uint32_t h = impl_->next_handle++;
  impl_->spikes.push_back({h, normalized(std::move(from)), normalized(std::move(to)), extra});
  return h;
}

void Network::end_delay_spike(uint32_t handle) {
  impl_->erase_handle(impl_->spikes, handle, "delay spike");
}

}  // namespace fdsim::net
