#pragma once
// Small helpers for sweep tests: a scratch directory removed at the end, file I/O.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fdsim::sweep::testing {

class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (std::filesystem::path(::testing::TempDir()) / "fdsim-sweep-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Names of the files in dir (sorted).
inline std::set<std::string> file_names(const std::filesystem::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.insert(it->path().filename().string());
  return names;
}

// Result files (<id>.json, not errors, not temp files) in dir.
inline std::set<std::string> result_files(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& n : file_names(dir)) {
    if (n.size() == 21 && n.compare(16, 5, ".json") == 0) out.insert(n);
  }
  return out;
}

}  // namespace fdsim::sweep::testing
