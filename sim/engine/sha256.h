#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the keyed integrity record of sweep run
// files (sim/sweep/run_store.h, issue 24 item 9). Written here rather than taken from a package
// so that fdsim keeps its dependency list; checked against the NIST example vectors and the
// RFC 4231 test cases (tests/engine/sha256_test.cpp).
//
// Contract: pure functions of their bytes; no state, no allocation beyond the returned value.
// Not constant-time (the MAC protects result files against edits, not a timing attacker).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fdsim {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::string_view bytes);
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);
// 64 lowercase hex digits.
std::string hex_digest(const Sha256Digest& d);

}  // namespace fdsim
