// Every scenario shipped in scenarios/examples/loadsharing/ has workload and load_sharing
// sections that this model accepts without a problem (the run layer's own tests load and run
// whole scenarios; this one pins the model's part so a model change that breaks an example is
// caught here).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/loadsharing/ls_harness.h"

namespace fdsim::loadsharing {
namespace {

TEST(ExampleScenarios, LoadSharingSectionsParseWithoutProblems) {
  const std::filesystem::path dir =
      std::filesystem::path(FDSIM_SOURCE_DIR) / "scenarios/examples/loadsharing";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    std::ifstream in(f);
    const testing::json doc = testing::json::parse(in);
    ASSERT_TRUE(doc.contains("workload"));
    ASSERT_TRUE(doc.contains("load_sharing"));
    scenario::Diagnostics diag;
    testing::json resolved_nodes;
    scenario::ObjectReader nodes_reader(&doc["nodes"], "$.nodes", diag, resolved_nodes);
    const scenario::NodesConfig nodes = scenario::parse_nodes(nodes_reader);
    ASSERT_TRUE(diag.ok());
    std::vector<std::string> problems;
    const LoadSharingConfig cfg = testing::parse_sections(doc["workload"], doc["load_sharing"],
                                                          nodes, &problems, nullptr, dir.string());
    for (const auto& p : problems) ADD_FAILURE() << p;
    EXPECT_FALSE(cfg.arms.empty());
  }
}

}  // namespace
}  // namespace fdsim::loadsharing
