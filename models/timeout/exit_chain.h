#pragma once
// The region-exit time W of docs/models/hou-shin-timeout.md: how long a healthy node's queue length
// stays inside its current state region, i.e. when its next region-change broadcast is due.
//
// Contract: the queue length inside region {lo..hi} is a birth-death chain with birth rate
// `lambda` and death rate `mu` whenever the state is >= 1 (state 0 has no death: there is no
// state -1). A step to lo-1 or hi+1 is an exit and is absorbing; with `reflecting_top` a birth
// at hi is suppressed (the truncated unbounded top region). Hence region {0,1} entered at 1 exits
// only upward (to 2), region {2,3,4} exits to 1 or to 5. Rates are per second, times are in
// seconds (the caller converts to Duration at the edge, see timeout_table.h).
//
// The model is only as right as its assumptions: Poisson input at a constant rate inside the
// region and exponential service. Under other execution-time laws or changing load the
// distribution is an approximation.
//
// Degenerate chains: if the exit is unreachable from s0 (lambda = 0 with lo = 0; mu = 0 with a
// reflecting top; lo = 0 with a reflecting top), W is infinite with probability 1: survival()
// returns 1, mean_exit_time() and exit_quantile() return +infinity. In a birth-death chain the
// exit is otherwise reached with probability 1, so there is no mixed case. Invalid arguments
// (negative or non-finite rates, lo > hi, lo < 0, s0 outside the region, t < 0, alpha outside
// (0, 1)) are programmer errors and abort with a message naming the chain.

#include <cstdint>
#include <string>

#include <Eigen/Dense>

namespace fdsim::timeout {

struct ExitChain {
  int64_t lo = 0;
  int64_t hi = 0;
  double lambda = 0;  // birth (task joining) rate, per second
  double mu = 0;      // death (task completion) rate when the state is >= 1, per second
  bool reflecting_top = false;
};

// The unbounded top region {TH_f+1, ...} is truncated to this many states with a reflecting top.
inline constexpr int64_t kTopRegionStates = 41;

// {lo..hi}, exits on both sides (except below 0).
ExitChain region_chain(int64_t lo, int64_t hi, double lambda, double mu);
// {th_f+1 .. th_f+kTopRegionStates}, reflecting top: exits only downward, to th_f.
ExitChain top_region_chain(int64_t th_f, double lambda, double mu);

// "{2..4} lambda=0.8 mu=1": for error messages.
std::string describe(const ExitChain& c);

// Aborts with a message if the chain itself is malformed (see the contract above).
void validate(const ExitChain& c);

// The sub-generator Q on the states lo..hi (row/column k is state lo+k): off-diagonal entries
// are the in-region transition rates, the diagonal is minus the total outflow (exits included),
// so the row sums are minus the exit rates.
Eigen::MatrixXd sub_generator(const ExitChain& c);

// Whether the exit is reached (with probability 1) from s0; false means W = infinity.
bool exit_reachable(const ExitChain& c, int64_t s0);

// S(t | s0) = P(W > t | start in s0) = e_s0' exp(Q t) 1, by uniformization (uniformization.h).
// Absolute error at most about (Lambda t / 100) * 1e-14 + rounding, Lambda = the largest total
// rate of a state: below 1e-11 up to Lambda t = 1e5 (uniformization.h gives the bound).
double survival(const ExitChain& c, int64_t s0, double t_s);

// E[W | s0]: the solution of Q m = -1, entry s0.
double mean_exit_time(const ExitChain& c, int64_t s0);

// inf { t : S(t | s0) <= alpha } for alpha in (0, 1), to 1e-9 relative; the returned t always
// satisfies S(t) <= alpha up to the survival error (it is the upper end of the final bracket).
// Bracketing steps forward by h = 100 / Lambda, then gallops with doubling matrices, then
// bisects. +infinity if the exit is unreachable, or if the quantile exceeds 1e18 / Lambda
// seconds (far beyond the range of Duration).
double exit_quantile(const ExitChain& c, int64_t s0, double alpha);

}  // namespace fdsim::timeout
