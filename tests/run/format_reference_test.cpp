// docs/scenario-format.md against the loaders: every field the loaders read while loading the
// shipped scenarios must be documented, and every documented field must be read by some loader
// on some shipped scenario (so the reference can neither lag behind the code nor describe
// fields nobody reads).
//
// The document's tables have the JSON path pattern in backquotes in their first column
// ("`$.faults[].at_s`"). Shared object formats are documented once as templates: rows
// "`<latency>.min_ms`" describe the fields of a `<latency>` object, and a row whose type column
// names "`<latency>`" mounts the template at its path ("`$.network.latency`"). A template field
// counts as read when it is read at any of its mount points.

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "sim/run/scenario_loader.h"
#include "tests/run/scenario_files.h"

namespace fdsim::run {
namespace {

struct Reference {
  std::set<std::string> concrete;                            // "$.faults[].at_s"
  std::map<std::string, std::set<std::string>> templates;    // "latency" -> {".min_ms", ...}
  std::map<std::string, std::set<std::string>> mounts;       // "latency" -> {"$.network.latency"}
};

Reference read_reference(const std::string& path) {
  Reference ref;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  const std::regex row(R"(^\|\s*`([^`]+)`\s*\|([^|]*)\|)");
  const std::regex mount(R"(`<([a-z_]+)>`)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    const std::string field = m[1];
    const std::string type = m[2];
    if (field.rfind("$", 0) == 0) {
      ref.concrete.insert(field);
      std::smatch t;
      if (std::regex_search(type, t, mount)) ref.mounts[t[1]].insert(field);
    } else if (field.rfind("<", 0) == 0) {
      const auto close = field.find('>');
      ref.templates[field.substr(1, close - 1)].insert(field.substr(close + 1));
    }
  }
  return ref;
}

std::set<std::string> fields_read_by_shipped_scenarios() {
  std::set<std::string> read;
  for (const auto& rel : test::shipped_scenarios()) {
    const LoadResult r = load_scenario_file(std::string(FDSIM_SOURCE_DIR) + "/" + rel, &read);
    EXPECT_TRUE(r.ok()) << rel << ": " << (r.problems.empty() ? "" : r.problems[0]);
  }
  return read;
}

class FormatReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ref_ = new Reference(read_reference(std::string(FDSIM_SOURCE_DIR) + "/docs/scenario-format.md"));
    read_ = new std::set<std::string>(fields_read_by_shipped_scenarios());
  }
  static void TearDownTestSuite() {
    delete ref_;
    delete read_;
  }
  // Documented either concretely or as a template field under a mount point.
  static bool documented(const std::string& path) {
    if (ref_->concrete.count(path)) return true;
    for (const auto& [name, fields] : ref_->templates)
      for (const auto& m : ref_->mounts[name])
        if (path.size() > m.size() && path.compare(0, m.size(), m) == 0 &&
            fields.count(path.substr(m.size())))
          return true;
    return false;
  }
  static Reference* ref_;
  static std::set<std::string>* read_;
};
Reference* FormatReference::ref_ = nullptr;
std::set<std::string>* FormatReference::read_ = nullptr;

TEST_F(FormatReference, TheDocumentAndTheScenariosAreThere) {
  EXPECT_GT(ref_->concrete.size(), 50u);
  EXPECT_GT(read_->size(), 50u);
  EXPECT_TRUE(ref_->templates.count("latency"));
  EXPECT_TRUE(ref_->templates.count("detector"));
}

TEST_F(FormatReference, EveryFieldReadIsDocumented) {
  std::string missing;
  for (const auto& f : *read_)
    if (!documented(f)) missing += "\n  " + f;
  EXPECT_TRUE(missing.empty()) << "read by a loader but not in docs/scenario-format.md:" << missing;
}

TEST_F(FormatReference, EveryDocumentedFieldIsReadBySomeShippedScenario) {
  std::string unread;
  for (const auto& f : ref_->concrete) {
    // "$.x.list[]" rows only mount a template on the elements of an array; the array itself
    // ("$.x.list") is its own row.
    if (f.size() > 2 && f.compare(f.size() - 2, 2, "[]") == 0) continue;
    if (!read_->count(f)) unread += "\n  " + f;
  }
  for (const auto& [name, fields] : ref_->templates) {
    for (const auto& rest : fields) {
      bool any = false;
      for (const auto& m : ref_->mounts[name]) any = any || read_->count(m + rest) > 0;
      if (!any) unread += "\n  <" + name + ">" + rest;
    }
    if (ref_->mounts[name].empty()) unread += "\n  <" + name + "> (template mounted nowhere)";
  }
  EXPECT_TRUE(unread.empty())
      << "documented in docs/scenario-format.md but read by no loader on any shipped scenario "
         "(fix the document, or add a scenario that uses the field):"
      << unread;
}

}  // namespace
}  // namespace fdsim::run
