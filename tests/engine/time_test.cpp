#include <gtest/gtest.h>

#include <limits>

#include "tests/support/internal_error.h"
#include "sim/engine/time.h"

namespace fdsim {
namespace {

TEST(Time, NamedConstructorsAreExactNanoseconds) {
  EXPECT_EQ(Duration::ms(250).count_ns(), 250'000'000);
  EXPECT_EQ(Duration::s(3).count_ns(), 3'000'000'000);
  EXPECT_EQ(Duration::us(7).count_ns(), 7'000);
  EXPECT_EQ(Duration::from_ms(0.5).count_ns(), 500'000);
  EXPECT_EQ(Duration::from_seconds(1e-9).count_ns(), 1);
  EXPECT_EQ((SimTime::zero() + Duration::s(2)) - SimTime::from_ns(500), Duration::ns(1'999'999'500));
}

TEST(Time, FormatsExactly) {
  EXPECT_EQ(to_string(SimTime::from_ns(12'345'678'901)), "12.345678901s");
  EXPECT_EQ(to_string(Duration::ns(-1)), "-0.000000001s");
}

TEST(TimeDeathTest, OverflowAborts) {
  const Duration big = Duration::max();
  EXPECT_INTERNAL_ERROR((void)(big + Duration::ns(1)), "overflow");
  EXPECT_INTERNAL_ERROR((void)(SimTime::max() + Duration::ns(1)), "overflow");
  EXPECT_INTERNAL_ERROR((void)Duration::s(std::numeric_limits<int64_t>::max() / 1000), "overflow");
  EXPECT_INTERNAL_ERROR((void)Duration::from_seconds(1e300), "overflow");
}

}  // namespace
}  // namespace fdsim
