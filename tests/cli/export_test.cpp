// `fdsim export`: the tidy table of a sweep output directory, checked against the run files it
// was made from (row count, header, exact values), its refusals (exit 2, one line per problem)
// and the naming rule of the parameter columns.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/tidy_export.h"
#include "tests/cli/fdsim_process.h"

namespace fdsim_export_test {

namespace fs = std::filesystem;
using nlohmann::json;
using fdsim::sweep::tidy_param_names;
using fdsim::test::Result;
using fdsim::test::slurp;
using Names = std::vector<std::string>;

TEST(TidyParamNames, LastKeyWhenUnique) {
  EXPECT_EQ(tidy_param_names({"$.workload.arrival_rate_per_s", "$.network.loss"}),
            (Names{"arrival_rate_per_s", "loss"}));
  EXPECT_EQ(tidy_param_names({"$.faults[0].nodes[2]"}), (Names{"nodes_2"}));
}

TEST(TidyParamNames, ClashesGrowByOneKeyAtATime) {
  EXPECT_EQ(tidy_param_names({"$.detectors.arms[0].detector.timeout_ms",
                              "$.detectors.arms[1].detector.timeout_ms", "$.network.loss"}),
            (Names{"arms_0_detector_timeout_ms", "arms_1_detector_timeout_ms", "loss"}));
  EXPECT_EQ(tidy_param_names({"$.a.x.loss", "$.b.y.loss"}), (Names{"x_loss", "y_loss"}));
}

TEST(TidyParamNames, FixedColumnsAreNeverShadowed) {
  EXPECT_EQ(tidy_param_names({"$.seed", "$.network.latency.median_ms"}),
            (Names{"param_seed", "median_ms"}));
  EXPECT_EQ(tidy_param_names({"$.x.value"}), (Names{"x_value"}));
  // Joined names that still clash fall back to the JSON path.
  EXPECT_EQ(tidy_param_names({"$.a_b.c", "$.a.b_c", "$.x.c", "$.y.b_c"}),
            (Names{"$.a_b.c", "$.a.b_c", "x_c", "y_b_c"}));
}

TEST(TidyParamNames, GivenNamesWinAndBareUnitsClimb) {
  // The sweep's own names are the columns; the others never take them.
  EXPECT_EQ(tidy_param_names({"$.a.loss", "$.b.loss"}, {"loss", ""}), (Names{"loss", "b_loss"}));
  EXPECT_EQ(tidy_param_names({"$.faults[0].pause.ms", "$.network.loss"}, {"", "drop"}),
            (Names{"pause_ms", "drop"}));
  // A last key that is only a unit says nothing: one key more.
  EXPECT_EQ(tidy_param_names({"$.gc.pause.ms", "$.x.count"}), (Names{"pause_ms", "x_count"}));
  EXPECT_EQ(tidy_param_names({"$.ms"}), (Names{"param_ms"}));
}

class ExportTest : public fdsim::test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  // A 2-point, 2-replication sweep of a small heartbeat study with two arms.
  void run_tiny_sweep() const {
    write("base.json", R"({
      "name": "tiny", "seed": 5, "horizon_s": 20, "warmup_s": 1,
      "nodes": {"count": 3},
      "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}, "loss": 0.01},
      "faults": [{"kind": "crash", "at_s": 10, "nodes": [2]}],
      "detectors": {"heartbeat_period_ms": 500,
                    "arms": [{"name": "fixed", "detector": {"kind": "fixed", "timeout_ms": 1500}},
                             {"name": "phi", "detector": {"kind": "phi_accrual"}}]}})");
    write("sw.json", R"({"base": "base.json", "replications": 2,
      "axes": [{"path": "$.detectors.heartbeat_period_ms", "values": [500, 1000]}]})");
    const Result r = fdsim("sweep sw.json --out o -j 1 -q");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
  static std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : line) {
      if (c == ',') {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    return f;
  }
  // Numeric and null leaves of a metrics object, counted independently of the exporter.
  static size_t count_leaves(const json& v) {
    if (v.is_object() || v.is_array()) {
      size_t n = 0;
      for (const auto& e : v) n += count_leaves(e);
      return n;
    }
    return v.is_number() || v.is_null() ? 1 : 0;
  }
};

TEST_F(ExportTest, OneRowPerRunArmAndMetric_ValuesAsInTheRunFiles) {
  run_tiny_sweep();
  const Result r = fdsim("export o");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("column heartbeat_period_ms = $.detectors.heartbeat_period_ms"),
            std::string::npos)
      << r.out;
  const json plan = json::parse(slurp(dir_ + "/o/sweep.json"));
  ASSERT_EQ(plan["points"].size(), 2u);

  // Expected rows, from the run files.
  size_t expected = 0;
  std::map<std::string, json> runs;
  for (const auto& point : plan["points"])
    for (const auto& id : point["run_ids"]) {
      runs[id] = json::parse(slurp(dir_ + "/o/runs/" + id.get<std::string>() + ".json"));
      for (const auto& [arm, m] : runs[id]["metrics"].items()) expected += count_leaves(m);
    }
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_GT(expected, 40u);

  const auto csv = lines(slurp(dir_ + "/o/tidy.csv"));
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv[0], "run_id,point,heartbeat_period_ms,seed,replication,arm,metric,value");
  EXPECT_EQ(csv.size() - 1, expected);
  const auto jsonl = lines(slurp(dir_ + "/o/tidy.jsonl"));
  EXPECT_EQ(jsonl.size(), expected);

  // The first row: point 0, replication 0, the first arm ("fixed"), the first metric name.
  const std::string id00 = plan["points"][0]["run_ids"][0];
  const auto first = split(csv[1]);
  ASSERT_EQ(first.size(), 8u);
  EXPECT_EQ(first[0], id00);
  EXPECT_EQ(first[1], "0");
  EXPECT_EQ(first[2], "500");
  EXPECT_EQ(first[3], "5");
  EXPECT_EQ(first[4], "0");
  EXPECT_EQ(first[5], "fixed");
  const json row0 = json::parse(jsonl[0]);
  std::vector<std::string> keys;
  for (auto it = row0.begin(); it != row0.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(row0["heartbeat_period_ms"], 500);
  EXPECT_EQ(row0["arm"], "fixed");
  EXPECT_EQ(row0["run_id"], id00);

  // Every CSV row's value equals the run file's value at that arm and (flat) metric name, and
  // rows of point 1, replication 1, arm phi are present with heartbeat 1000.
  const std::string id11 = plan["points"][1]["run_ids"][1];
  size_t checked = 0, p11_phi = 0;
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto f = split(csv[i]);
    ASSERT_EQ(f.size(), 8u) << csv[i];
    if (f[7].empty() || f[6].find('[') != std::string::npos) continue;
    json v = runs[f[0]]["metrics"][f[5]];
    std::string rest = f[6];
    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
      v = v[rest.substr(0, dot)];
    v = v[rest];
    EXPECT_EQ(f[7], v.dump()) << csv[i];
    const json jrow = json::parse(jsonl[i - 1]);
    EXPECT_EQ(jrow["value"], v) << jsonl[i - 1];
    ++checked;
    if (f[0] == id11 && f[5] == "phi") {
      ++p11_phi;
      EXPECT_EQ(f[1], "1");
      EXPECT_EQ(f[2], "1000");
      EXPECT_EQ(f[4], "1");
    }
  }
  EXPECT_GT(checked, expected / 2);
  EXPECT_EQ(p11_phi > 0, true);

  // Deterministic: a second export gives the same bytes; --format csv writes only the CSV.
  const std::string before = slurp(dir_ + "/o/tidy.csv");
  ASSERT_EQ(fdsim("export o --format csv --out x/t -q").code, 0);
  EXPECT_EQ(slurp(dir_ + "/x/t.csv"), before);
  EXPECT_FALSE(fs::exists(dir_ + "/x/t.jsonl"));
}

TEST_F(ExportTest, MissingRunsAreSkippedAndCounted) {
  run_tiny_sweep();
  const json plan = json::parse(slurp(dir_ + "/o/sweep.json"));
  const std::string gone = plan["points"][0]["run_ids"][1];
  fs::remove(dir_ + "/o/runs/" + gone + ".json");
  const Result r = fdsim("export o --format jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("from 3 runs (1 runs without a result skipped)"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir_ + "/o/tidy.jsonl").find(gone), std::string::npos);
}

TEST_F(ExportTest, BadDirectoriesAndTamperedResultsAreBadInput) {
  const Result none = fdsim("export nowhere");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err_lines(),
            (Names{"nowhere: not a directory (expected the output directory of fdsim sweep or "
                   "fdsim merge)"}));
  fs::create_directory(dir_ + "/empty");
  const Result empty = fdsim("export empty");
  EXPECT_EQ(empty.code, 2);
  EXPECT_EQ(empty.err_lines(),
            (Names{"empty/sweep.json: missing; not a sweep output directory (fdsim sweep --out "
                   "DIR writes it)"}));

  run_tiny_sweep();
  const json plan = json::parse(slurp(dir_ + "/o/sweep.json"));
  const std::string id = plan["points"][1]["run_ids"][0];
  const std::string path = dir_ + "/o/runs/" + id + ".json";
  json doc = json::parse(slurp(path));
  doc["metrics"]["phi"]["hand_edited"] = 1;
  write("o/runs/" + id + ".json", doc.dump(2));
  const Result bad = fdsim("export o");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err_lines(),
            (Names{"o/runs/" + id + ".json: not exported: its content does not match its "
                                     "integrity hash (edited?)"}));
  EXPECT_FALSE(fs::exists(dir_ + "/o/tidy.csv"));
  EXPECT_FALSE(fs::exists(dir_ + "/o/tidy.jsonl"));
  const Result fmt = fdsim("export o --format xml");
  EXPECT_EQ(fmt.code, 2);
}

}  // namespace fdsim_export_test
