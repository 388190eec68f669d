#pragma once
// The limits every JSON input of fdsim is read under (scenario, sweep, base scenario, trace
// record, result file, sweep manifest). They make memory and time bounded whatever the input:
// a file of any content costs at most about kMaxJsonFileBytes of text plus its DOM, and the
// DOM is at most kMaxJsonDepth deep, so no recursive copy, comparison or destruction of it can
// exhaust the stack. Documented in docs/scenario-format.md ("Limits").

#include <cstddef>
#include <cstdint>

namespace fdsim::scenario {

inline constexpr std::size_t kMaxJsonDepth = 256;                 // nested arrays/objects
inline constexpr std::uintmax_t kMaxJsonFileBytes = 64u << 20;    // 64 MiB per file
inline constexpr std::size_t kMaxJsonStringBytes = 1u << 20;      // 1 MiB per string or key
inline constexpr std::size_t kMaxJsonArrayElements = 10'000'000;  // per array or object

}  // namespace fdsim::scenario
