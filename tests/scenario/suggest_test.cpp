// "Did you mean": edit distance and the closeness rule of sim/scenario/suggest.h.

#include <gtest/gtest.h>

#include "sim/scenario/suggest.h"

namespace fdsim::scenario {
namespace {

TEST(Suggest, EditDistanceCountsSwapsOfNeighboursAsOne) {
  EXPECT_EQ(edit_distance("seed", "seed"), 0u);
  EXPECT_EQ(edit_distance("sead", "seed"), 1u);
  EXPECT_EQ(edit_distance("sede", "seed"), 1u);  // adjacent swap
  EXPECT_EQ(edit_distance("treshold", "threshold"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("timeout", "timeout_ms"), 3u);
}

TEST(Suggest, OnlyCloseCandidatesAreSuggested) {
  const std::vector<std::string> keys = {"seed", "replications", "horizon_s", "to", "from"};
  EXPECT_EQ(suggest("sead", keys), "seed");
  EXPECT_EQ(suggest("replicatons", keys), "replications");
  EXPECT_EQ(suggest("horizon", keys), "horizon_s");  // 2 edits, 7 letters
  EXPECT_EQ(suggest("too", keys), "to");
  EXPECT_EQ(suggest("colour", keys), "");
  EXPECT_EQ(suggest("x", keys), "");       // never a word of one letter into another
  EXPECT_EQ(suggest("sx", {"to"}), "");     // 2 edits of 2 letters: too far
  EXPECT_EQ(suggest(std::string(100, 's'), keys), "");
  EXPECT_EQ(unknown_key_message("sead", keys), "unknown key (did you mean 'seed'?)");
  EXPECT_EQ(unknown_key_message("colour", keys), "unknown key");
}

TEST(Suggest, TiesGoToTheFirstCandidate) {
  EXPECT_EQ(suggest("ab", {"ax", "ay"}), "ax");
  EXPECT_EQ(suggest("abcd", {"abcx", "abcy"}), "abcx");
}

}  // namespace
}  // namespace fdsim::scenario
