// File-level problems of scenario input: syntax errors with line and column, empty files,
// directories, unreadable files, duplicate keys, numbers out of double range.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/scenario/json_document.h"

namespace fdsim::scenario {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fdsim-jsondoc-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> errors_of(const std::string& text) {
  return parse_json_text(text, "x.json").errors;
}

TEST(JsonDocument, ValidObject_ParsesWithoutErrors) {
  const JsonDocument d = parse_json_text(R"({"a": [1, 2, {"b": null}], "c": "d"})", "x.json");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.doc->dump(), R"({"a":[1,2,{"b":null}],"c":"d"})");
}

TEST(JsonDocument, SyntaxError_ReportsLineAndColumn) {
  EXPECT_EQ(errors_of("{\n  \"a\": 1,\n  x}"),
            std::vector<std::string>{
                "x.json: line 3, column 3: syntax error while parsing object key - invalid "
                "literal; last read: '1,<U+000A>  x'; expected string literal"});
}

TEST(JsonDocument, MissingComma_ReportsLineAndColumn) {
  // nlohmann/json points at the end of the offending token ("b" ends in column 5).
  EXPECT_EQ(errors_of("{\n  \"a\": 1\n  \"b\": 2\n}"),
            std::vector<std::string>{"x.json: line 3, column 5: syntax error while parsing object "
                                     "- unexpected string literal; expected '}'"});
}

TEST(JsonDocument, TrailingGarbage_IsAnError) {
  const auto e = errors_of("{\"a\": 1} x");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.json: line 1, column 10: syntax error while parsing value", 0), 0u)
      << e[0];
}

TEST(JsonDocument, BareNaN_IsASyntaxError) {
  const auto e = errors_of("{\"horizon_s\": NaN}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("x.json: line 1, column 15: syntax error while parsing value - invalid "
                       "literal",
                       0),
            0u)
      << e[0];
}

TEST(JsonDocument, NumberBeyondDoubleRange_IsAnErrorWithPosition) {
  EXPECT_EQ(errors_of("{\n\"horizon_s\": 1e400}"),
            std::vector<std::string>{"x.json: line 2, column 18: number overflow parsing '1e400'"});
}

TEST(JsonDocument, EmptyOrBlankText_IsReportedAsEmpty) {
  EXPECT_EQ(errors_of(""),
            std::vector<std::string>{"x.json: the file is empty (expected a JSON object)"});
  EXPECT_EQ(errors_of(" \n\t\r\n"),
            std::vector<std::string>{"x.json: the file is empty (expected a JSON object)"});
}

TEST(JsonDocument, DuplicateKeys_AreReportedAtEveryDepthWithTheirPath) {
  EXPECT_EQ(errors_of(R"({"seed": 1, "nodes": {"count": 3, "count": 4},
                          "faults": [{"kind": "crash"}, {"kind": "crash", "kind": "pause"}],
                          "seed": 2})"),
            (std::vector<std::string>{
                "x.json: $.nodes.count: duplicate key (each key may appear only once in an "
                "object)",
                "x.json: $.faults[1].kind: duplicate key (each key may appear only once in an "
                "object)",
                "x.json: $.seed: duplicate key (each key may appear only once in an object)"}));
}

TEST(JsonDocument, InvalidUtf8_IsASyntaxError) {
  const auto e = errors_of("{\"name\": \"\xff\"}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("ill-formed UTF-8"), std::string::npos) << e[0];
}

TEST(JsonDocumentFile, MissingFile_SaysWhy) {
  EXPECT_EQ(read_json_file("/nonexistent/fdsim/x.json").errors,
            std::vector<std::string>{
                "/nonexistent/fdsim/x.json: cannot read the file (No such file or directory)"});
}

TEST(JsonDocumentFile, Directory_IsRejected) {
  TempDir dir;
  EXPECT_EQ(read_json_file(dir.path()).errors,
            std::vector<std::string>{dir.path() + ": is a directory, not a file"});
}

TEST(JsonDocumentFile, EmptyFile_IsRejected) {
  TempDir dir;
  const std::string p = dir.write("empty.json", "");
  EXPECT_EQ(read_json_file(p).errors,
            std::vector<std::string>{p + ": the file is empty (expected a JSON object)"});
}

TEST(JsonDocumentFile, UnreadableFile_SaysPermissionDenied) {
  TempDir dir;
  const std::string p = dir.write("secret.json", "{}");
  ASSERT_EQ(::chmod(p.c_str(), 0), 0);
  if (::access(p.c_str(), R_OK) == 0) {
    GTEST_SKIP() << "running with privileges that read a mode-000 file (root?)";
  }
  EXPECT_EQ(read_json_file(p).errors,
            std::vector<std::string>{p + ": cannot read the file (Permission denied)"});
}

TEST(JsonDocumentFile, SyntaxErrorInFile_IsPrefixedWithThePath) {
  TempDir dir;
  const std::string p = dir.write("bad.json", "{\"a\":\n");
  const auto e = read_json_file(p).errors;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(p + ": line 2, column 1: syntax error", 0), 0u) << e[0];
}

}  // namespace
}  // namespace fdsim::scenario
