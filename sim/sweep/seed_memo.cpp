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

SeedMemo::Keys SeedMemo::keys(const std::vector<json>& params) const {
  Keys k;
  if (seed_axis_ < params.size()) k.seed = params[seed_axis_].dump();
  k.rest = rest_key(params);
  return k;
}

std::optional<SeedMemo::Hit> SeedMemo::find(const Keys& keys) const {
  const auto seed = seed_text_.find(keys.seed);
  if (seed == seed_text_.end()) return std::nullopt;
  const auto rest = rest_.find(keys.rest);
  if (rest == rest_.end()) return std::nullopt;
  const Rest& r = rest->second;
  Hit hit;
  hit.scenario_hash = fnv1a64(r.suffix, fnv1a64(seed->second, r.prefix_hash));
  hit.events_per_replication = r.events_per_replication;
  hit.memory_bytes = r.memory_bytes;
  hit.replications = r.replications;
  return hit;
}

std::optional<SeedMemo::Entry> SeedMemo::prepare(const std::vector<json>& params,
                                                 const json& resolved,
                                                 double events_per_replication,
                                                 double memory_bytes,
                                                 int64_t replications) const {
  if (seed_axis_ >= params.size() || !resolved.is_object() || !resolved.contains("seed"))
    return std::nullopt;
  Entry e;
  e.seed_key = params[seed_axis_].dump();
  e.seed_text = resolved["seed"].dump();
  e.rest_key = rest_key(params);
  json canonical = resolved;
  canonical["seed"] = kSeedMarker;
  const std::string text = canonical_scenario_text(std::move(canonical));
  const std::string marker = json(kSeedMarker).dump();
  const size_t at = text.find(marker);
  if (at == std::string::npos || text.find(marker, at + 1) != std::string::npos) return e;
  Rest r;
  r.prefix_hash = fnv1a64(std::string_view(text).substr(0, at));
  r.suffix = text.substr(at + marker.size());
  r.events_per_replication = events_per_replication;
  r.memory_bytes = memory_bytes;
  r.replications = replications;
  e.rest = std::move(r);
  return e;
}

void SeedMemo::remember(Entry e) {
  if (seed_text_.find(e.seed_key) == seed_text_.end()) {
    const size_t cost = e.seed_key.size() + e.seed_text.size() + kEntryOverheadBytes;
    if (bytes_ + cost > max_bytes_) return;
    bytes_ += cost;
    seed_text_.emplace(std::move(e.seed_key), std::move(e.seed_text));
  }
  if (!e.rest || rest_.find(e.rest_key) != rest_.end()) return;
  const size_t cost = e.rest_key.size() + e.rest->suffix.size() + kEntryOverheadBytes;
  if (bytes_ + cost > max_bytes_) return;
  bytes_ += cost;
  rest_.emplace(std::move(e.rest_key), std::move(*e.rest));
}

}  // namespace fdsim::sweep
