#pragma once
// Stable 64-bit hashing for stream keys, fingerprints and run identities. These values are part
// of the output format: changing them changes every result, so they are fixed here forever.
#include <cstdint>
#include <string_view>

namespace fdsim {

// SplitMix64 finaliser: a bijective mix of a 64-bit word.
constexpr uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// FNV-1a over bytes.
constexpr uint64_t fnv1a64(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Order-dependent combination of two hashes.
constexpr uint64_t hash_combine(uint64_t h, uint64_t v) { return mix64(h ^ mix64(v)); }

}  // namespace fdsim
