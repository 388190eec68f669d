// CET thresholds mapped to queue lengths: QL = round(CET * mu).

#include <gtest/gtest.h>

#include "tests/support/internal_error.h"
#include "models/timeout/cet_mapping.h"

namespace fdsim::timeout {
namespace {

TEST(CetMapping, DividesByTheMeanExecutionTimeAndRoundsToNearest) {
  EXPECT_EQ(cet_to_queue_length(4.0, 1.0), 4);
  EXPECT_EQ(cet_to_queue_length(4.0, 0.5), 2);   // mean execution 2 s: 4 s of work = 2 tasks
  EXPECT_EQ(cet_to_queue_length(1.2, 2.0), 2);   // 2.4 -> 2
  EXPECT_EQ(cet_to_queue_length(1.25, 2.0), 3);  // 2.5 -> 3 (half away from zero)
  EXPECT_EQ(cet_to_queue_length(0.0, 3.0), 0);
}

TEST(CetMapping, Thresholds_KeepTheMiddleRegionNonEmpty) {
  const QueueLengthThresholds t = map_cet_thresholds(1.0, 4.0, 1.0);
  EXPECT_EQ(t.th_u, 1);
  EXPECT_EQ(t.th_f, 4);
  // 1.0 s and 1.2 s of work at mu = 1 both round to 1: TH_f is raised to 2 so M = {2}.
  const QueueLengthThresholds squeezed = map_cet_thresholds(1.0, 1.2, 1.0);
  EXPECT_EQ(squeezed.th_u, 1);
  EXPECT_EQ(squeezed.th_f, 2);
}

TEST(CetMapping, StateIsClampedIntoItsRegion) {
  EXPECT_EQ(cet_state_in_region(1.4, 1.0, 2, 4), 2);  // rounds to 1, region M = {2..4}
  EXPECT_EQ(cet_state_in_region(3.2, 1.0, 2, 4), 3);
  EXPECT_EQ(cet_state_in_region(9.0, 1.0, 2, 4), 4);
}

TEST(CetMappingDeathTest, NonPositiveMuAborts) {
  EXPECT_INTERNAL_ERROR(cet_to_queue_length(1.0, 0.0), "mu must be");
}

}  // namespace
}  // namespace fdsim::timeout
