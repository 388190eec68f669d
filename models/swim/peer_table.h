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
// - The first kInline entries live inside the table (no heap, no hash: a scan of at most
//   kInline ids in the member's own cache lines); later ones go to a node-based map. Entries
//   never move (the inline ones are only ever appended, and cleared all at once), so
//   references stay valid as above; the table must not be moved or copied while referenced
//   (members are heap-held and never move). Why inline: in a 10 000-member run with one crash
//   every member holds one entry, and the hash lookup behind every state_of() was two cache
//   misses, 9% of the run's CPU (bench/README.md, "SWIM events per CPU second").
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
  static constexpr size_t kInline = 4;

  PeerTable() = default;
  PeerTable(const PeerTable&) = delete;  // references into the inline entries would dangle
  PeerTable& operator=(const PeerTable&) = delete;

  const PeerEntry& get(NodeId n) const {
    for (size_t i = 0; i < inline_used_; ++i)  // a quiet member: no entry, nothing to scan
      if (inline_ids_[i] == n) return inline_[i];
    if (own_.empty()) return kStart;
    const auto it = own_.find(n);
    return it == own_.end() ? kStart : it->second;
  }
  PeerEntry& mut(NodeId n) {
    for (size_t i = 0; i < inline_used_; ++i)
      if (inline_ids_[i] == n) return inline_[i];
    if (inline_used_ < kInline && own_.empty()) {
      inline_ids_[inline_used_] = n;
      inline_[inline_used_] = kStart;
      return inline_[inline_used_++];
    }
    return own_.try_emplace(n, kStart).first->second;
  }
  void clear() {
    inline_used_ = 0;
    own_.clear();
  }
  // Entries this member holds apart from the start view (tests, memory estimates).
  size_t own_entries() const { return inline_used_ + own_.size(); }

 private:
  static constexpr PeerEntry kStart{};
  uint32_t inline_used_ = 0;
  NodeId inline_ids_[kInline] = {};
  PeerEntry inline_[kInline];
  // Lookup only (find / try_emplace / clear / size), never iterated: its order cannot reach
  // results.
  std::unordered_map<NodeId, PeerEntry> own_;
};

}  // namespace fdsim::swim
