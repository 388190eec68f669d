#pragma once
// One member's view of every node (memberlist's nodeMap of nodeState), stored as differences
// from the view every member starts with.
//
// Contract:
// - Every member starts with the same view of every node (alive, incarnation 1, last state
//   change at t = 0, known: the membership after every node joined). That start view is not
//   stored per member: get(n) returns the member's own entry for n if it has one, else the start
//   view. mut(n) creates the member's own entry (a copy of the start view) on first write and
//   returns it; references from mut() and get() stay valid until clear() (node-based map).
// - Memory is O(entries written), so a cluster costs O(n) for the members plus one entry per
//   (member, node) pair whose view left the start view (a crash seen by everyone costs n
//   entries; a quiet cluster costs none), instead of n entries per member.
// - The map is only looked up, never iterated, so its order cannot reach the results.

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "models/swim/context.h"

namespace fdsim::swim {

struct PeerEntry {
  PeerState state = PeerState::alive;
  bool known = true;
  uint32_t incarnation = 1;
  SimTime state_change;
};

class PeerTable {
 public:
  const PeerEntry& get(NodeId n) const {
    if (own_.empty()) return kStart;  // a quiet member: no hash of n
    const auto it = own_.find(n);
    return it == own_.end() ? kStart : it->second;
  }
  PeerEntry& mut(NodeId n) { return own_.try_emplace(n, kStart).first->second; }
  void clear() { own_.clear(); }
  // Entries this member holds apart from the start view (tests, memory estimates).
  size_t own_entries() const { return own_.size(); }

 private:
  static constexpr PeerEntry kStart{};
  // Lookup only (find / try_emplace / clear / size), never iterated: its order cannot reach
  // results.
  std::unordered_map<NodeId, PeerEntry> own_;
};

}  // namespace fdsim::swim
