#pragma once
// Simulated time. Contract: every instant and every interval inside the simulator is an exact
// int64 count of nanoseconds wrapped in a strong type; there is no floating-point time in the
// engine. Arithmetic is overflow-checked (an overflow is a programmer error and aborts with a
// message), so a horizon of about 292 simulated years is the hard limit.
// Conversions to and from seconds/milliseconds as double exist only at the edges (scenario
// parameters, metrics output) and round to the nearest nanosecond.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace fdsim {

[[noreturn]] void time_overflow(const char* op);

namespace detail {
inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) time_overflow("add");
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) time_overflow("subtract");
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) time_overflow("multiply");
  return r;
}
inline int64_t round_to_ns(double v) {
  if (!std::isfinite(v) || v >= 9.2e18 || v <= -9.2e18) time_overflow("convert");
  return static_cast<int64_t>(std::llround(v));
}
}  // namespace detail

// A signed length of simulated time.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(int64_t v) { return Duration(v); }
  static Duration us(int64_t v) { return Duration(detail::checked_mul(v, 1000)); }
  static Duration ms(int64_t v) { return Duration(detail::checked_mul(v, 1000000)); }
  static Duration s(int64_t v) { return Duration(detail::checked_mul(v, 1000000000)); }
  static Duration from_seconds(double v) { return Duration(detail::round_to_ns(v * 1e9)); }
  static Duration from_ms(double v) { return Duration(detail::round_to_ns(v * 1e6)); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ns() const { return ns_; }
  double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  double millis() const { return static_cast<double>(ns_) * 1e-6; }

  Duration operator+(Duration o) const { return Duration(detail::checked_add(ns_, o.ns_)); }
  Duration operator-(Duration o) const { return Duration(detail::checked_sub(ns_, o.ns_)); }
  Duration operator*(int64_t k) const { return Duration(detail::checked_mul(ns_, k)); }
  Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  int64_t operator/(Duration o) const { return ns_ / o.ns_; }
  Duration operator%(Duration o) const { return Duration(ns_ % o.ns_); }
  Duration operator-() const { return Duration(detail::checked_sub(0, ns_)); }
  Duration& operator+=(Duration o) { return *this = *this + o; }
  Duration& operator-=(Duration o) { return *this = *this - o; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

// An instant of simulated time, measured from the start of the run (t = 0).
class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime from_ns(int64_t v) { return SimTime(v); }
  static SimTime from_seconds(double v) { return SimTime(detail::round_to_ns(v * 1e9)); }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ns() const { return ns_; }
  double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  double millis() const { return static_cast<double>(ns_) * 1e-6; }
  Duration since_start() const { return Duration::ns(ns_); }

  SimTime operator+(Duration d) const { return SimTime(detail::checked_add(ns_, d.count_ns())); }
  SimTime operator-(Duration d) const { return SimTime(detail::checked_sub(ns_, d.count_ns())); }
  Duration operator-(SimTime o) const { return Duration::ns(detail::checked_sub(ns_, o.ns_)); }
  SimTime& operator+=(Duration d) { return *this = *this + d; }
  constexpr auto operator<=>(const SimTime&) const = default;

 private:
  constexpr explicit SimTime(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

// "12.345678901s": exact, for messages and traces.
std::string to_string(SimTime t);
std::string to_string(Duration d);

}  // namespace fdsim
