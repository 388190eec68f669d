#include "sim/scenario/suggest.h"

#include <algorithm>

namespace fdsim::scenario {

size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
  // Very long keys (up to the 1 MiB string limit) are never close to a field name.
  if (word.empty() || word.size() > 64) return "";
  const size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    if (c.size() > word.size() + limit || word.size() > c.size() + limit) continue;
    const size_t dist = edit_distance(word, c);
    if (dist < best_d && dist < word.size()) {
      best_d = dist;
      best = c;
    }
  }
  return best;
}

std::string unknown_key_message(std::string_view key, const std::vector<std::string>& known) {
  const std::string s = suggest(key, known);
  return s.empty() ? std::string("unknown key") : "unknown key (did you mean '" + s + "'?)";
}

}  // namespace fdsim::scenario
