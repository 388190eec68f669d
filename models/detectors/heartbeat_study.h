#pragma once
// The pairwise heartbeat study (docs/models/heartbeat-detectors.md, docs/models/metrics.md section 1): senders send a
// heartbeat every eta to each of their monitors; every detector arm watches the SAME arrivals.
//
// Contract:
// - Sender i's heartbeat slot k is due when i's clock reads (phase + k*eta); its send stamp is
//   i's clock reading at the actual send instant (see heartbeat_study_config.h for the clock,
//   jitter and phase). Sends are node-bound timers: a crashed sender sends nothing (its slots
//   are skipped; after recovery it resumes at the next slot, sequence numbers keep counting
//   slots); a paused sender sends the slot that came due during the pause at the resume, late,
//   then continues with the next slot not yet due. Each heartbeat is one send_unreliable
//   datagram per monitor, so the network's latency, loss, partitions and the faults apply.
// - Each (pair, arm) has its own detector. On every arrival each detector is fed, then the
//   pair's output is updated: a T-transition at the arrival if the detector no longer suspects,
//   and a watchdog armed at suspect_at() produces the S-transition at that exact instant
//   (an S-transition at the arrival itself if suspect_at() <= now). A paused monitor handles
//   arrivals at its resume (the network defers them), but its output still turns to suspect on
//   time: the output is the detector's answer at each instant, given the arrivals handled.
// - A crashed monitor observes nothing: its pairs leave the QoS accounting until it recovers,
//   with fresh detectors (empty history) and output "trust".
// - metrics() = {"<arm>": QoS of models/metrics/qos_summary.h pooled over all pairs}, after
//   finish(). Traces (when on): the network records "send"/"recv"/"drop" of every
//   {"msg": "heartbeat"}; the study adds "suspect"/"trust" {"detector": <arm name>, "target"}
//   at the monitor ("arm" is reserved by the run layer's trace lines).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/detectors/detector.h"
#include "models/detectors/heartbeat_study_config.h"
#include "models/metrics/qos_pair_recorder.h"
#include "sim/engine/watchdog.h"
#include "sim/net/world.h"

namespace fdsim::detectors {

class HeartbeatStudy final : public Model, private net::HostListener {
 public:
  HeartbeatStudy(World& world, const HeartbeatStudyConfig& config);
  ~HeartbeatStudy() override;
  HeartbeatStudy(const HeartbeatStudy&) = delete;
  HeartbeatStudy& operator=(const HeartbeatStudy&) = delete;

  void start() override;
  void finish() override;
  nlohmann::json metrics() const override;

  // Introspection (tests, tools).
  size_t pair_count() const { return pairs_.size(); }
  const MonitorPair& pair(size_t p) const { return config_.pairs[p]; }
  const metrics::QosPairRecorder& recorder(size_t p, size_t arm) const;
  const Detector& detector(size_t p, size_t arm) const;
  bool suspecting(size_t p, size_t arm) const;
  // Heartbeat datagrams handed to the network (one per pair and slot), whole run.
  uint64_t heartbeats_sent() const { return sent_total_; }
  // Sender clock reading at real time t.
  SimTime sender_clock(SimTime t) const;

 private:
  struct Watch {
    std::unique_ptr<Detector> detector;
    std::unique_ptr<Watchdog> watchdog;
    metrics::QosPairRecorder rec;
    bool suspecting = false;
  };
  struct PairState {
    NodeId sender;
    NodeId monitor;
    std::vector<Watch> arms;
  };
  struct Sender {
    NodeId node;
    SimTime phase;
    std::optional<Rng> jitter;
    std::vector<size_t> pairs;
  };

  // net::HostListener
  void on_crash(NodeId n) override;
  void on_recover(NodeId n, uint32_t incarnation) override;

  SimTime nominal_due(const Sender& s, uint64_t slot) const;
  uint64_t first_slot_after(const Sender& s, SimTime t) const;
  void schedule_slot(size_t sender, uint64_t slot);
  void send_slot(size_t sender, uint64_t slot);
  void on_arrival(size_t pair, uint64_t seq, SimTime stamp);
  void refresh(size_t pair, size_t arm);
  void on_watchdog(size_t pair, size_t arm);
  void set_suspect(size_t pair, size_t arm);

  World& world_;
  HeartbeatStudyConfig config_;
  EventKind kind_send_;
  EventKind kind_suspect_;
  net::MsgType type_heartbeat_;
  double drift_;  // clock_drift_ppm * 1e-6
  std::vector<PairState> pairs_;
  std::vector<Sender> senders_;
  std::vector<std::vector<size_t>> pairs_by_sender_;   // node -> pair indices
  std::vector<std::vector<size_t>> pairs_by_monitor_;  // node -> pair indices
  std::vector<int64_t> sender_index_;                  // node -> index in senders_, or -1
  uint64_t sent_total_ = 0;
  uint64_t window_messages_ = 0;
  uint64_t window_bytes_ = 0;
  bool finished_ = false;
};

}  // namespace fdsim::detectors
