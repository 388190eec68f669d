#include "models/geode/view.h"

#include <algorithm>

#include "models/geode/quorum.h"

namespace fdsim::geode {

std::string to_string(const MemberId& m) {
  std::string s = "m" + std::to_string(m.node);
  if (m.incarnation != 0) s += "#" + std::to_string(m.incarnation);
  return s;
}

bool Roles::any_locator() const {
  return std::find(locator.begin(), locator.end(), true) != locator.end();
}

bool Roles::preferred(NodeId n) const {
  if (!partition_detection || !any_locator()) return true;
  return is_locator(n);
}

bool View::contains_node(NodeId n) const {
  if (!at_node.empty()) return n < at_node.size() && at_node[n] != kNoEntry;
  if (by_identity.size() == members.size()) {
    auto it = std::lower_bound(by_identity.begin(), by_identity.end(), n,
                               [&](uint32_t i, NodeId key) { return members[i].node < key; });
    return it != by_identity.end() && members[*it].node == n;
  }
  for (const MemberId& m : members)
    if (m.node == n) return true;
  return false;
}

std::optional<size_t> View::index_of(const MemberId& m) const {
  if (!at_node.empty()) {
    if (m.node >= at_node.size()) return std::nullopt;
    const uint32_t at = at_node[m.node];
    if (at == kNoEntry) return std::nullopt;
    if (at != kSeveralEntries) return members[at] == m ? std::optional<size_t>(at) : std::nullopt;
  }
  if (by_identity.size() == members.size()) {
    auto it = std::lower_bound(by_identity.begin(), by_identity.end(), m,
                               [&](uint32_t i, const MemberId& key) { return members[i] < key; });
    if (it != by_identity.end() && members[*it] == m) return size_t(*it);
    return std::nullopt;
  }
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == m) return i;
  return std::nullopt;
}

const MemberId* View::find(const MemberId& m) const {
  auto i = index_of(m);
  return i ? &members[*i] : nullptr;
}

MemberId coordinator_of(const std::vector<MemberId>& members, const Roles& roles) {
  for (const MemberId& m : members)
    if (roles.preferred(m.node)) return m;
  return members.empty() ? MemberId{} : members.front();
}

View make_view(int64_t id, std::vector<MemberId> members, const Roles& roles) {
  View v;
  v.id = id;
  v.members = std::move(members);
  v.coordinator = coordinator_of(v.members, roles);
  v.by_identity.resize(v.members.size());
  for (size_t i = 0; i < v.members.size(); ++i) v.by_identity[i] = uint32_t(i);
  std::stable_sort(v.by_identity.begin(), v.by_identity.end(),
                   [&](uint32_t a, uint32_t b) { return v.members[a] < v.members[b]; });
  if (!v.members.empty()) {
    NodeId top = 0;
    for (const MemberId& m : v.members) top = std::max(top, m.node);
    if (top != kNoNode) {
      v.at_node.assign(size_t(top) + 1, View::kNoEntry);
      for (size_t i = 0; i < v.members.size(); ++i) {
        uint32_t& at = v.at_node[v.members[i].node];
        at = at == View::kNoEntry ? uint32_t(i) : View::kSeveralEntries;
      }
    }
  }
  v.lead = lead_member(v, roles);
  v.weight = view_weight(v, roles);  // from scratch: weighed_with is not set yet
  v.some_preferred = roles.partition_detection && roles.any_locator();
  if (v.some_preferred)
    for (size_t i = 0; i < v.members.size(); ++i)
      if (roles.preferred(v.members[i].node)) v.preferred_at.push_back(uint32_t(i));
  v.weighed_with = &roles;
  return v;
}

std::vector<MemberId> without(const std::vector<MemberId>& members,
                              const std::vector<MemberId>& drop) {
  // A sorted copy of `drop`: a binary search per member, O(n log k) (a scan of `drop` per
  // member made a partition of a tenth of a large ring quadratic).
  std::vector<MemberId> sorted = drop;
  std::sort(sorted.begin(), sorted.end());
  std::vector<MemberId> out;
  out.reserve(members.size());
  for (const MemberId& m : members)
    if (!std::binary_search(sorted.begin(), sorted.end(), m)) out.push_back(m);
  return out;
}

MemberId coordinator_without(const std::vector<MemberId>& members,
                             std::initializer_list<const std::set<MemberId>*> drops,
                             const Roles& roles) {
  const MemberId* first = nullptr;
  for (const MemberId& m : members) {
    if (std::any_of(drops.begin(), drops.end(),
                    [&](const std::set<MemberId>* d) { return d->count(m) > 0; }))
      continue;
    if (roles.preferred(m.node)) return m;
    if (!first) first = &m;
  }
  return first ? *first : MemberId{};
}

}  // namespace fdsim::geode
