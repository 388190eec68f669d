// Same scenario + seed => identical trace and metrics; arms share the start phases (common
// random numbers) and differ only after their decisions differ.
#include <gtest/gtest.h>

#include "tests/swim/harness.h"

namespace fdsim::swim {
namespace {

using test::at_s;
using test::Harness;
using test::HarnessOptions;

std::pair<std::vector<nlohmann::json>, nlohmann::json> run_once(uint64_t seed, bool lifeguard,
                                                             double loss = 0.05) {
  HarnessOptions o;
  o.seed = seed;
  o.loss = loss;
  o.horizon_s = 60.0;
  Harness h(test::config(12, lifeguard), o);
  h.at(at_s(20.0), [&] { h.hosts.crash(4); });
  h.at(at_s(25.0), [&] { h.hosts.pause(7); });
  h.at(at_s(31.0), [&] { h.hosts.resume(7); });
  h.run_until_s(60.0);
  return {h.sink.records, h.model->metrics()};
}

TEST(SwimDeterminism, SameSeedSameTraceAndMetrics) {
  const auto a = run_once(5, true);
  const auto b = run_once(5, true);
  ASSERT_EQ(a.first.size(), b.first.size());
  EXPECT_TRUE(a.first == b.first);
  EXPECT_EQ(a.second.dump(), b.second.dump());
  const auto c = run_once(6, true);
  EXPECT_NE(a.second.dump(), c.second.dump());
}

TEST(SwimDeterminism, ArmsShareTheirFirstPacketsOnCommonRandomNumbers) {
  // Without loss nothing differs between the arms before the crash at 20 s.
  const auto on = run_once(5, true, 0.0);
  const auto off = run_once(5, false, 0.0);
  ASSERT_GT(on.first.size(), 200u);
  ASSERT_GT(off.first.size(), 200u);
  for (size_t i = 0; i < 200; ++i) EXPECT_EQ(on.first[i], off.first[i]) << "record " << i;
}

}  // namespace
}  // namespace fdsim::swim
