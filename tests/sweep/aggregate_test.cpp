// Aggregation across replications: hand-computed confidence intervals and paired differences,
// metric flattening, arm order, missing values, and the exact CSV / JSONL text.
#include <cmath>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/aggregate.h"

namespace fdsim::sweep {
namespace {

using nlohmann::json;

constexpr double kT975df4 = 2.7764451051977987;  // t_{0.975, 4}
constexpr double kT975df2 = 4.302652729749464;   // t_{0.975, 2}

std::string id(int i) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016x", i);
  return buf;
}

// One point with five replications; results built by `make(rep)`.
struct Fixture {
  SweepPlan plan;
  std::map<std::string, json> results;

  Fixture(size_t reps, const std::function<json(size_t)>& make, json param = 1) {
    plan.axis_paths = {"$.a"};
    PlannedPoint point;
    point.params = {param};
    for (size_t r = 0; r < reps; ++r) {
      point.run_ids.push_back(id(int(r)));
      json res = make(r);
      if (!res.is_null()) results[id(int(r))] = res;
    }
    plan.points.push_back(point);
  }
  Aggregation run(std::optional<std::string> reference = std::nullopt) const {
    return aggregate(
        plan,
        [&](const std::string& rid) -> std::optional<json> {
          auto it = results.find(rid);
          if (it == results.end()) return std::nullopt;
          return it->second;
        },
        reference);
  }
};

json two_arms(json base, json fresh) {
  return {{"manifest", {{"arm_order", {"base", "new"}}}},
          {"metrics", {{"base", {{"m", base}}}, {"new", {{"m", fresh}}}}}};
}

const AggregateRow* find_row(const Aggregation& a, const std::string& arm, const std::string& m) {
  for (const auto& r : a.rows)
    if (r.arm == arm && r.metric == m) return &r;
  return nullptr;
}

TEST(Aggregate, HandComputedMeanSdHalfWidthAndPairedDifference) {
  const std::vector<double> base = {1, 2, 3, 4, 5}, fresh = {2, 4, 3, 8, 5};
  Fixture f(5, [&](size_t r) { return two_arms(base[r], fresh[r]); });
  const Aggregation a = f.run();
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_EQ(a.runs_found, 5u);
  // base: mean 3, s^2 = (4+1+0+1+4)/4 = 2.5, half-width t_{.975,4} sqrt(2.5/5).
  const AggregateRow* b = find_row(a, "base", "m");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->stats.n, 5u);
  EXPECT_DOUBLE_EQ(*b->stats.mean, 3.0);
  EXPECT_DOUBLE_EQ(*b->stats.sd, std::sqrt(2.5));
  EXPECT_NEAR(*b->stats.ci95_half_width, kT975df4 * std::sqrt(0.5), 1e-9);
  EXPECT_EQ(b->reference_arm, "base");
  EXPECT_FALSE(b->diff.has_value());
  // new: mean 22/5 = 4.4, s^2 = (5.76+0.16+1.96+12.96+0.36)/4 = 5.3.
  const AggregateRow* n = find_row(a, "new", "m");
  ASSERT_NE(n, nullptr);
  EXPECT_DOUBLE_EQ(*n->stats.mean, 4.4);
  EXPECT_NEAR(*n->stats.sd, std::sqrt(5.3), 1e-12);
  // new - base per replication = 1, 2, 0, 4, 0: mean 1.4, s^2 = (0.16+0.36+1.96+6.76+1.96)/4
  // = 2.8, half-width t_{.975,4} sqrt(2.8/5) = 2.0777, much tighter than the unpaired
  // half-widths would suggest (1.96 and 2.86).
  ASSERT_TRUE(n->diff.has_value());
  EXPECT_EQ(n->diff->n, 5u);
  EXPECT_DOUBLE_EQ(*n->diff->mean, 1.4);
  EXPECT_NEAR(*n->diff->sd, std::sqrt(2.8), 1e-12);
  EXPECT_NEAR(*n->diff->ci95_half_width, kT975df4 * std::sqrt(2.8 / 5), 1e-9);
  EXPECT_NEAR(*n->diff->ci95_half_width, 2.07770, 1e-5);
}

TEST(Aggregate, NullsAndMissingRunsAreSkippedAndPairsNeedBothArms) {
  // rep 1: base null; rep 3: "new" lacks m; rep 5: no result at all.
  Fixture f(6, [](size_t r) -> json {
    if (r == 5) return nullptr;
    const std::vector<double> base = {1, 0, 3, 4, 5}, fresh = {2, 4, 3, 8, 5};
    json res = two_arms(r == 1 ? json(nullptr) : json(base[r]), fresh[r]);
    if (r == 3) res["metrics"]["new"].erase("m");
    return res;
  });
  const Aggregation a = f.run();
  EXPECT_EQ(a.runs_found, 5u);
  EXPECT_EQ(a.runs_missing, 1u);
  const AggregateRow* b = find_row(a, "base", "m");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->stats.n, 4u);  // 1, 3, 4, 5
  EXPECT_DOUBLE_EQ(*b->stats.mean, 13.0 / 4);
  const AggregateRow* n = find_row(a, "new", "m");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->stats.n, 4u);  // 2, 4, 3, 5
  ASSERT_TRUE(n->diff.has_value());
  EXPECT_EQ(n->diff->n, 3u);  // reps 0, 2, 4: differences 1, 0, 0
  EXPECT_DOUBLE_EQ(*n->diff->mean, 1.0 / 3);
  EXPECT_NEAR(*n->diff->ci95_half_width, kT975df2 * std::sqrt(1.0 / 3) / std::sqrt(3.0), 1e-9);
}

TEST(Aggregate, FlattensNumericLeavesToDottedNames) {
  const json arm = json::parse(R"({"detection_time_s": {"mean": 1.5, "p99": null},
      "by_type": {"heartbeat": {"count": 3}}, "hist": [1, 2], "label": "x", "ok": true,
      "removal_s": {"count": 2, "samples_s": [0.5, 0.7]}})");
  const FlatMetrics flat = flatten_metrics(arm);
  const FlatMetrics expected = {{"by_type.heartbeat.count", 3.0}, {"detection_time_s.mean", 1.5},
                                {"detection_time_s.p99", std::nullopt}, {"hist[0]", 1.0},
                                {"hist[1]", 2.0}, {"removal_s.count", 2.0}};  // no samples
  EXPECT_EQ(flat, expected);
}

TEST(Aggregate, ArmsFollowTheManifestOrderAndTheReferenceArmCanBeChosen) {
  Fixture f(2, [](size_t r) {
    json res = two_arms(double(r), double(2 * r));
    res["manifest"]["arm_order"] = {"new", "base"};
    return res;
  });
  Aggregation a = f.run();
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_EQ(a.rows[0].arm, "new");
  EXPECT_EQ(a.rows[0].reference_arm, "new");
  ASSERT_TRUE(a.rows[1].diff.has_value());
  EXPECT_DOUBLE_EQ(*a.rows[1].diff->mean, -0.5);  // base - new: 0 - 0, 1 - 2
  a = f.run(std::string("base"));
  EXPECT_EQ(a.rows[0].reference_arm, "base");
  ASSERT_TRUE(a.rows[0].diff.has_value());
  EXPECT_DOUBLE_EQ(*a.rows[0].diff->mean, 0.5);
  a = f.run(std::string("nope"));
  EXPECT_TRUE(a.bad_reference);
  EXPECT_EQ(a.error, "reference arm 'nope' is not an arm of this sweep (arms: base, new)");
}

TEST(Aggregate, CsvAndJsonlTextIsExact) {
  Fixture f(
      2,
      [](size_t r) {
        json res = two_arms(double(r) + 0.5, nullptr);
        res["metrics"]["base"]["k"] = 7;
        return res;
      },
      "a,b");
  const Aggregation a = f.run();
  // m = 0.5, 1.5: half-width t_{.975,1} sqrt(0.5) / sqrt(2) = 12.7062047 / 2 (its last digits
  // come from the quantile search, so the text takes them from the row).
  ASSERT_EQ(a.rows.size(), 3u);
  EXPECT_NEAR(*a.rows[1].stats.ci95_half_width, 6.3531023681, 1e-9);
  const std::string hw = json(*a.rows[1].stats.ci95_half_width).dump();
  EXPECT_EQ(aggregate_csv(f.plan, a.rows),
            "point,$.a,arm,metric,n,mean,sd,ci95_half_width,reference_arm,diff_n,diff_mean,"
            "diff_sd,diff_ci95_half_width\n"
            "0,\"a,b\",base,k,2,7.0,0.0,0.0,base,,,,\n"
            "0,\"a,b\",base,m,2,1.0,0.7071067811865476," + hw + ",base,,,,\n"
            "0,\"a,b\",new,m,0,,,,base,0,,,\n");
  const std::string jsonl = aggregate_jsonl(f.plan, a.rows);
  EXPECT_EQ(jsonl.substr(0, jsonl.find('\n')),
            R"({"point":0,"params":{"$.a":"a,b"},"arm":"base","metric":"k","n":2,"mean":7.0,)"
            R"("sd":0.0,"ci95_half_width":0.0,"reference_arm":"base","diff_n":null,)"
            R"("diff_mean":null,"diff_sd":null,"diff_ci95_half_width":null})");
}

}  // namespace
}  // namespace fdsim::sweep
