// docs/metrics.md against the models: every scenario in scenarios/examples/ is run (horizon cut
// to kMaxReferenceHorizonS) and every key path of its result is collected; then
// (a) every emitted key of `metrics.<arm>`, `run_stats` and `manifest` is documented in the
//     table of its scope (the model that emitted it, or run_stats / manifest),
// (b) every documented row is emitted by at least one example,
// (c) every metric and run-statistic name ends in a unit (the list is kUnitSuffixes).
//
// Path convention (the document's intro): object keys joined with '.', array elements as "[]";
// in the document "a.{x,y}" stands for "a.x" and "a.y" (keys of a keyed object: the unit is on
// "a"), "<name>" for any key (the last one may contain dots: event kinds are "net.deliver"), and
// "membership.<geode_metric>" for every row of the membership table nested under "membership".
// The arm level is written "<arm>" (arm names are free strings). A table belongs to the scope
// named in its "## ... (scope: `x`)" heading; rows outside a scoped section are ignored.

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/run/run.h"
#include "tests/run/scenario_files.h"

namespace fdsim::run {
namespace {

using nlohmann::json;

constexpr double kMaxReferenceHorizonS = 20.0;

const std::set<std::string> kModelScopes = {"heartbeat_study", "membership", "load_sharing",
                                            "swim", "jgroups"};
const std::set<std::string> kScopes = {"heartbeat_study", "membership", "load_sharing", "swim",
                                       "jgroups", "any_model", "run_stats", "manifest"};

// A unit-bearing name must end in one of these (or be exactly "count", the leaf of a summary
// object). Durations _ns/_ms/_s (rates "_per_s" and "_per_wall_s" end in "_s" too), the
// Geode rates per member-hour of docs/metrics.md section 2, dimensionless ratios, counts, sizes.
const std::vector<std::string> kUnitSuffixes = {"_ns",    "_ms",    "_s",     "_per_member_hour",
                                                "_ratio", "_count", "_tasks", "_bytes", "_kb"};
// Identifiers are not measurements: no unit.
const std::set<std::string> kIdentifierKeys = {"node", "simulation", "fingerprint", "arms"};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool name_carries_unit(const std::string& name) {
  if (name == "count") return true;
  return std::any_of(kUnitSuffixes.begin(), kUnitSuffixes.end(),
                     [&](const std::string& s) { return ends_with(name, s) && name.size() > s.size(); });
}

// ---------------------------------------------------------------------------------------------
// The document.

struct Row {
  std::string scope;
  std::string name;  // as written
  std::string unit;
  int line = 0;
  bool churn_only = false;  // "emitted by" says "with churn": never under load sharing
};

struct Pattern {
  size_t row = 0;        // index into MetricsTable::rows
  std::string text;      // brace-expanded, placeholders kept
  std::regex re;
  bool keyed_last = false;  // the last segment is a brace group or a placeholder
};

struct MetricsTable {
  std::vector<Row> rows;
  std::vector<Pattern> patterns;
  std::vector<std::string> malformed;  // "line N: ..." problems of the document itself
};

// "a.{x,y}.b" -> {"a.x.b", "a.y.b"} (groups may repeat; no nesting).
std::vector<std::string> expand_braces(const std::string& s) {
  const size_t open = s.find('{');
  if (open == std::string::npos) return {s};
  const size_t close = s.find('}', open);
  if (close == std::string::npos) return {s};
  std::vector<std::string> out;
  const std::string head = s.substr(0, open), tail = s.substr(close + 1);
  std::string alts = s.substr(open + 1, close - open - 1) + ",";
  for (size_t start = 0, comma; (comma = alts.find(',', start)) != std::string::npos; start = comma + 1)
    for (const std::string& rest : expand_braces(tail)) out.push_back(head + alts.substr(start, comma - start) + rest);
  return out;
}

std::regex pattern_regex(const std::string& text) {
  std::string re;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      const size_t close = text.find('>', i);
      const bool last = close + 1 == text.size();
      re += last ? ".+" : "[^.\\[\\]]+";
      i = close;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      re += c;
    } else {
      re += '\\';
      re += c;
    }
  }
  return std::regex(re);
}

bool keyed_last_segment(const std::string& name) {
  return !name.empty() && (name.back() == '}' || name.back() == '>');
}

void add_pattern(MetricsTable& ref, size_t row, const std::string& text, bool keyed_last) {
  ref.patterns.push_back(Pattern{row, text, pattern_regex(text), keyed_last});
}

MetricsTable read_metrics_table(const std::string& path) {
  MetricsTable ref;
  std::ifstream in(path);
  if (!in.good()) {
    ref.malformed.push_back("cannot read " + path);
    return ref;
  }
  const std::regex heading(R"(^#{1,6}\s)");
  const std::regex scope_tag(R"(scope:\s*`([a-z_]+)`)");
  const std::regex name_cell(R"(^\|\s*`([^`]+)`\s*\|)");
  const std::regex row4(R"(^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$)");
  std::string scope;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, heading)) {
      scope = std::regex_search(line, m, scope_tag) ? std::string(m[1]) : "";
      if (!scope.empty() && !kScopes.count(scope))
        ref.malformed.push_back("line " + std::to_string(n) + ": unknown scope " + scope);
      continue;
    }
    if (scope.empty() || !std::regex_search(line, name_cell)) continue;
    if (!std::regex_match(line, m, row4)) {
      ref.malformed.push_back("line " + std::to_string(n) + ": not a 4-column row: " + line);
      continue;
    }
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(' '));
      s.erase(s.find_last_not_of(' ') + 1);
      return s;
    };
    Row r{scope, m[1], trim(m[2]), n, trim(m[4]).find("with churn") != std::string::npos};
    if (r.unit.empty() || trim(m[3]).empty() || trim(m[4]).empty())
      ref.malformed.push_back("line " + std::to_string(n) + ": empty cell in " + r.name);
    ref.rows.push_back(r);
  }
  // Patterns: brace expansion, then "membership.<geode_metric>" mounts the membership table.
  for (size_t i = 0; i < ref.rows.size(); ++i) {
    const Row& r = ref.rows[i];
    const std::string mount = "<geode_metric>";
    const size_t at = r.name.find(mount);
    if (at == std::string::npos) {
      for (const std::string& t : expand_braces(r.name)) add_pattern(ref, i, t, keyed_last_segment(r.name));
      continue;
    }
    const std::string prefix = r.name.substr(0, at);
    for (size_t j = 0; j < ref.rows.size(); ++j) {
      // Load sharing rejects churn (the loader's "no joins" error), so the churn rows of the
      // membership table are not mounted under it.
      if (ref.rows[j].scope != "membership" || ref.rows[j].churn_only) continue;
      for (const std::string& t : expand_braces(ref.rows[j].name))
        add_pattern(ref, i, prefix + t, keyed_last_segment(ref.rows[j].name));
    }
  }
  return ref;
}

// ---------------------------------------------------------------------------------------------
// What the examples emit.

struct Emitted {
  std::string scope;
  std::string path;
  std::string where;  // first scenario (and arm) that emitted it
};

void flatten(const json& v, const std::string& path, std::set<std::string>& out) {
  if (v.is_object() && !v.empty()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (v.is_array()) {
    if (v.empty()) out.insert(path + "[]");
    for (const json& e : v) flatten(e, path + "[]", out);
  } else {
    out.insert(path);
  }
}

struct Collected {
  std::map<std::pair<std::string, std::string>, std::string> paths;  // (scope, path) -> where
  std::vector<std::string> failures;
  std::set<std::string> models;
  size_t scenarios = 0;
};

void note(Collected& c, const std::string& scope, const std::set<std::string>& paths,
          const std::string& where) {
  for (const std::string& p : paths) c.paths.emplace(std::make_pair(scope, p), where);
}

Collected run_examples() {
  Collected c;
  for (const std::string& rel : test::shipped_scenarios()) {
    if (rel.rfind("scenarios/examples/", 0) != 0) continue;
    ++c.scenarios;
    const std::string path = std::string(FDSIM_SOURCE_DIR) + "/" + rel;
    std::ifstream in(path);
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("horizon_s")) {
      c.failures.push_back(rel + ": not a scenario with horizon_s");
      continue;
    }
    const double horizon_s = std::min(doc["horizon_s"].get<double>(), kMaxReferenceHorizonS);
    doc["horizon_s"] = horizon_s;
    if (doc.contains("warmup_s") && doc["warmup_s"].get<double>() >= horizon_s / 2)
      doc["warmup_s"] = horizon_s / 4;
    const RunOutcome o = execute(doc, path, 0);
    if (!o.ok) {
      c.failures.push_back(rel + ": " + (o.problems.empty() ? o.internal_error : o.problems.front()));
      continue;
    }
    const json& manifest = o.result.at("manifest");
    const std::string model = manifest.at("model").get<std::string>();
    c.models.insert(model);
    for (auto it = o.result.at("metrics").begin(); it != o.result.at("metrics").end(); ++it) {
      std::set<std::string> paths;
      flatten(it.value(), "", paths);
      note(c, model, paths, rel + " arm " + it.key());
    }
    std::set<std::string> stats;
    flatten(o.run_stats, "run_stats", stats);
    note(c, "run_stats", stats, rel);
    json top = manifest;
    top["resolved_config"] = nullptr;  // the scenario echo: documented by docs/scenario-format.md
    top.erase("arms");
    std::set<std::string> fields;
    flatten(top, "manifest", fields);
    for (auto it = manifest.at("arms").begin(); it != manifest.at("arms").end(); ++it)
      flatten(it.value(), "manifest.arms.<arm>", fields);
    note(c, "manifest", fields, rel);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------

// Rows of scope `row_scope` may describe paths emitted in scope `emitted_scope`.
bool scope_covers(const std::string& row_scope, const std::string& emitted_scope) {
  return row_scope == emitted_scope || (row_scope == "any_model" && kModelScopes.count(emitted_scope));
}

const Pattern* find_pattern(const MetricsTable& ref, const std::string& scope, const std::string& path) {
  for (const Pattern& p : ref.patterns)
    if (scope_covers(ref.rows[p.row].scope, scope) && std::regex_match(path, p.re)) return &p;
  return nullptr;
}

std::string last_segment(std::string s) {
  while (ends_with(s, "[]")) s.resize(s.size() - 2);
  const size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

// The segment that must carry the unit: the last one, or, for a key of a keyed object (per the
// document), the object's name. Empty for identifiers.
std::string unit_bearing_name(const MetricsTable& ref, const std::string& scope, const std::string& path) {
  std::string name = last_segment(path);
  if (const Pattern* p = find_pattern(ref, scope, path); p != nullptr && p->keyed_last) {
    // The keyed key starts after the last '.', or at the last '<' (event kinds contain dots).
    const size_t key = ends_with(p->text, ">") ? p->text.rfind('<') : std::string::npos;
    name = last_segment(p->text.substr(0, p->text.rfind('.', key)));
  }
  return kIdentifierKeys.count(name) ? "" : name;
}

class MetricsReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ref_ = new MetricsTable(read_metrics_table(std::string(FDSIM_SOURCE_DIR) + "/docs/metrics.md"));
    got_ = new Collected(run_examples());
  }
  static void TearDownTestSuite() {
    delete ref_;
    delete got_;
  }
  // Emitted paths of the scopes the unit rule applies to, that break it.
  static std::string unit_violations(bool run_statistics) {
    std::string bad;
    std::set<std::string> seen;
    for (const auto& [key, where] : got_->paths) {
      const auto& [scope, path] = key;
      const bool stats = scope == "run_stats" || (scope == "manifest" && path.rfind("manifest.arms.", 0) == 0);
      if (run_statistics ? !stats : !kModelScopes.count(scope)) continue;
      const std::string name = unit_bearing_name(*ref_, scope, path);
      if (name.empty() || name_carries_unit(name)) continue;
      const Pattern* p = find_pattern(*ref_, scope, path);  // one line per documented row
      if (seen.insert(scope + " " + (p != nullptr ? p->text : path)).second)
        bad += "\n  " + path + " (" + scope + ", e.g. " + where + ")";
    }
    return bad;
  }
  static MetricsTable* ref_;
  static Collected* got_;
};
MetricsTable* MetricsReference::ref_ = nullptr;
Collected* MetricsReference::got_ = nullptr;

TEST_F(MetricsReference, EveryExampleRunsAndEveryModelIsCovered) {
  std::string failures;
  for (const auto& f : got_->failures) failures += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures;
  EXPECT_GE(got_->scenarios, 10u);
  EXPECT_EQ(got_->models, kModelScopes);
}

TEST_F(MetricsReference, TheDocumentHasOneWellFormedTablePerScope) {
  std::string problems;
  for (const auto& p : ref_->malformed) problems += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << "docs/metrics.md:" << problems;
  std::map<std::string, size_t> per_scope;
  std::set<std::pair<std::string, std::string>> names;
  for (const Row& r : ref_->rows) {
    ++per_scope[r.scope];
    EXPECT_TRUE(names.insert({r.scope, r.name}).second)
        << "docs/metrics.md line " << r.line << ": " << r.name << " documented twice in " << r.scope;
  }
  for (const auto& s : kScopes) EXPECT_GT(per_scope[s], 0u) << "no table with scope " << s;
  EXPECT_GE(per_scope["heartbeat_study"], 20u);
  EXPECT_GE(per_scope["membership"], 20u);
  EXPECT_GE(per_scope["load_sharing"], 40u);
}

TEST_F(MetricsReference, EveryEmittedKeyIsDocumented) {
  std::string missing;
  for (const auto& [key, where] : got_->paths)
    if (find_pattern(*ref_, key.first, key.second) == nullptr)
      missing += "\n  " + key.second + " (" + key.first + ", emitted by " + where + ")";
  EXPECT_TRUE(missing.empty()) << "emitted but not documented in docs/metrics.md:" << missing;
}

TEST_F(MetricsReference, EveryDocumentedRowIsEmittedBySomeExample) {
  std::string unused;
  for (const Pattern& p : ref_->patterns) {
    const Row& r = ref_->rows[p.row];
    bool any = false;
    for (const auto& [key, where] : got_->paths)
      if (scope_covers(r.scope, key.first) && std::regex_match(key.second, p.re)) {
        any = true;
        break;
      }
    if (!any) unused += "\n  line " + std::to_string(r.line) + ": " + p.text + " (" + r.scope + ")";
  }
  EXPECT_TRUE(unused.empty())
      << "documented in docs/metrics.md but emitted by no scenario of scenarios/examples/ (fix "
         "the document, or make an example exercise the option):"
      << unused;
}

TEST_F(MetricsReference, EveryMetricNameEndsInAUnit) {
  const std::string bad = unit_violations(false);
  EXPECT_TRUE(bad.empty()) << "metric names without a unit suffix (allowed: _ns _ms _s _per_s "
                              "_per_member_hour _ratio _count _bytes _kb, or a leaf named count):"
                           << bad;
}

TEST_F(MetricsReference, EveryRunStatisticNameEndsInAUnit) {
  const std::string bad = unit_violations(true);
  EXPECT_TRUE(bad.empty()) << "run statistics (run_stats, manifest.arms.<arm>) without a unit "
                              "suffix:"
                           << bad;
}

// The checkers themselves: they must be able to fail.
TEST_F(MetricsReference, TheCheckersRejectWhatTheyShould) {
  EXPECT_EQ(find_pattern(*ref_, "heartbeat_study", "no_such_metric_count"), nullptr);
  EXPECT_NE(find_pattern(*ref_, "heartbeat_study", "pairs_count"), nullptr);
  EXPECT_EQ(find_pattern(*ref_, "membership", "pairs_count"), nullptr);  // tables are per model
  EXPECT_NE(find_pattern(*ref_, "membership", "detection_removal_s.p50"), nullptr);
  EXPECT_EQ(find_pattern(*ref_, "membership", "detection_removal_s.p90"), nullptr);
  EXPECT_NE(find_pattern(*ref_, "load_sharing", "membership.messages_per_member_per_s.heartbeat"), nullptr);
  EXPECT_EQ(find_pattern(*ref_, "load_sharing", "membership.messages_per_member_per_s.gossip"), nullptr);
  EXPECT_NE(find_pattern(*ref_, "heartbeat_study", "hosts_per_node[].up_time_s"), nullptr);
  EXPECT_NE(find_pattern(*ref_, "manifest", "manifest.arms.<arm>.events_by_kind_count.net.deliver"), nullptr);

  EXPECT_EQ(unit_bearing_name(*ref_, "membership", "detection_removal_s.mean"), "detection_removal_s");
  EXPECT_EQ(unit_bearing_name(*ref_, "membership", "messages_per_member_per_s.total"),
            "messages_per_member_per_s");
  EXPECT_EQ(unit_bearing_name(*ref_, "manifest", "manifest.arms.<arm>.events_by_kind_count.net.deliver"),
            "events_by_kind_count");
  EXPECT_EQ(unit_bearing_name(*ref_, "load_sharing", "per_node[].node"), "");
  EXPECT_TRUE(name_carries_unit("wall_time_s"));
  EXPECT_TRUE(name_carries_unit("heartbeat_messages_per_pair_per_s"));
  EXPECT_TRUE(name_carries_unit("false_removals_per_member_hour"));
  EXPECT_TRUE(name_carries_unit("count"));
  EXPECT_FALSE(name_carries_unit("queue_length_time_avg"));
  EXPECT_FALSE(name_carries_unit("events_dispatched"));
  EXPECT_FALSE(name_carries_unit("_count"));
  EXPECT_FALSE(name_carries_unit("mean"));

  EXPECT_EQ(expand_braces("a.{x,y}.b"), (std::vector<std::string>{"a.x.b", "a.y.b"}));
}

}  // namespace
}  // namespace fdsim::run
