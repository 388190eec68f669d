#pragma once
// The messages of the Geode ring: names (as registered with the network, so they appear in
// "send"/"recv"/"drop" traces and the network's per-type counters), transport, and size.
//
// Contract: sizes are rough figures for Geode's serialized messages (a member identity is
// about 40 bytes); only the overhead metrics (bytes per member per second) use them, so they
// are stated here once and nowhere else. Heartbeats (periodic or replies) go unreliable; every
// other message goes reliable; the TCP final check is a network probe.

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/net/network.h"

namespace fdsim::geode {

enum class Msg : uint8_t {
  heartbeat,           // periodic heartbeat, or the reply to a HeartbeatRequest
  heartbeat_request,   // neighbour check / final check "are you there?"
  suspect_members,     // suspicion fan-out
  final_check_passed,  // "the suspect passed my final check"
  remove_member,       // removal request to the coordinator
  prepare_view,        // view preparation (phase 1)
  view_ack,            // ack of a prepared view
  install_view,        // view installation (phase 2)
  network_partition,   // the coordinator lost quorum
  join_request,        // a recovered host asks to join again
  tcp_check,           // the TCP final check (a probe)
  leave_request,       // a member leaving on purpose (churn only: registered by enable_churn)
};
inline constexpr size_t kMsgCount = 12;

std::string_view msg_name(Msg m);  // "geode.heartbeat", ...
bool msg_reliable(Msg m);

// Sizes (bytes).
inline constexpr uint32_t kIdBytes = 40;
inline constexpr uint32_t kHeaderBytes = 24;
uint32_t msg_bytes(Msg m, size_t members = 0);

// The network's type handles for every message kind. leave_request is registered only when
// the run has churn (register_leave_request), so runs without it list the same types as before.
struct MsgTypes {
  explicit MsgTypes(net::Network& net);
  void register_leave_request(net::Network& net);
  net::MsgType operator[](Msg m) const { return ids[size_t(m)]; }
  std::array<net::MsgType, kMsgCount> ids{};
};

}  // namespace fdsim::geode
