#pragma once
// The identity of a Geode member: the host it runs on, the host incarnation it belongs to, and
// the id of the view that admitted it.
//
// Contract: two identities denote the same member iff node and incarnation are equal (that is
// what operator== and the ordering compare); `join_view` is an attribute carried along so the
// TCP final check can compare it too (docs/models/geode-membership.md, "Final check": identity and view id must match). A host that
// crashes and recovers is a new incarnation, hence a new member: the old identity never
// answers a check again.

#include <compare>
#include <cstdint>
#include <functional>
#include <string>

#include "sim/engine/ids.h"

namespace fdsim::geode {

// A member identity's incarnation: the host's incarnation in the low bits, the number of
// auto-reconnects of that process above them (0 for a process that never reconnected, so
// identities without reconnects are the host incarnation, as before issue 26).
inline constexpr uint32_t kReconnectShift = 20;
inline constexpr uint32_t kHostIncarnationMask = (1u << kReconnectShift) - 1;
inline uint32_t host_incarnation(uint32_t member_incarnation) {
  return member_incarnation & kHostIncarnationMask;
}

struct MemberId {
  NodeId node = kNoNode;
  uint32_t incarnation = 0;
  int64_t join_view = -1;  // id of the view that admitted the member; -1 while joining

  bool operator==(const MemberId& o) const {
    return node == o.node && incarnation == o.incarnation;
  }
  std::strong_ordering operator<=>(const MemberId& o) const {
    if (auto c = node <=> o.node; c != 0) return c;
    return incarnation <=> o.incarnation;
  }
  bool valid() const { return node != kNoNode; }
};

// Hash of the identity (node and incarnation, as operator==), for unordered containers whose
// iteration order nothing depends on.
struct MemberIdHash {
  size_t operator()(const MemberId& m) const noexcept {
    return std::hash<uint64_t>{}((uint64_t(m.node) << 32) | m.incarnation);
  }
};

// "m3", or "m3#2" for incarnation 2 (traces and messages).
std::string to_string(const MemberId& m);

}  // namespace fdsim::geode
