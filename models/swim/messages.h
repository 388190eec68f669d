#pragma once
// The state updates SWIM disseminates (memberlist's alive / suspect / dead messages) and the
// model sizes used to fill a packet (msgpack-encoded sizes of memberlist 0.2.2 for short node
// names; they only decide how many updates fit in one UDP packet and in which order the
// broadcast queue hands them out).

#include <cstdint>
#include <vector>

#include "sim/engine/ids.h"

namespace fdsim::swim {

enum class UpdateKind : uint8_t { alive, suspect, dead };

struct Update {
  UpdateKind kind = UpdateKind::alive;
  NodeId node = kNoNode;     // the member the update is about
  uint32_t incarnation = 0;
  NodeId from = kNoNode;     // suspect / dead: who declared it (dead with from == node: left)
  // Which identity on slot `node` it is about (churn: the host incarnation the identity started
  // with; 0 for every member present at t = 0). memberlist tells identities apart by node name;
  // an update about another identity than the one a member holds for the slot is a message
  // about another name (member_state.cpp). Not part of the model size.
  uint32_t gen = 0;
};

// Encoded size of one update inside a compound message, bytes.
inline uint32_t update_bytes(const Update& u) {
  switch (u.kind) {
    case UpdateKind::alive: return 62;
    case UpdateKind::suspect: return 38;
    case UpdateKind::dead: return 38;
  }
  return 38;
}

// Sizes of the protocol messages themselves, bytes.
inline constexpr uint32_t kPingBytes = 60;
inline constexpr uint32_t kAckBytes = 12;
inline constexpr uint32_t kIndirectPingBytes = 72;
inline constexpr uint32_t kNackBytes = 8;
inline constexpr uint32_t kCompoundHeaderOverheadBytes = 2;  // memberlist compoundHeaderOverhead
inline constexpr uint32_t kCompoundOverheadBytes = 2;        // memberlist compoundOverhead

using Updates = std::vector<Update>;

}  // namespace fdsim::swim
