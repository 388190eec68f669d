// The JSON Schema of scenarios and sweeps (`fdsim schema`) and the generated tables of
// docs/scenario-format.md, against the loader: every shipped scenario and sweep validates with
// python3-jsonschema, known-bad files do not, the committed tables and schema files are what
// the binary generates, and the four disagreements issue 17 found are gone.

#include <algorithm>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/run/scenario_loader.h"
#include "sim/run/schema_explorer.h"
#include "sim/scenario/field_docs.h"
#include "sim/scenario/schema.h"
#include "sim/sweep/sweep_schema.h"
#include "tests/cli/fdsim_process.h"
#include "tests/run/scenario_files.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

const std::string kSource = FDSIM_SOURCE_DIR;
const std::string kPython = "/usr/bin/python3";
const std::string kValidator = kSource + "/tests/cli/validate_with_schema.py";

class SchemaFiles : public fdsim::test::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
    return dir_ + "/" + name;
  }
  // Writes `fdsim schema KIND` to a file and returns its path.
  std::string schema_file(const std::string& kind) const {
    const fdsim::test::Result r = fdsim("schema " + kind);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return write(kind + ".schema.json", r.out);
  }
  // Runs the python3-jsonschema validator; its output lines. Skips when it is not installed.
  struct Validation {
    int code = -1;
    std::vector<std::string> lines;
  };
  Validation validate(const std::string& schema, const std::vector<std::string>& files) const {
    std::string cmd = "'" + kPython + "' '" + kValidator + "' '" + schema + "'";
    for (const auto& f : files) cmd += " '" + f + "'";
    cmd += " > '" + dir_ + "/.validation' 2>&1";
    const int status = std::system(cmd.c_str());
    Validation v;
    v.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(dir_ + "/.validation");
    for (std::string l; std::getline(in, l);) v.lines.push_back(l);
    return v;
  }
};

std::vector<std::string> shipped_sweeps() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kSource + "/scenarios")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    if (e.path().string().find("/scenarios/bench/") != std::string::npos) continue;
    std::ifstream in(e.path());
    const json doc = json::parse(in, nullptr, false);
    if (!doc.is_discarded() && fdsim::test::is_sweep_document(doc)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

#define SKIP_WITHOUT_JSONSCHEMA(v)                                                        \
  if ((v).code == 3) GTEST_SKIP() << "python3-jsonschema is not installed (quickstart.sh " \
                                     "installs it)"

TEST_F(SchemaFiles, EveryShippedScenarioValidates) {
  std::vector<std::string> files;
  for (const auto& rel : fdsim::test::shipped_scenarios()) files.push_back(kSource + "/" + rel);
  ASSERT_GT(files.size(), 20u);
  const Validation v = validate(schema_file("scenario"), files);
  SKIP_WITHOUT_JSONSCHEMA(v);
  EXPECT_EQ(v.code, 0);
  for (const auto& l : v.lines) EXPECT_EQ(l.substr(l.size() - 4), ": ok") << l;
  EXPECT_EQ(v.lines.size(), files.size());
}

TEST_F(SchemaFiles, EveryShippedSweepAndItsBaseValidates) {
  const std::vector<std::string> sweeps = shipped_sweeps();
  ASSERT_GE(sweeps.size(), 5u);
  const Validation v = validate(schema_file("sweep"), sweeps);
  SKIP_WITHOUT_JSONSCHEMA(v);
  EXPECT_EQ(v.code, 0);
  for (const auto& l : v.lines) EXPECT_EQ(l.substr(l.size() - 4), ": ok") << l;
  // Bases given as a file path are scenarios: validate them with the scenario schema.
  std::vector<std::string> bases;
  for (const auto& s : sweeps) {
    std::ifstream in(s);
    const json doc = json::parse(in);
    if (doc["base"].is_string())
      bases.push_back((fs::path(s).parent_path() / doc["base"].get<std::string>()).string());
  }
  ASSERT_FALSE(bases.empty());
  const Validation b = validate(schema_file("scenario"), bases);
  EXPECT_EQ(b.code, 0);
  for (const auto& l : b.lines) EXPECT_EQ(l.substr(l.size() - 4), ": ok") << l;
}

TEST_F(SchemaFiles, KnownBadFilesFailBothTheSchemaAndTheLoader) {
  const std::string head = R"("name": "x", "horizon_s": 10, "nodes": {"count": 3})";
  const std::string arms = R"("arms": [{"name": "a", "detector": {"kind": "fixed"}}])";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"misspelt.json", "{" + head + R"(, "sead": 4, "detectors": {)" + arms + "}}"},
      {"bad-enum.json", "{" + head + R"(, "detectors": {"arms": [{"name": "a", "detector": {"kind": "psychic"}}]}})"},
      {"other-variant-key.json",
       "{" + head + R"(, "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed", "window": 3}}]}})"},
      {"range.json", "{" + head + R"(, "detectors": {"heartbeat_period_ms": 0, )" + arms + "}}"},
      {"missing-horizon.json",
       R"({"name": "x", "nodes": {"count": 3}, "detectors": {)" + arms + "}}"},
      {"exclusive-bound.json",
       "{" + head + R"(, "detectors": {"arms": [{"name": "a", "detector": {"kind": "quantile", "alpha": 1}}]}})"},
      {"unplaced.json",
       "{" + head + R"(, "workload": {}, "load_sharing": {"unplaced": "run"}})"},
      {"variant-value.json",
       "{" + head + R"(, "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed", "timeout_ms": -5}}]}})"},
  };
  std::vector<std::string> files;
  for (const auto& [name, text] : bad) files.push_back(write(name, text));
  const Validation v = validate(schema_file("scenario"), files);
  SKIP_WITHOUT_JSONSCHEMA(v);
  EXPECT_EQ(v.code, 1);
  ASSERT_EQ(v.lines.size(), bad.size());
  for (const auto& l : v.lines) EXPECT_NE(l.find(": invalid: "), std::string::npos) << l;
  // A bad value of a variant's key is reported at the key, once: not also as an "unexpected"
  // key of its object (issue 28: the messages cascaded).
  EXPECT_NE(v.lines.back().find("variant-value.json: invalid: $.detectors.arms[0].detector."
                                "timeout_ms: -5 is less than"),
            std::string::npos)
      << v.lines.back();
  EXPECT_NE(v.lines[2].find("other-variant-key.json: invalid: $.detectors.arms[0].detector: "
                            "'window' is not one of"),
            std::string::npos)
      << v.lines[2];
  for (const auto& f : files) {
    const fdsim::test::Result r = fdsim("validate '" + f + "'");
    EXPECT_EQ(r.code, 2) << f;
  }
  // And a sweep whose range has a step of 0.
  const std::string sweep = write(
      "sweep.json", R"({"base": "misspelt.json", "axes": [{"path": "$.seed", "values": {"from": 1, "to": 3, "step": 0}}]})");
  const Validation s = validate(schema_file("sweep"), {sweep});
  EXPECT_EQ(s.code, 1);
}

TEST_F(SchemaFiles, CommittedSchemaFilesAndDocumentTablesAreWhatTheBinaryGenerates) {
  for (const char* kind : {"scenario", "sweep"}) {
    const fdsim::test::Result r = fdsim(std::string("schema ") + kind);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(fdsim::test::slurp(kSource + "/docs/schema/" + kind + ".schema.json"), r.out)
        << "run scripts/update-format-tables.sh";
  }
  const fdsim::test::Result md = fdsim("schema scenario --markdown");
  ASSERT_EQ(md.code, 0) << md.err;
  const std::string doc = fdsim::test::slurp(kSource + "/docs/scenario-format.md");
  // Every generated block appears verbatim in the document.
  const std::string end = "<!-- end of generated table -->\n";
  size_t blocks = 0;
  for (size_t at = md.out.find("<!-- generated table: "); at != std::string::npos;
       at = md.out.find("<!-- generated table: ", at + 1)) {
    const size_t stop = md.out.find(end, at);
    ASSERT_NE(stop, std::string::npos);
    const std::string block = md.out.substr(at, stop + end.size() - at);
    EXPECT_NE(doc.find(block), std::string::npos)
        << "docs/scenario-format.md lacks or differs from this generated table (run "
           "scripts/update-format-tables.sh):\n"
        << block;
    ++blocks;
  }
  EXPECT_EQ(blocks, fdsim::scenario::scenario_doc_tables().size());
}

// ---------------------------------------------------------------------------------------------
// In-process: the builder's own consistency checks and the known disagreements.

class SchemaContent : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shapes_ = new fdsim::scenario::Shapes(fdsim::run::scenario_shapes());
    schema_ = new ordered_json(fdsim::scenario::scenario_schema(*shapes_, problems_));
    markdown_ = new std::string(fdsim::scenario::markdown_tables(*shapes_, problems_));
  }
  static void TearDownTestSuite() {
    delete shapes_;
    delete schema_;
    delete markdown_;
  }
  // The schema of a field in the branch of `variant` ("" = the object has no variants).
  static const ordered_json& property(const ordered_json& object, const std::string& key,
                                      const std::string& variant = "") {
    if (variant.empty()) return object.at("properties").at(key);
    for (const auto& b : object.at("allOf")) {
      const auto& cond = b.at("if").at("properties");
      if (cond.begin().value().at("const") == variant) return b.at("then").at("properties").at(key);
    }
    throw std::runtime_error("no variant " + variant);
  }
  static const ordered_json& at(const std::vector<std::string>& keys) {
    const ordered_json* o = schema_;
    for (const auto& k : keys) {
      if (k == "[]") {
        o = &o->at("items");
      } else {
        o = &o->at("properties").at(k);
      }
    }
    return *o;
  }
  static fdsim::scenario::Shapes* shapes_;
  static ordered_json* schema_;
  static std::string* markdown_;
  static std::vector<std::string> problems_;
};
fdsim::scenario::Shapes* SchemaContent::shapes_ = nullptr;
ordered_json* SchemaContent::schema_ = nullptr;
std::string* SchemaContent::markdown_ = nullptr;
std::vector<std::string> SchemaContent::problems_;

TEST_F(SchemaContent, EveryFieldReadIsDescribedAndEveryDescriptionIsRead) {
  std::string all;
  for (const auto& p : problems_) all += "\n  " + p;
  EXPECT_TRUE(problems_.empty()) << all;
  std::vector<std::string> sweep_problems;
  (void)fdsim::sweep::sweep_schema(*shapes_, sweep_problems);
  EXPECT_TRUE(sweep_problems.empty());
}

TEST_F(SchemaContent, VariantsAreFoundByDiscriminator) {
  EXPECT_EQ(shapes_->at("$.faults[]").discriminator, "kind");
  EXPECT_EQ(shapes_->at("$.faults[]").variants.size(), 13u);
  EXPECT_EQ(shapes_->at("$.network.latency").discriminator, "model");
  EXPECT_EQ(shapes_->at("$.detectors.arms[].detector").discriminator, "kind");
  EXPECT_EQ(shapes_->at("$.membership.neighbour_check[].detector").variants.size(), 7u);
  EXPECT_EQ(shapes_->at("$.load_sharing.arms[]").discriminator, "diagnosis");
  EXPECT_EQ(shapes_->at("$.workload.execution_overrides[]").discriminator, "distribution");
  EXPECT_EQ(shapes_->at("$.workload.deadline").discriminator, "kind");
  // Enumerations that do not change the keys read are plain fields.
  EXPECT_EQ(shapes_->at("$.membership").discriminator, "");
  EXPECT_EQ(shapes_->at("$.load_sharing").discriminator, "");
}

TEST_F(SchemaContent, TheFourDisagreementsOfIssue17AreResolvedFromTheLoader) {
  // unplaced: the loader's three values and default.
  const auto& unplaced = at({"load_sharing", "unplaced"});
  EXPECT_EQ(unplaced.at("enum"), ordered_json({"background", "in_order", "drop"}));
  EXPECT_EQ(unplaced.at("default"), "background");
  EXPECT_NE(markdown_->find("| `$.load_sharing.unplaced` | `\"background\"`, `\"in_order\"` or "
                            "`\"drop\"` | | `\"background\"` |"),
            std::string::npos);
  // th_f > th_u (a rule between fields: stated in the description and the table).
  EXPECT_NE(at({"load_sharing", "th_f"}).at("description").get<std::string>().find("> th_u"),
            std::string::npos);
  EXPECT_NE(markdown_->find("| `$.load_sharing.th_f` | number in [0, 10000], > th_u |"), std::string::npos);
  // timeout_ms of a fixed arm: > 0, not >= 0.
  const auto& arm = at({"load_sharing", "arms", "[]"});
  EXPECT_EQ(property(arm, "timeout_ms", "fixed").at("exclusiveMinimum"), 0.0);
  EXPECT_FALSE(property(arm, "timeout_ms", "fixed").contains("minimum"));
  EXPECT_NE(markdown_->find("| `$.load_sharing.arms[].timeout_ms` | number in (0, 1e12] |"),
            std::string::npos);
  // deadline.relative_s has its cap (kMaxTaskSeconds).
  const auto& deadline = at({"workload", "deadline"});
  EXPECT_EQ(property(deadline, "relative_s", "fixed").at("maximum"), 1e6);
  EXPECT_NE(markdown_->find("| `$.workload.deadline.relative_s` | number in (0, 1e6] |"),
            std::string::npos);
}

TEST_F(SchemaContent, BoundsDefaultsUnitsAndRequiredComeFromTheReaders) {
  EXPECT_EQ(at({"horizon_s"}).at("exclusiveMinimum"), 0.0);
  EXPECT_EQ(at({"horizon_s"}).at("maximum"), 1e9);
  EXPECT_EQ(at({"horizon_s"}).at("x-unit"), "s");
  EXPECT_EQ(schema_->at("required"), ordered_json({"name", "horizon_s", "nodes"}));
  EXPECT_EQ(schema_->at("additionalProperties"), false);
  EXPECT_EQ(at({"nodes", "count"}).at("maximum"), 10000000);
  EXPECT_EQ(at({"replications"}).at("default"), 1);
  EXPECT_EQ(at({"swim", "udp_buffer_bytes"}).at("maximum"), 65507);
  // A default that depends on another field has none in the schema, its rule in the text.
  EXPECT_FALSE(at({"membership", "heartbeat_period_ms"}).contains("default"));
  EXPECT_NE(at({"membership", "heartbeat_period_ms"}).at("description").get<std::string>().find(
                "M/2"),
            std::string::npos);
  const auto& quantile = at({"detectors", "arms", "[]", "detector"});
  EXPECT_EQ(property(quantile, "alpha", "quantile").at("exclusiveMaximum"), 1.0);
  EXPECT_EQ(property(quantile, "window", "nfd_e").at("default"), 100);
  EXPECT_EQ(property(quantile, "window", "phi_accrual").at("default"), 1000);
  EXPECT_EQ(quantile.at("required"), ordered_json({"kind"}));
  // Each variant lists its keys (propertyNames) apart from their values (issue 28).
  EXPECT_FALSE(quantile.contains("unevaluatedProperties"));
  bool listed = false;
  for (const auto& branch : quantile.at("allOf"))
    if (branch.at("if").at("properties").at("kind").at("const") == "quantile") {
      const auto& names = branch.at("then").at("propertyNames").at("enum");
      listed = std::find(names.begin(), names.end(), "alpha") != names.end() &&
               std::find(names.begin(), names.end(), "kind") != names.end();
    }
  EXPECT_TRUE(listed);
}

TEST(SchemaKey, IsAcceptedIgnoredAndLeavesTheHashAlone) {
  json doc = json::parse(R"({"name": "x", "horizon_s": 10, "nodes": {"count": 3},
      "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed"}}]}})");
  const auto plain = fdsim::run::load_scenario_json(doc, "x.json", ".");
  ASSERT_TRUE(plain.ok());
  doc["$schema"] = "../docs/schema/scenario.schema.json";
  const auto with = fdsim::run::load_scenario_json(doc, "x.json", ".");
  ASSERT_TRUE(with.ok()) << with.problems[0];
  EXPECT_EQ(with.scenario->resolved, plain.scenario->resolved);
  doc["$schema"] = 5;
  const auto bad = fdsim::run::load_scenario_json(doc, "x.json", ".");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_EQ(bad.problems[0],
            "x.json: $.$schema: expected a string (the URL or path of a JSON Schema), got 5");
}

TEST_F(SchemaFiles, SchemaCommandRejectsUnknownKindsAndMarkdownForSweeps) {
  EXPECT_EQ(fdsim("schema bogus").code, 2);
  EXPECT_EQ(fdsim("schema sweep --markdown").code, 2);
  const fdsim::test::Result r = fdsim("schema --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  const json s = json::parse(fdsim("schema sweep").out);
  EXPECT_EQ(s.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
  EXPECT_TRUE(s.at("$defs").contains("scenario"));
}

}  // namespace
