#pragma once
// The plan's shortcut for a `$.seed` axis: points that differ only in their seed are resolved
// once (issue 37: validate of a 10^6-point grid took 50-76 s, one full resolve per point).
//
// Why it is exact: the scenario loader only reads `seed` and copies it to the resolved
// configuration (sim/scenario/top_level.cpp); nothing else it resolves, checks or estimates
// depends on it (the seed first matters when a simulation draws its random streams). So for a
// point P = (rest R, seed s):
// - P is valid iff R resolved without problems with some seed and s resolved without problems
//   with some rest (seed problems are about the seed alone);
// - P's resolved configuration is R's with `seed` replaced by s's resolved form, and its cost
//   estimate is R's.
// tests/sweep/seed_memo_test.cpp pins the premise on every shipped example scenario (two seeds,
// same resolved configuration apart from `seed`, same estimate).
//
// Contract: remember() is given only successful resolutions (a failed one may be the seed's
// fault and is never reused); find() answers only when both R and s were remembered, with the
// run-identity hash scenario_hash would give the point (plan.cpp), computed from R's stored
// canonical text split around the seed. Memory is bounded by `max_bytes` of stored text; past
// it nothing new is remembered and points fall back to full resolves (same answers, slower).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace fdsim::sweep {

class SeedMemo {
 public:
  struct Hit {
    uint64_t scenario_hash = 0;  // as plan.cpp's scenario_hash of the point's resolution
    double events_per_replication = 0;
    double memory_bytes = 0;
    int64_t replications = 1;
  };

  // `seed_axis`: the index in a point's params of the `$.seed` axis.
  SeedMemo(size_t seed_axis, size_t max_bytes) : seed_axis_(seed_axis), max_bytes_(max_bytes) {}

  // A point's two keys: its seed's and its other parameters'.
  struct Keys {
    std::string seed, rest;
  };
  Keys keys(const std::vector<nlohmann::json>& params) const;
  std::optional<Hit> find(const Keys& keys) const;
  std::optional<Hit> find(const std::vector<nlohmann::json>& params) const { return find(keys(params)); }
  bool knows_seed(const std::string& seed_key) const { return seed_text_.count(seed_key) != 0; }

  struct Rest {
    uint64_t prefix_hash = 0;  // FNV-1a state after the canonical text before the seed
    std::string suffix;        // the canonical text after the seed
    double events_per_replication = 0;
    double memory_bytes = 0;
    int64_t replications = 1;
  };
  // What remember() stores for one successful resolution. prepare() only reads the memo's
  // settings, so resolutions done on worker threads prepare their entries there (plan.cpp).
  struct Entry {
    std::string seed_key, seed_text, rest_key;
    std::optional<Rest> rest;  // none when the canonical text could not be split
  };

  // `resolved`: the point's resolved configuration (an object with "seed"); nullopt when it
  // has none.
  std::optional<Entry> prepare(const std::vector<nlohmann::json>& params,
                               const nlohmann::json& resolved, double events_per_replication,
                               double memory_bytes, int64_t replications) const;
  void remember(Entry entry);

  size_t stored_bytes() const { return bytes_; }

 private:
  std::string rest_key(const std::vector<nlohmann::json>& params) const;

  size_t seed_axis_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  std::unordered_map<std::string, std::string> seed_text_;  // seed param -> its resolved text
  std::unordered_map<std::string, Rest> rest_;              // other params -> their resolution
};

}  // namespace fdsim::sweep
