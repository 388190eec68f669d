#include "sim/run/stall_guard.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace fdsim::run {

void StallGuard::check() {
  const auto& kinds = sim_.kind_counts();
  if (sim_.now() != last_time_ || kinds_at_last_advance_.empty()) {
    last_time_ = sim_.now();
    events_at_last_advance_ = sim_.events_dispatched();
    kinds_at_last_advance_.clear();
    for (const auto& k : kinds) kinds_at_last_advance_.push_back(k.dispatched);
    return;
  }
  const uint64_t stuck = sim_.events_dispatched() - events_at_last_advance_;
  if (stuck < kStallEvents) return;
  std::vector<std::pair<uint64_t, std::string>> during;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const uint64_t before = i < kinds_at_last_advance_.size() ? kinds_at_last_advance_[i] : 0;
    if (kinds[i].dispatched > before) during.emplace_back(kinds[i].dispatched - before, kinds[i].name);
  }
  std::sort(during.begin(), during.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::string what = "simulated time stuck at " + to_string(sim_.now()) + " for " +
                     std::to_string(stuck) + " events:";
  for (size_t i = 0; i < during.size() && i < 5; ++i)
    what += (i == 0 ? " " : ", ") + during[i].second + " " + std::to_string(during[i].first);
  throw std::runtime_error(what);
}

}  // namespace fdsim::run
