#include "models/geode/recipients.h"

#include <algorithm>

namespace fdsim::geode {

std::vector<MemberId> suspect_recipients(const View& view, const MemberId& sender,
                                         const std::vector<MemberId>& suspects,
                                         const std::set<MemberId>& sender_suspects,
                                         const Roles& roles, const FanoutRules& rules, Rng* rng) {
  if (view.size() <= rules.small_view_size) return view.members;

  auto listed = [](const std::vector<MemberId>& v, const MemberId& m) {
    return std::find(v.begin(), v.end(), m) != v.end();
  };
  if (!rules.random_recipient) {
    // The same list as below without building the candidates: the scans stop once enough
    // members are found, so a suspicion costs O(recipients + skipped members), not O(view)
    // (after a process crash every later joiner sends one: O(n^2) per crash otherwise).
    // The preferred scan may still cover the whole view when fewer preferred members exist.
    auto candidate = [&](const MemberId& m) {
      return !(m == sender) && !listed(suspects, m) && !sender_suspects.count(m);
    };
    std::vector<MemberId> out;
    if (view.weighed_with == &roles && view.some_preferred) {
      for (uint32_t i : view.preferred_at) {
        if (out.size() >= rules.preferred_in_fanout) break;
        if (candidate(view.members[i])) out.push_back(view.members[i]);
      }
    } else {
      for (const MemberId& m : view.members) {
        if (out.size() >= rules.preferred_in_fanout) break;
        if (roles.preferred(m.node) && candidate(m)) out.push_back(m);
      }
    }
    out.push_back(sender);
    for (const MemberId& m : view.members) {
      if (out.size() >= rules.max_recipients) break;
      if (candidate(m) && !roles.preferred(m.node) && !listed(out, m)) out.push_back(m);
    }
    return out;
  }
  std::vector<MemberId> candidates;
  for (const MemberId& m : view.members)
    if (!(m == sender) && !listed(suspects, m) && !sender_suspects.count(m))
      candidates.push_back(m);

  const size_t preferred_cap =
      rules.random_recipient
          ? std::min(rules.preferred_in_fanout, rules.max_recipients > 0 ? rules.max_recipients - 1 : 0)
          : rules.preferred_in_fanout;
  std::vector<MemberId> out;
  for (const MemberId& m : candidates) {
    if (out.size() >= preferred_cap) break;
    if (roles.preferred(m.node)) out.push_back(m);
  }
  out.push_back(sender);

  if (rules.random_recipient) {
    if (out.size() < rules.max_recipients) {
      std::vector<MemberId> rest;
      for (const MemberId& m : candidates)
        if (!listed(out, m)) rest.push_back(m);
      if (rest.size() == 1) {
        out.push_back(rest.front());
      } else if (rest.size() > 1) {
        out.push_back(rest[size_t(rng->uniform_int(0, int64_t(rest.size()) - 1))]);
      }
    }
  } else {
    for (const MemberId& m : candidates) {
      if (out.size() >= rules.max_recipients) break;
      if (!roles.preferred(m.node) && !listed(out, m)) out.push_back(m);
    }
  }
  return out;
}

std::vector<MemberId> preferred_coordinators(const View& view, const std::set<MemberId>& filter,
                                             const MemberId& me, size_t max,
                                             const Roles& roles) {
  std::vector<MemberId> out, not_preferred;
  for (const MemberId& m : view.members) {
    if (m == me) continue;
    if (roles.preferred(m.node) && !filter.count(m)) {
      out.push_back(m);
      if (out.size() >= max) break;
    } else if (!filter.count(m)) {
      not_preferred.push_back(m);
    }
  }
  out.push_back(me);
  for (const MemberId& m : not_preferred) {
    if (out.size() >= max) break;
    out.push_back(m);
  }
  return out;
}

}  // namespace fdsim::geode
