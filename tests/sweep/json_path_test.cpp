// JSON paths: grammar, lookup, the "parent must exist" rule, writing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/sweep/json_path.h"

namespace fdsim::sweep {
namespace {

using nlohmann::json;

JsonPath P(const std::string& text) {
  std::string error;
  auto p = JsonPath::parse(text, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p ? *p : JsonPath();
}

std::string parse_error(const std::string& text) {
  std::string error;
  EXPECT_FALSE(JsonPath::parse(text, &error).has_value()) << text;
  return error;
}

const json kDoc = json::parse(R"({"network": {"loss": 0.1},
                                  "arms": [{"timeout_ms": 100}, {"timeout_ms": 200}],
                                  "horizon_s": 60})");

TEST(JsonPath, ParsesKeysAndIndices) {
  const JsonPath p = P("$.arms[1].timeout_ms");
  ASSERT_EQ(p.steps().size(), 3u);
  EXPECT_EQ(p.steps()[0].key, "arms");
  EXPECT_TRUE(p.steps()[1].is_index);
  EXPECT_EQ(p.steps()[1].index, 1u);
  EXPECT_EQ(*p.find(kDoc), json(200));
  EXPECT_EQ(p.text(), "$.arms[1].timeout_ms");
}

TEST(JsonPath, RejectsMalformedPaths) {
  EXPECT_NE(parse_error("network.loss").find("must start with '$'"), std::string::npos);
  EXPECT_NE(parse_error("$").find("must name a field"), std::string::npos);
  EXPECT_NE(parse_error("$.arms[x]").find("index"), std::string::npos);
  EXPECT_NE(parse_error("$.arms[-1]").find("index"), std::string::npos);
  EXPECT_NE(parse_error("$..a").find("invalid key at character 2"), std::string::npos);
  EXPECT_NE(parse_error("$.a b").find("unexpected ' ' at character 4"), std::string::npos);
  EXPECT_NE(parse_error("$.a*").find("expected a JSON path like"), std::string::npos);
}

TEST(JsonPath, MissingLastKeyIsSettableMissingParentIsNot) {
  EXPECT_EQ(P("$.network.delay_ms").settable(kDoc, "the base scenario"), "");
  EXPECT_EQ(P("$.network.loss").settable(kDoc, "the base scenario"), "");
  EXPECT_EQ(P("$.membership.timeout_ms").settable(kDoc, "the base scenario"),
            "$.membership does not exist in the base scenario");
  EXPECT_EQ(P("$.arms[5].timeout_ms").settable(kDoc, "the base scenario"),
            "$.arms[5] does not exist in the base scenario ($.arms has 2 elements)");
  EXPECT_EQ(P("$.arms[2]").settable(kDoc, "the base scenario"),
            "$.arms[2] does not exist in the base scenario ($.arms has 2 elements)");
  EXPECT_EQ(P("$.horizon_s.x").settable(kDoc, "the base scenario"),
            "$.horizon_s is a number, not an object, in the base scenario");
  EXPECT_EQ(P("$.network[0]").settable(kDoc, "the base scenario"),
            "$.network is an object, not an array, in the base scenario");
}

TEST(JsonPath, SetWritesExistingAndOptionalFieldsOnly) {
  json doc = kDoc;
  EXPECT_TRUE(P("$.arms[0].timeout_ms").set(doc, 150));
  EXPECT_TRUE(P("$.network.delay_ms").set(doc, 5));
  EXPECT_FALSE(P("$.membership.timeout_ms").set(doc, 1));
  EXPECT_EQ(doc["arms"][0]["timeout_ms"], 150);
  EXPECT_EQ(doc["arms"][1]["timeout_ms"], 200);
  EXPECT_EQ(doc["network"]["delay_ms"], 5);
  EXPECT_FALSE(doc.contains("membership"));
}

TEST(JsonPath, PrefixMeansSamePlaceOrAncestor) {
  EXPECT_TRUE(P("$.arms").is_prefix_of(P("$.arms[1].timeout_ms")));
  EXPECT_TRUE(P("$.arms[1]").is_prefix_of(P("$.arms[1]")));
  EXPECT_FALSE(P("$.arms[0]").is_prefix_of(P("$.arms[1].timeout_ms")));
  EXPECT_FALSE(P("$.arm").is_prefix_of(P("$.arms")));
}

}  // namespace
}  // namespace fdsim::sweep
