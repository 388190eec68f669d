// The `network` scenario section: defaults, every latency model, link overrides, and error
// messages at their exact JSON paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "sim/net/config.h"

namespace fdsim::net {
namespace {

using nlohmann::json;
using scenario::Diagnostics;
using scenario::NodesConfig;
using scenario::ObjectReader;

struct Parsed {
  NetworkConfig cfg;
  Diagnostics diag;
  json resolved;
  std::vector<std::string> problems() const {
    std::vector<std::string> v;
    for (const auto& p : diag.problems) v.push_back(p.str());
    return v;
  }
};

NodesConfig nodes(size_t n) {
  NodesConfig c;
  c.count = n;
  c.groups["east"] = {0, 1};
  return c;
}

Parsed parse(const json& network, const std::string& base_dir = "") {
  Parsed p;
  const json doc = {{"network", network}};
  ObjectReader root(&doc, "$", p.diag, p.resolved);
  root.object("network", [&](ObjectReader& r) { p.cfg = parse_network_config(r, nodes(4), base_dir); });
  root.finish();
  return p;
}

bool has_problem(const Parsed& p, const std::string& text) {
  const auto v = p.problems();
  return std::find(v.begin(), v.end(), text) != v.end();
}

TEST(NetworkConfig, EmptySectionGivesTheDocumentedDefaults) {
  const Parsed p = parse(json::object());
  EXPECT_TRUE(p.diag.ok()) << p.problems().front();
  ASSERT_TRUE(p.cfg.latency);
  EXPECT_TRUE(p.cfg.latency->deterministic());
  EXPECT_DOUBLE_EQ(p.cfg.latency->mean_ms(), 1);
  EXPECT_EQ(p.cfg.loss, 0);
  EXPECT_EQ(p.cfg.retransmit_interval, Duration::ms(100));
  EXPECT_EQ(p.cfg.reliable_give_up, Duration::s(60));
  EXPECT_TRUE(p.cfg.overrides.empty());
  EXPECT_EQ(p.resolved["network"],
            json::parse(R"({"latency": {"model": "constant", "ms": 1.0}, "loss": 0.0,
                            "retransmit_ms": 100.0, "reliable_give_up_s": 60.0, "links": []})"));
}

TEST(NetworkConfig, EveryLatencyModelParsesWithItsParameters) {
  struct Case {
    json latency;
    double mean_ms;
  };
  const std::vector<Case> cases = {
      {{{"model", "constant"}, {"ms", 2.5}}, 2.5},
      {{{"model", "uniform"}, {"min_ms", 1}, {"max_ms", 3}}, 2},
      {{{"model", "exponential"}, {"min_ms", 1}, {"mean_ms", 4}}, 4},
      {{{"model", "lognormal"}, {"min_ms", 1}, {"median_ms", 2}, {"sigma", 0}}, 2},
      {{{"model", "pareto"}, {"min_ms", 1}, {"alpha", 2}}, 2},
  };
  for (const Case& c : cases) {
    const Parsed p = parse({{"latency", c.latency}});
    EXPECT_TRUE(p.diag.ok()) << c.latency.dump() << ": " << p.problems().front();
    EXPECT_DOUBLE_EQ(p.cfg.latency->mean_ms(), c.mean_ms) << c.latency.dump();
    EXPECT_EQ(p.resolved["network"]["latency"], c.latency);
  }
}

TEST(NetworkConfig, EmpiricalFileIsRelativeToTheScenarioDirectory) {
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "/lan-delays.txt") << "# ms\n1\n2\n3\n6\n";
  const Parsed p = parse({{"latency", {{"model", "empirical"}, {"file", "lan-delays.txt"}}}}, dir);
  EXPECT_TRUE(p.diag.ok()) << p.problems().front();
  EXPECT_DOUBLE_EQ(p.cfg.latency->mean_ms(), 3);
  EXPECT_DOUBLE_EQ(p.cfg.latency->quantile_ms(0.5), 2);
}

TEST(NetworkConfig, LinkOverridesKeepTheirOrderAndNodeSets) {
  const Parsed p = parse({{"loss", 0.01},
                          {"links",
                           {{{"from", "east"}, {"to", {3}}, {"loss", 0.2}},
                            {{"to", {{"from", 2}, {"to", 3}}},
                             {"latency", {{"model", "constant"}, {"ms", 7}}}}}}});
  ASSERT_TRUE(p.diag.ok()) << p.problems().front();
  ASSERT_EQ(p.cfg.overrides.size(), 2u);
  EXPECT_EQ(p.cfg.overrides[0].from, (NodeSet{0, 1}));
  EXPECT_EQ(p.cfg.overrides[0].to, (NodeSet{3}));
  EXPECT_EQ(p.cfg.overrides[0].loss, 0.2);
  EXPECT_FALSE(p.cfg.overrides[0].latency);
  EXPECT_TRUE(p.cfg.overrides[1].from.empty());  // any node
  EXPECT_EQ(p.cfg.overrides[1].to, (NodeSet{2, 3}));
  EXPECT_FALSE(p.cfg.overrides[1].loss);
  EXPECT_DOUBLE_EQ(p.cfg.overrides[1].latency->mean_ms(), 7);
  EXPECT_EQ(p.resolved["network"]["links"][0]["latency"], nullptr);
  EXPECT_EQ(p.resolved["network"]["links"][1]["loss"], nullptr);
  EXPECT_EQ(p.resolved["network"]["links"][0]["from"], json({0, 1}));
}

TEST(NetworkConfig, UnknownModelListsTheAllowedOnesWithoutNoiseAboutItsParameters) {
  const Parsed p = parse({{"latency", {{"model", "gamma"}, {"shape", 2}, {"min_ms", 1}}}});
  EXPECT_EQ(p.problems(),
            (std::vector<std::string>{
                "$.network.latency.model: expected one of \"constant\", \"uniform\", "
                "\"exponential\", \"lognormal\", \"pareto\", \"empirical\", \"trace\", got the string "
                "\"gamma\"",
                "$.network.latency.shape: unknown key"}));
}

TEST(NetworkConfig, ParameterErrorsCarryTheirExactPath) {
  EXPECT_TRUE(has_problem(parse({{"latency", {{"model", "uniform"}, {"min_ms", 1}}}}),
                          "$.network.latency.max_ms: required field is missing (expected a "
                          "number >= 0 and <= 1000000000)"));
  EXPECT_TRUE(has_problem(
      parse({{"latency", {{"model", "uniform"}, {"min_ms", 5}, {"max_ms", 2}}}}),
      "$.network.latency.max_ms: expected max_ms >= min_ms (5), got 2"));
  EXPECT_TRUE(has_problem(
      parse({{"latency", {{"model", "exponential"}, {"min_ms", 3}, {"mean_ms", 3}}}}),
      "$.network.latency.mean_ms: expected mean_ms > min_ms (3), got 3"));
  EXPECT_TRUE(has_problem(
      parse({{"latency", {{"model", "lognormal"}, {"min_ms", 3}, {"median_ms", 2}, {"sigma", 1}}}}),
      "$.network.latency.median_ms: expected median_ms > min_ms (3), got 2"));
  EXPECT_TRUE(has_problem(parse({{"latency", {{"model", "pareto"}, {"min_ms", 1}, {"alpha", 1}}}}),
                          "$.network.latency.alpha: expected a number > 1 and <= 1000000000, "
                          "got 1"));
  EXPECT_TRUE(has_problem(parse({{"latency", {{"model", "pareto"}, {"min_ms", 1}}}}),
                          "$.network.latency.alpha: required field is missing (expected a "
                          "number > 1)"));
  EXPECT_TRUE(has_problem(parse({{"latency", {{"model", "constant"}, {"ms", -1}}}}),
                          "$.network.latency.ms: expected a number >= 0 and <= 1000000000, got -1"));
  EXPECT_TRUE(has_problem(parse({{"loss", 1.5}}),
                          "$.network.loss: expected a number >= 0 and <= 1, got 1.5"));
  EXPECT_TRUE(has_problem(parse({{"retransmit_ms", 0}}),
                          "$.network.retransmit_ms: expected a number > 0 and <= 1000000000, got 0"));
}

TEST(NetworkConfig, EmpiricalFileProblemIsReportedOnTheFileKey) {
  const Parsed p = parse({{"latency", {{"model", "empirical"}, {"file", "nope.txt"}}}}, "/nonexistent");
  EXPECT_EQ(p.problems(), (std::vector<std::string>{"$.network.latency.file: /nonexistent/nope.txt: "
                                                    "cannot open the delay samples file"}));
}

TEST(NetworkConfig, LinkProblemsCarryTheirIndex) {
  const Parsed p = parse({{"links",
                           {{{"from", {9}}, {"loss", 0.1}},
                            {{"latncy", {{"model", "constant"}, {"ms", 1}}}},
                            {{"to", "west"}, {"loss", 2}}}}});
  const auto v = p.problems();
  EXPECT_TRUE(has_problem(p, "$.network.links[0].from[0]: expected a node index >= 0 and <= 3, "
                             "got 9"));
  EXPECT_TRUE(has_problem(p, "$.network.links[1]: a link override needs \"latency\", \"loss\" or "
                             "\"loss_model\""));
  EXPECT_TRUE(has_problem(p, "$.network.links[1].latncy: unknown key (did you mean 'latency'?)"));
  EXPECT_TRUE(has_problem(p, "$.network.links[2].loss: expected a number >= 0 and <= 1 or null, "
                             "got 2"));
  EXPECT_EQ(v.size(), 5u) << ::testing::PrintToString(v);  // + the unknown group "west"
}

}  // namespace
}  // namespace fdsim::net
