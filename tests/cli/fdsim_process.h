#pragma once
// Runs the built fdsim binary as a user would (a shell command in a chosen directory) and
// captures its exit code, stdout and stderr. Shared by the CLI test files.

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

namespace fdsim::test {

inline const std::string kFdsim = FDSIM_BINARY_DIR "/fdsim";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int code = -1;  // the exit code, or -1 if fdsim did not exit normally (a crash)
  std::string out, err;
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
};

// Runs `fdsim <args>` (a shell-quoted string) in `cwd`; stdout and stderr go through files in
// `capture_dir`, which are removed afterwards (keep it apart from any directory under test).
inline Result run_fdsim(const std::string& cwd, const std::string& args,
                        const std::string& capture_dir) {
  const std::string out = capture_dir + "/.stdout", err = capture_dir + "/.stderr";
  const std::string cmd =
      "cd '" + cwd + "' && '" + kFdsim + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// A test fixture with a fresh temporary directory `dir_` (removed with everything in it after
// the test) and `fdsim(args)`, which runs the binary there, capturing its output in `dir_`.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fdsim-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << "cannot create " << tmpl;
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Result fdsim(const std::string& args) const { return run_fdsim(dir_, args, dir_); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  // `fdsim <args>` under `ulimit -v <kib>` (exit code, or -1 on a signal); output in out.txt
  // and err.txt.
  int capped(const std::string& args, long kib) const {
    const std::string cmd = "cd '" + dir_ + "' && ulimit -v " + std::to_string(kib) + " && '" +
                            kFdsim + "' " + args + " >out.txt 2>err.txt";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string file(const std::string& name) const { return slurp(dir_ + "/" + name); }
  std::string dir_;
};

}  // namespace fdsim::test
