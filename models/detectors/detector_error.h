#pragma once
// Programmer errors inside detectors (parameters outside their domain, which the config parser
// already rejects for user input): print and abort. Detectors know no node or clock, so the
// caller's context is whatever the message names.
namespace fdsim::detectors {
[[noreturn]] void detector_error(const char* detector, const char* what);
}  // namespace fdsim::detectors
