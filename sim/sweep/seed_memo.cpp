#include "sim/sweep/seed_memo.h"

#include <string_view>

#include "sim/engine/hash.h"
#include "sim/sweep/plan.h"

namespace fdsim::sweep {

using nlohmann::json;

namespace {
// Stands in for the seed while a resolution's canonical text is split: a string no resolved
// configuration holds (its control characters are escaped by dump(), so the dumped marker is
// found only where it was put; remember() checks that it occurs once).
const char* const kSeedMarker = "\x01" "fdsim seed memo" "\x01";
constexpr size_t kEntryOverheadBytes = 96;  // a hash-map node and its strings' headers
}  // namespace

std::string SeedMemo::rest_key(const std::vector<json>& params) const {
  std::string key;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i == seed_axis_) continue;
    key += params[i].dump();
    key += '\x1f';  // never in a dump (escaped there)
  }
  return key;
}

std::optional<SeedMemo::Hit> SeedMemo::find(const std::vector<json>& params) const {
  if (seed_axis_ >= params.size()) return std::nullopt;
  const auto seed = seed_text_.find(params[seed_axis_].dump());
  if (seed == seed_text_.end()) return std::nullopt;
  const auto rest = rest_.find(rest_key(params));
  if (rest == rest_.end()) return std::nullopt;
  const Rest& r = rest->second;
  Hit hit;
  hit.scenario_hash = fnv1a64(r.suffix, fnv1a64(seed->second, r.prefix_hash));
  hit.events_per_replication = r.events_per_replication;
  hit.memory_bytes = r.memory_bytes;
  hit.replications = r.replications;
  return hit;
}

void SeedMemo::remember(const std::vector<json>& params, const json& resolved,
                        double events_per_replication, double memory_bytes,
                        int64_t replications) {
  if (seed_axis_ >= params.size() || !resolved.is_object() || !resolved.contains("seed")) return;
  std::string seed_key = params[seed_axis_].dump();
  if (seed_text_.find(seed_key) == seed_text_.end()) {
    std::string text = resolved["seed"].dump();
    const size_t cost = seed_key.size() + text.size() + kEntryOverheadBytes;
    if (bytes_ + cost > max_bytes_) return;
    bytes_ += cost;
    seed_text_.emplace(std::move(seed_key), std::move(text));
  }
  std::string key = rest_key(params);
  if (rest_.find(key) != rest_.end()) return;
  json canonical = resolved;
  canonical["seed"] = kSeedMarker;
  const std::string text = canonical_scenario_text(canonical);
  const std::string marker = json(kSeedMarker).dump();
  const size_t at = text.find(marker);
  if (at == std::string::npos || text.find(marker, at + 1) != std::string::npos) return;
  Rest r;
  r.prefix_hash = fnv1a64(std::string_view(text).substr(0, at));
  r.suffix = text.substr(at + marker.size());
  r.events_per_replication = events_per_replication;
  r.memory_bytes = memory_bytes;
  r.replications = replications;
  const size_t cost = key.size() + r.suffix.size() + kEntryOverheadBytes;
  if (bytes_ + cost > max_bytes_) return;
  bytes_ += cost;
  rest_.emplace(std::move(key), std::move(r));
}

}  // namespace fdsim::sweep
