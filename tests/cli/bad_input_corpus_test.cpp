// The bad-input corpus (tests/cli/bad_input/) through the real fdsim binary: every malformed
// scenario is rejected by `fdsim run` and by `fdsim validate` with exit code 2, with exactly the
// stderr lines pinned in tests/cli/bad_input/expected.tsv (path, JSON path and message; one line
// per problem, nothing else: no stack trace, no stdout), and `fdsim run` leaves no output behind.
//
// expected.tsv: one line per corpus entry, "<file name>\t<line>[ || <line>...]", where each
// <line> is the full stderr line as printed when fdsim is given the path
// "tests/cli/bad_input/<file name>" from the repository root. Lines starting with '#' are
// comments. Every entry of the directory (but expected.tsv) must have a line and vice versa.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/fdsim_process.h"

namespace {

namespace fs = std::filesystem;

using fdsim::test::Result;
const std::string kSourceDir = FDSIM_SOURCE_DIR;
const std::string kCorpusDir = "tests/cli/bad_input";  // relative to the repository root
const std::string kExpectedFile = "expected.tsv";
constexpr size_t kMinCorpusFiles = 30;

struct CorpusCase {
  std::string file;                 // name inside kCorpusDir
  std::vector<std::string> lines;   // the exact stderr lines
};

void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.file; }

std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + sep.size())
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

// Parses expected.tsv; malformed lines become cases with no expected line (which then fail).
std::vector<CorpusCase> load_expected() {
  std::vector<CorpusCase> cases;
  std::ifstream in(kSourceDir + "/" + kCorpusDir + "/" + kExpectedFile);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      cases.push_back({line, {}});
      continue;
    }
    cases.push_back({line.substr(0, tab), split(line.substr(tab + 1), " || ")});
  }
  return cases;
}

// A fresh temporary directory, removed (with everything in it) at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-badinput-XXXXXX").string();
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (const auto& e : fs::recursive_directory_iterator(path_, ec))
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Result fdsim(const std::string& cwd, const std::string& args, const std::string& capture_dir) {
  return ::fdsim::test::run_fdsim(cwd, args, capture_dir);
}

// Entries of `dir` (files and directories), by name.
std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Asserts the common contract of a rejected input: exit 2, exactly `expected` on stderr, nothing
// on stdout.
void expect_rejected(const Result& r, const std::vector<std::string>& expected,
                     const std::string& what) {
  EXPECT_EQ(r.code, 2) << what << "\nstderr:\n" << r.err;
  EXPECT_EQ(r.err_lines(), expected) << what;
  EXPECT_TRUE(r.err.empty() || r.err.back() == '\n') << what << ": stderr ends mid-line";
  EXPECT_TRUE(r.out.empty()) << what << ": stdout should be empty, got:\n" << r.out;
}

class BadInputCorpus : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(BadInputCorpus, RunExitsTwoWithExactLinesAndWritesNothing) {
  const CorpusCase& c = GetParam();
  ASSERT_FALSE(c.lines.empty()) << kExpectedFile << ": no expected line for " << c.file;
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string out_dir = tmp.path() + "/out";
  const Result r =
      fdsim(kSourceDir, "run '" + kCorpusDir + "/" + c.file + "' --out '" + out_dir + "'",
            tmp.path());
  expect_rejected(r, c.lines, "fdsim run " + c.file);
  EXPECT_TRUE(!fs::exists(out_dir) || (fs::is_directory(out_dir) && fs::is_empty(out_dir)))
      << "fdsim run " << c.file << " left output behind in " << out_dir << ": "
      << ::testing::PrintToString(entries_of(out_dir));
}

TEST_P(BadInputCorpus, ValidateExitsTwoWithTheSameLines) {
  const CorpusCase& c = GetParam();
  ASSERT_FALSE(c.lines.empty()) << kExpectedFile << ": no expected line for " << c.file;
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const Result r = fdsim(kSourceDir, "validate '" + kCorpusDir + "/" + c.file + "'", tmp.path());
  expect_rejected(r, c.lines, "fdsim validate " + c.file);
}

// "top_name_missing.json" -> "top_name_missing"; other characters a test name cannot hold -> '_'.
std::string case_name(const ::testing::TestParamInfo<CorpusCase>& info) {
  std::string name = info.param.file;
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
    name.resize(name.size() - 5);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name.empty() ? "empty_name_" + std::to_string(info.index) : name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputCorpus, ::testing::ValuesIn(load_expected()), case_name);

TEST(BadInputCorpusFiles, AtLeastThirtyFilesEachWithExactlyOneExpectedEntry) {
  const std::string dir = kSourceDir + "/" + kCorpusDir;
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  std::set<std::string> on_disk;
  for (const auto& name : entries_of(dir))
    if (name != kExpectedFile) on_disk.insert(name);

  std::set<std::string> expected;
  for (const auto& c : load_expected()) {
    EXPECT_TRUE(expected.insert(c.file).second) << kExpectedFile << ": " << c.file << " twice";
    EXPECT_FALSE(c.lines.empty()) << kExpectedFile << ": " << c.file << " has no expected line";
    for (const auto& l : c.lines)
      EXPECT_EQ(l.rfind(kCorpusDir + "/" + c.file + ": ", 0), 0u)
          << kExpectedFile << ": a line of " << c.file << " does not start with its path: " << l;
  }

  EXPECT_GE(on_disk.size(), kMinCorpusFiles);
  for (const auto& name : on_disk)
    EXPECT_TRUE(expected.count(name)) << name << " is in " << kCorpusDir << " but not in "
                                      << kExpectedFile;
  for (const auto& name : expected)
    EXPECT_TRUE(on_disk.count(name)) << name << " is in " << kExpectedFile << " but not in "
                                     << kCorpusDir;
}

// The directory-instead-of-a-file case is a real directory in the corpus (a_directory.json/);
// make sure it stayed one (a checkout that dropped it would turn the case into "missing file").
TEST(BadInputCorpusFiles, DirectoryCaseIsARealDirectory) {
  EXPECT_TRUE(fs::is_directory(kSourceDir + "/" + kCorpusDir + "/a_directory.json"));
}

// A file the user may not read (created here: git cannot store a mode-000 file).
TEST(BadInputCorpusFiles, UnreadableFile_ExitTwoPermissionDeniedAndNoOutput) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: root can read a chmod-000 file, so there is nothing to test";
  }
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string name = "unreadable.json";
  fs::copy_file(kSourceDir + "/scenarios/examples/heartbeat-study.json", tmp.path() + "/" + name);
  ASSERT_EQ(::chmod((tmp.path() + "/" + name).c_str(), 0), 0);
  const std::vector<std::string> expected = {name + ": cannot read the file (Permission denied)"};

  const Result run = fdsim(tmp.path(), "run " + name + " --out out", tmp.path());
  expect_rejected(run, expected, "fdsim run " + name);
  EXPECT_FALSE(fs::exists(tmp.path() + "/out"));

  const Result validate = fdsim(tmp.path(), "validate " + name, tmp.path());
  expect_rejected(validate, expected, "fdsim validate " + name);
}

}  // namespace
