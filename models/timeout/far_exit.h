#pragma once
// A cheap proof that a region's exit is later than a given time with probability > 1 - alpha,
// for the chains whose exit lies against a strong drift (a CET region mapped to hundreds of
// states with a large estimated mu): their exact quantile is beyond any Duration, but the exact
// paths cannot tell (the Poisson mixture gives up beyond its mass, the spectral form is
// ill-conditioned) and the dense uniformization gallops through up to 62 squarings of an
// S x S matrix (about 7e10 multiply-adds at S = 1 042) to return a value that T_out maps to
// "never" anyway (issue 37).
//
// Contract: for a region chain (exit_chain.h) whose exit is on one side only, with the other
// end reflecting (lo = 0: exit upward past hi; a reflecting top with lo >= 1: exit downward
// past lo), let a be the rate toward the exit, b the rate away from it (b > a), r = b / a, m
// the number of states and s the distance of s0 from the reflecting end (0 .. m - 1). Then
// V(x) = r^x (x the distance from the reflecting end) satisfies L V = 0 inside the region and
// L V = b - a at the reflecting end, so by Dynkin's formula at t ^ W,
//   r^m P(W <= t) <= E V(X(t ^ W)) <= r^s + (b - a) t,
// i.e. P(W <= t) <= r^(s - m) + (b - a) t r^-m. exit_later_than returns true only when that
// bound is at most kMargin (1 - alpha): then S(t) > alpha by far, and inf { u : S(u) <= alpha }
// exceeds t. It returns false (no claim) for chains with exits on both sides, without drift
// away from the exit, or when the bound is not small enough. Computed in logarithms (no
// overflow for any m and r); O(1).
//
// The silence of a lossy broadcast (silence_chain.h) lasts at least until the first crossing
// of s0's region boundary, pathwise, so the claim on region_chain_of(c, s0) holds for it too.

#include <cstdint>

#include "models/timeout/exit_chain.h"

namespace fdsim::timeout {

// Beyond this many seconds a quantile is "never" for T_out: TimeoutTable::to_t_out maps every
// quantile above 0.999 x (2^63 - 1) ns (9.214e9 s) to Duration::max().
inline constexpr double kBeyondDurationS = 9.3e9;

// ln of the bound r^(s - m) + (b - a) t r^-m on P(W <= t | s0); NaN where the contract makes no
// claim (exits on both sides or none, no drift away from the exit, t not finite and >= 0).
double log_exit_probability_bound(const ExitChain& c, int64_t s0, double t_s);

// True when that bound is at most kMargin (1 - alpha) = 1e-3 (1 - alpha): the alpha-quantile of
// W is then later than t_s.
bool exit_later_than(const ExitChain& c, int64_t s0, double alpha, double t_s);

}  // namespace fdsim::timeout
