#include "models/geode/messages.h"

namespace fdsim::geode {

std::string_view msg_name(Msg m) {
  switch (m) {
    case Msg::heartbeat: return "geode.heartbeat";
    case Msg::heartbeat_request: return "geode.heartbeat_request";
    case Msg::suspect_members: return "geode.suspect_members";
    case Msg::final_check_passed: return "geode.final_check_passed";
    case Msg::remove_member: return "geode.remove_member";
    case Msg::prepare_view: return "geode.prepare_view";
    case Msg::view_ack: return "geode.view_ack";
    case Msg::install_view: return "geode.install_view";
    case Msg::network_partition: return "geode.network_partition";
    case Msg::join_request: return "geode.join_request";
    case Msg::tcp_check: return "geode.tcp_check";
    case Msg::leave_request: return "geode.leave_request";
  }
  return "geode.unknown";
}

bool msg_reliable(Msg m) { return m != Msg::heartbeat && m != Msg::tcp_check; }

uint32_t msg_bytes(Msg m, size_t members) {
  const uint32_t n = uint32_t(members);
  switch (m) {
    case Msg::heartbeat: return kHeaderBytes + 16;                      // request id, seq
    case Msg::heartbeat_request: return kHeaderBytes + kIdBytes + 8;    // target, request id
    case Msg::suspect_members: return kHeaderBytes + 40 + n * kIdBytes; // reason + suspects
    case Msg::final_check_passed: return kHeaderBytes + 2 * kIdBytes;   // initiator, suspect
    case Msg::remove_member: return kHeaderBytes + kIdBytes + 40;       // member + reason
    case Msg::prepare_view:
    case Msg::install_view: return kHeaderBytes + 16 + n * kIdBytes;    // id + members
    case Msg::view_ack: return kHeaderBytes + 8;
    case Msg::network_partition: return kHeaderBytes + 16;
    case Msg::join_request: return kHeaderBytes + kIdBytes + 16;
    case Msg::tcp_check: return 2 + 8 + kIdBytes + 1;                  // version, view, id; OK
    case Msg::leave_request: return kHeaderBytes + kIdBytes + 40;      // member + reason
  }
  return kHeaderBytes;
}

MsgTypes::MsgTypes(net::Network& net) {
  for (size_t i = 0; i < kMsgCount; ++i)
    if (Msg(i) != Msg::leave_request) ids[i] = net.type(msg_name(Msg(i)));
}

void MsgTypes::register_leave_request(net::Network& net) {
  ids[size_t(Msg::leave_request)] = net.type(msg_name(Msg::leave_request));
}

}  // namespace fdsim::geode
