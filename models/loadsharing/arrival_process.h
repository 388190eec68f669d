#pragma once
// Task arrivals at one node that are not Poisson (docs/models/load-sharing.md, "Arrival
// processes"): a two-state Markov-modulated Poisson process, batch (compound) Poisson, and the
// replay of an arrival trace. The Poisson arrivals of `arrival_rate_per_s` and `load_phases`
// stay in ArrivalSchedule.
//
// Contract: one ArrivalProcess per node, stateful; first() gives the first arrival at or after
// t = 0, next(now) the one after the arrival at `now` (nullopt = no more arrivals). All draws
// come from the node's "ls.arrivals" stream passed in, in an order fixed by the process alone
// (never by what the model does with the tasks), so every arm of a replication sees the same
// arrival instants (common random numbers). Times are clamped by the rule of
// sim/engine/random_duration.h (a gap beyond 1e9 s means "no more arrivals").
//
// - mmpp2: states 0 and 1 with Poisson rates rate_per_s[k] and exponential sojourns of mean
//   mean_sojourn_s[k]; the initial state is drawn from the stationary law
//   pi_k = m_k / (m_0 + m_1), so the process is stationary from t = 0. In state k the next
//   event is the earlier of an arrival, Exp(rate_k), and a switch, Exp(1/m_k) (memoryless: the
//   two are redrawn after each event). Mean rate pi_0 r_0 + pi_1 r_1; index of dispersion of
//   the counts in (0, t]: 1 + 2 pi_0 pi_1 (r_0 - r_1)^2 / (mean s) (1 - (1 - e^{-s t}) / (s t))
//   with s = 1/m_0 + 1/m_1.
// - batch_poisson: batches at Poisson rate batch_rate_per_s; each batch brings B tasks at the
//   same instant, B from a batch-size law (deterministic, geometric on {1, 2, ...} with a mean,
//   or uniform on integers [min, max]). Mean task rate batch_rate E[B]; index of dispersion of
//   the counts E[B^2] / E[B] at every t.
// - trace: instants t_1 <= ... <= t_K in seconds read from a file; node j of the entry's node
//   set (j = its rank in the set) starts reading the trace at offset o_j = (j x node_offset_s)
//   mod period_s, i.e. its arrivals are t_i + k period_s - o_j >= 0 (k = 0, 1, ... with `loop`,
//   else k = 0 only).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/engine/rng.h"
#include "sim/engine/time.h"

namespace fdsim::loadsharing {

enum class BatchSizeLaw : uint8_t { deterministic, geometric, uniform };

struct BatchSize {
  BatchSizeLaw law = BatchSizeLaw::deterministic;
  uint64_t value = 1;    // deterministic
  double mean = 1.0;     // geometric, >= 1
  uint64_t min = 1, max = 1;  // uniform
  uint64_t draw(Rng& rng) const;
  double mean_size() const;
  double mean_square() const;  // E[B^2]
};

struct ArrivalProcessSpec {
  enum class Kind : uint8_t { mmpp2, batch_poisson, trace } kind = Kind::mmpp2;
  // mmpp2
  double rate_per_s[2] = {0, 0};
  double mean_sojourn_s[2] = {1, 1};
  // batch_poisson
  double batch_rate_per_s = 0;
  BatchSize batch;
  // trace (shared by every node of the entry)
  std::shared_ptr<const std::vector<SimTime>> instants;
  bool loop = false;
  Duration period = Duration::zero();       // > the last instant when looping
  Duration node_offset = Duration::zero();

  // The long-run task rate per node (for the event-rate budget and the docs' formulas).
  double mean_rate_per_s() const;
};

class ArrivalProcess {
 public:
  // `rank` is the node's index in its entry's node set (trace offsets).
  ArrivalProcess(const ArrivalProcessSpec& spec, size_t rank);

  std::optional<SimTime> first(Rng& rng);
  std::optional<SimTime> next(SimTime now, Rng& rng);

 private:
  std::optional<SimTime> mmpp_next(SimTime from, Rng& rng);
  std::optional<SimTime> trace_current() const;

  const ArrivalProcessSpec* spec_;
  size_t rank_;
  // mmpp2: the current state.
  int state_ = 0;
  // batch_poisson: tasks of the current batch still to arrive at its instant.
  uint64_t batch_left_ = 0;
  // trace: the next row and cycle; the node's offset.
  size_t row_ = 0;
  uint64_t cycle_ = 0;
  Duration offset_ = Duration::zero();
};

}  // namespace fdsim::loadsharing
