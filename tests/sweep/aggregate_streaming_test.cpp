// Streaming aggregation (issue 16: aggregating 10 000 points ran out of memory because every
// run's metrics, every row and both output texts were held at once). The contract of
// aggregate.h: point by point, a point's rows reach the sink before the next point's results
// are loaded, so memory is that of one point; the output is unchanged.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/aggregate.h"

namespace fdsim::sweep {
namespace {

using nlohmann::json;

std::string stream_run_id(size_t point, size_t rep) {
  return "p" + std::to_string(point) + "r" + std::to_string(rep);
}

// `points` points of `reps` replications; point p, replication r has metric m = p + r. The
// last point shares its first run with point 0 (a run shared by two points).
SweepPlan streaming_plan(size_t points, size_t reps) {
  SweepPlan plan;
  plan.axis_paths = {"$.seed"};
  for (size_t p = 0; p < points; ++p) {
    PlannedPoint point;
    point.params = {json(p)};
    for (size_t r = 0; r < reps; ++r) point.run_ids.push_back(stream_run_id(p, r));
    plan.points.push_back(point);
  }
  plan.points.back().run_ids[0] = stream_run_id(0, 0);
  return plan;
}

json streaming_result(const std::string& id) {
  const size_t p = std::stoul(id.substr(1, id.find('r') - 1));
  const size_t r = std::stoul(id.substr(id.find('r') + 1));
  return {{"manifest", {{"arm_order", {"a", "b"}}}},
          {"metrics", {{"a", {{"m", double(p + r)}}}, {"b", {{"m", double(2 * (p + r))}}}}}};
}

TEST(AggregateStreaming, RowsOfAPointComeBeforeTheNextPointIsLoaded) {
  const SweepPlan plan = streaming_plan(4, 3);
  std::vector<std::string> events;  // "load <id>" and "row <point>"
  const Aggregation agg = aggregate_streaming(
      plan,
      [&](const std::string& id) -> std::optional<json> {
        events.push_back("load " + id);
        return streaming_result(id);
      },
      std::nullopt, [&](const AggregateRow& row) { events.push_back("row " + std::to_string(row.point)); });
  ASSERT_TRUE(agg.error.empty());
  EXPECT_EQ(agg.row_count, 8u);  // 4 points x 2 arms x 1 metric
  EXPECT_TRUE(agg.rows.empty());  // streaming keeps none
  EXPECT_EQ(agg.runs_found, 11u);  // 12 slots, one run shared by points 0 and 3
  const std::vector<std::string> expected = {
      "load p0r0", "load p0r1", "load p0r2", "row 0", "row 0",
      "load p1r0", "load p1r1", "load p1r2", "row 1", "row 1",
      "load p2r0", "load p2r1", "load p2r2", "row 2", "row 2",
      "load p0r0", "load p3r1", "load p3r2", "row 3", "row 3"};
  EXPECT_EQ(events, expected);
}

TEST(AggregateStreaming, SameRowsAsTheInMemoryAggregation) {
  const SweepPlan plan = streaming_plan(5, 4);
  auto load = [](const std::string& id) -> std::optional<json> {
    if (id == "p2r1") return std::nullopt;  // a missing run
    return streaming_result(id);
  };
  const Aggregation whole = aggregate(plan, load, std::string("b"));
  std::string csv = aggregate_csv_header(plan), jsonl;
  const Aggregation streamed = aggregate_streaming(plan, load, std::string("b"),
                                                   [&](const AggregateRow& row) {
                                                     csv += aggregate_csv_line(plan, row);
                                                     jsonl += aggregate_jsonl_line(plan, row);
                                                   });
  EXPECT_EQ(csv, aggregate_csv(plan, whole.rows));
  EXPECT_EQ(jsonl, aggregate_jsonl(plan, whole.rows));
  EXPECT_EQ(streamed.row_count, whole.rows.size());
  EXPECT_EQ(streamed.runs_missing, 1u);
  EXPECT_EQ(whole.runs_missing, 1u);
  // Rows: (point, arm a then b). Point 2, arm a: m = 2, 4, 5 (rep 1 missing).
  ASSERT_EQ(whole.rows.size(), 10u);
  const AggregateRow& row = whole.rows[4];
  EXPECT_EQ(row.point, 2u);
  EXPECT_EQ(row.arm, "a");
  EXPECT_EQ(row.stats.n, 3u);
  EXPECT_DOUBLE_EQ(*row.stats.mean, 11.0 / 3.0);
  EXPECT_EQ(row.reference_arm, "b");
}

TEST(AggregateStreaming, AnUnknownReferenceArmIsAnErrorAndNoRowsAreKept) {
  const SweepPlan plan = streaming_plan(2, 2);
  const Aggregation agg = aggregate(
      plan, [](const std::string& id) -> std::optional<json> { return streaming_result(id); },
      std::string("zzz"));
  EXPECT_TRUE(agg.bad_reference);
  EXPECT_EQ(agg.error, "reference arm 'zzz' is not an arm of this sweep (arms: a, b)");
  EXPECT_TRUE(agg.rows.empty());
}

}  // namespace
}  // namespace fdsim::sweep
