// The sweep schema (`fdsim schema sweep`) is generated from the sweep reader: the fields the
// reader records are exactly the schema's properties, a field read without a description (or a
// description of no field) is a builder problem, recording does not change what the reader
// reports, and every form of a sweep (list, range, geometric range, zip, both conditions,
// path and inline base) validates with python3-jsonschema while broken ones do not.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/run/schema_explorer.h"
#include "sim/sweep/sweep_explorer.h"
#include "sim/sweep/sweep_schema.h"
#include "sim/sweep/sweep_spec.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using fdsim::scenario::FieldSpec;
using fdsim::scenario::ObjectRecord;

std::set<std::string> keys_of(const ordered_json& object) {
  std::set<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) out.insert(it.key());
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

bool has_problem(const std::vector<std::string>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p == text; });
}

// The schema of a definition ("$" = the root).
const ordered_json& definition(const ordered_json& schema, const std::string& def) {
  return def == "$" ? schema : schema.at("$defs").at(def);
}

TEST(SweepSchemaGeneration, RecordedFieldsAreExactlyTheSchemaProperties) {
  const std::vector<ObjectRecord> records = fdsim::sweep::explore_sweep_fields();
  std::vector<std::string> problems;
  const ordered_json schema = fdsim::sweep::sweep_schema_from(records, {}, problems);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  std::map<std::string, std::set<std::string>> recorded;  // definition -> keys (typed for ranges)
  for (const auto& r : records) {
    const std::string def = fdsim::sweep::sweep_definition_of(r);
    ASSERT_NE(def, "") << r.path;
    for (const auto& [key, spec] : r.fields)
      if (spec.type != FieldSpec::Type::any || (def != "range" && def != "geometric_range"))
        recorded[def].insert(key);
  }
  const std::map<std::string, std::set<std::string>> expected = {
      {"$", {"$schema", "name", "description", "replications", "base", "axes", "constraint"}},
      {"axis", {"path", "values", "name", "calibrate"}},
      {"calibration", {"arm", "metric", "target", "tolerance_rel", "bracket",
                       "pilot_replications", "max_iterations", "linked"}},
      {"linked_leaf", {"path", "scale", "offset"}},
      {"zip", {"zip"}},
      {"range", {"from", "to", "step"}},
      {"geometric_range", {"from", "to", "factor"}},
      {"condition", {"path", "op", "value", "other_path"}},
  };
  EXPECT_EQ(recorded, expected);
  for (const auto& [def, keys] : recorded) {
    const ordered_json& d = definition(schema, def);
    EXPECT_EQ(keys_of(d.at("properties")), keys) << def;
    EXPECT_EQ(d.at("additionalProperties"), false) << def;
  }
}

TEST(SweepSchemaGeneration, TypesBoundsRequiredAndDefaultsComeFromTheReader) {
  std::vector<std::string> problems;
  const ordered_json s =
      fdsim::sweep::sweep_schema_from(fdsim::sweep::explore_sweep_fields(), {}, problems);
  EXPECT_EQ(s.at("required"), ordered_json({"base", "axes"}));
  const ordered_json& reps = s.at("properties").at("replications");
  EXPECT_EQ(reps.at("type"), "integer");
  EXPECT_EQ(reps.at("minimum"), 1);
  EXPECT_EQ(reps.at("maximum"), 1000000);
  EXPECT_FALSE(reps.contains("default"));  // absent: each point's own
  EXPECT_NE(reps.at("description").get<std::string>().find("Default: each point's own"),
            std::string::npos);
  // The default of "name" is the file's stem: no constant default, its rule in the text.
  EXPECT_FALSE(s.at("properties").at("name").contains("default"));
  EXPECT_EQ(s.at("properties").at("description").at("default"), "");
  EXPECT_EQ(s.at("properties").at("axes").at("minItems"), 1);
  const auto& defs = s.at("$defs");
  // "values" or "calibrate": exactly one (oneOf), checked by hand by the reader.
  EXPECT_EQ(defs.at("axis").at("required"), ordered_json({"path"}));
  EXPECT_EQ(defs.at("axis").at("oneOf"),
            ordered_json::parse(R"([{"required": ["values"]}, {"required": ["calibrate"]}])"));
  EXPECT_EQ(defs.at("calibration").at("required"), ordered_json({"metric", "target", "bracket"}));
  EXPECT_EQ(defs.at("calibration").at("properties").at("tolerance_rel").at("default"), 0.002);
  EXPECT_EQ(defs.at("calibration").at("properties").at("pilot_replications").at("maximum"), 1000);
  EXPECT_EQ(defs.at("zip").at("required"), ordered_json({"zip"}));
  EXPECT_EQ(defs.at("range").at("required"), ordered_json({"from", "to", "step"}));
  EXPECT_EQ(defs.at("range").at("properties").at("step").at("exclusiveMinimum"), 0.0);
  EXPECT_EQ(defs.at("geometric_range").at("required"), ordered_json({"from", "to", "factor"}));
  EXPECT_EQ(defs.at("geometric_range").at("properties").at("factor").at("exclusiveMinimum"), 1.0);
  EXPECT_EQ(defs.at("geometric_range").at("properties").at("from").at("exclusiveMinimum"), 0);
  EXPECT_EQ(defs.at("condition").at("required"), ordered_json({"path", "op"}));
  EXPECT_EQ(defs.at("condition").at("properties").at("op").at("enum"),
            ordered_json({"==", "!=", "<", "<=", ">", ">="}));
  EXPECT_FALSE(defs.at("condition").at("properties").at("other_path").contains("default"));
}

TEST(SweepSchemaGeneration, AFieldReadWithoutADescriptionIsABuilderProblem) {
  std::vector<ObjectRecord> records = fdsim::sweep::explore_sweep_fields();
  // As if the reader had gained r.string("notes", "") with no entry in sweep_field_docs.cpp.
  FieldSpec notes;
  notes.type = FieldSpec::Type::string;
  notes.has_default = true;
  notes.def = "";
  size_t roots = 0;
  for (auto& r : records) {
    if (r.path != "$") continue;
    r.fields.emplace_back("notes", notes);
    ++roots;
  }
  ASSERT_GT(roots, 0u);
  std::vector<std::string> problems;
  const ordered_json s = fdsim::sweep::sweep_schema_from(records, {}, problems);
  EXPECT_TRUE(has_problem(problems,
                          "$.notes: no description in sim/sweep/sweep_field_docs.cpp"))
      << joined(problems);
  EXPECT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_TRUE(s.at("properties").contains("notes"));  // the field is in the schema anyway

  // A field the reader no longer reads leaves a description of nothing.
  records = fdsim::sweep::explore_sweep_fields();
  for (auto& r : records)
    std::erase_if(r.fields, [](const auto& f) { return f.first == "other_path"; });
  problems.clear();
  (void)fdsim::sweep::sweep_schema_from(records, {}, problems);
  EXPECT_TRUE(has_problem(problems, "<condition>.other_path: described in "
                                    "sim/sweep/sweep_field_docs.cpp but the sweep reader does "
                                    "not read it"))
      << joined(problems);

  // An object the builder has no definition for.
  records = fdsim::sweep::explore_sweep_fields();
  records.push_back(ObjectRecord{"$.extra", "$.extra", {}, {}, {}});
  problems.clear();
  (void)fdsim::sweep::sweep_schema_from(records, {}, problems);
  EXPECT_EQ(problems.size(), 1u) << joined(problems);
}

TEST(SweepSchemaGeneration, RecordingDoesNotChangeWhatTheReaderReports) {
  const json bad = json::parse(R"({"base": {"name": "x"}, "replications": 0, "sead": 1,
      "axes": [{"path": "$.seed", "values": {"from": 3, "to": 1, "step": 1}},
               {"zip": [{"path": "$.a", "values": []}], "path": "$.b"}],
      "constraint": [{"path": "$.seed", "op": "<", "value": 1, "other_path": "$.x"}]})");
  const auto plain = fdsim::sweep::parse_sweep(bad, "s.json");
  fdsim::scenario::FieldRecorder recorder;
  const auto recorded = fdsim::sweep::parse_sweep(bad, "s.json", &recorder);
  EXPECT_GE(plain.problems.size(), 5u) << joined(plain.problems);
  EXPECT_EQ(recorded.problems, plain.problems);
  EXPECT_FALSE(recorder.objects.empty());
}

// python3-jsonschema on sweeps of every form, against the generated schema.
class SweepSchemaValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-sweep-schema-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
    return dir_ + "/" + name;
  }
  // Exit code of the validator; its output lines in *lines.
  int validate(const std::vector<std::string>& files, std::vector<std::string>* lines) const {
    std::vector<std::string> problems;
    const ordered_json schema =
        fdsim::sweep::sweep_schema(fdsim::run::scenario_shapes(), problems);
    EXPECT_TRUE(problems.empty()) << joined(problems);
    const std::string schema_path = write("sweep.schema.json", schema.dump(2));
    std::string cmd = "/usr/bin/python3 '" + std::string(FDSIM_SOURCE_DIR) +
                      "/tests/cli/validate_with_schema.py' '" + schema_path + "'";
    for (const auto& f : files) cmd += " '" + f + "'";
    cmd += " > '" + dir_ + "/.out' 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir_ + "/.out");
    for (std::string l; std::getline(in, l);) lines->push_back(l);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string dir_;
};

TEST_F(SweepSchemaValidation, EveryFormValidatesAndBrokenOnesDoNot) {
  const std::string base =
      R"({"name": "x", "horizon_s": 10, "nodes": {"count": 3},
          "detectors": {"arms": [{"name": "a", "detector": {"kind": "fixed"}}]}})";
  write("base.json", base);
  const std::string axes =
      R"("axes": [{"path": "$.seed", "values": [1, 2]},
                  {"path": "$.horizon_s", "values": {"from": 10, "to": 30, "step": 10}},
                  {"zip": [{"path": "$.warmup_s", "values": {"from": 1, "to": 4, "factor": 2}},
                           {"path": "$.description", "values": ["a", "b", "c"]}]}])";
  const std::string constraint =
      R"("constraint": [{"path": "$.seed", "op": "<", "value": 2},
                        {"path": "$.warmup_s", "op": "<", "other_path": "$.horizon_s"}])";
  std::vector<std::string> good;
  for (const auto& b : {std::string("\"base.json\""), base}) {
    const std::string text = R"({"$schema": "s", "name": "n", "description": "d",
        "replications": 3, "base": )" + b + ", " + axes + ", " + constraint + "}";
    const std::string f = write("good" + std::to_string(good.size()) + ".json", text);
    const auto outcome = fdsim::sweep::load_sweep_file(f);
    EXPECT_TRUE(outcome.ok()) << joined(outcome.problems);
    good.push_back(f);
  }
  std::vector<std::string> lines;
  const int code = validate(good, &lines);
  if (code == 3) GTEST_SKIP() << "python3-jsonschema is not installed";
  EXPECT_EQ(code, 0) << joined(lines);

  const std::string head = R"({"base": "base.json", )";
  const std::vector<std::string> bad = {
      head + R"("axes": []})",
      head + R"("axes": [{"path": "$.seed", "values": []}]})",
      head + R"("axes": [{"path": "seed", "values": [1]}]})",
      head + R"("axes": [{"path": "$.seed", "values": {"from": 1, "to": 8, "factor": 1}}]})",
      head + R"("axes": [{"path": "$.seed", "values": {"from": 0, "to": 8, "factor": 2}}]})",
      head + R"("axes": [{"path": "$.seed", "values": {"from": 1, "to": 8, "step": 1, "factor": 2}}]})",
      head + R"("axes": [{"zip": [{"path": "$.seed", "values": [1]}], "path": "$.x"}]})",
      head + R"("axes": [{"path": "$.seed", "values": [1]}], "constraint": [{"path": "$.seed", "op": "<", "value": 1, "other_path": "$.x"}]})",
      head + R"("axes": [{"path": "$.seed", "values": [1]}], "constraint": [{"path": "$.seed", "op": "=<", "value": 1}]})",
      head + R"("axes": [{"path": "$.seed", "values": [1]}], "replications": 0})",
      R"({"base": {"name": "x", "horizon_s": 10, "nodes": {"count": 3}, "sead": 1}, "axes": [{"path": "$.seed", "values": [1]}]})",
  };
  std::vector<std::string> files;
  for (size_t i = 0; i < bad.size(); ++i) {
    files.push_back(write("bad" + std::to_string(i) + ".json", bad[i]));
    // The reader rejects each as well (the inline base only when a point is loaded).
    if (i + 1 < bad.size()) {
      EXPECT_FALSE(fdsim::sweep::load_sweep_file(files.back()).ok()) << i;
    }
  }
  lines.clear();
  EXPECT_EQ(validate(files, &lines), 1);
  ASSERT_EQ(lines.size(), bad.size()) << joined(lines);
  for (const auto& l : lines) EXPECT_NE(l.find(": invalid: "), std::string::npos) << l;
}

}  // namespace
