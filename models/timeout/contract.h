#pragma once
// What the numerical code of models/timeout shares: how it reports a broken contract, and the
// precision every exact quantile is computed to.
//
// A broken contract here (a negative rate, alpha outside (0, 1), a start state outside the
// chain) is a programmer error: the loaders reject bad scenario input long before, so the
// process aborts with one line naming the component, the problem and the offending value.

namespace fdsim::timeout {

// Prints "fdsim: internal error: <component>: <what> (<value>)" to stderr and aborts.
[[noreturn]] void contract_failure(const char* component, const char* what, double value);

// Every exact quantile is the upper end of a bracket of this relative width (timeout_table.h:
// the paths agree to about 1e-10 relative).
inline constexpr double kQuantileRelWidth = 1e-12;

}  // namespace fdsim::timeout
