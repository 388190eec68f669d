#pragma once
// Where the lines of a protocol-event trace go: memory (tests, small runs) or a file that is
// written as the simulation goes, so a long traced run needs memory for one line, not for the
// whole trace.
//
// Contract of TraceFile:
// - Lines stream through a 1 MiB buffer into a temporary file next to the final path
//   (".<name>.tmp.<host>.<pid>.<n>", the naming of write_file_atomic); commit() fsyncs it and renames
//   it over the final path, so the trace file either appears whole or not at all, even if the
//   process is killed. Destroying an uncommitted TraceFile removes the temporary.
// - A failed write (a full disk, an I/O error) throws std::runtime_error("cannot write
//   <path>: <reason>") from write_line(): the simulation stops at once and the run fails as
//   an internal error instead of running to the horizon for nothing.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace fdsim::run {

class TraceOutput {
 public:
  virtual ~TraceOutput() = default;
  virtual void write_line(const std::string& line) = 0;
};

class TraceLines : public TraceOutput {
 public:
  explicit TraceLines(std::vector<std::string>& lines) : lines_(lines) {}
  void write_line(const std::string& line) override { lines_.push_back(line); }

 private:
  std::vector<std::string>& lines_;
};

class TraceFile : public TraceOutput {
 public:
  // Opens the temporary file for `path`; on failure returns null and sets *error.
  static std::unique_ptr<TraceFile> open(const std::string& path, std::string* error);
  ~TraceFile() override;
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  void write_line(const std::string& line) override;
  // Flushes, fsyncs and renames into place. Returns "" or the error (the temporary is removed).
  std::string commit();
  const std::string& path() const { return path_; }
  // Tests only: the underlying stream (to point it at /dev/full).
  std::FILE* stream_for_test() { return file_; }

 private:
  TraceFile(std::string path, std::string temp, std::FILE* f);
  [[noreturn]] void fail(int err);

  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  bool committed_ = false;
};

}  // namespace fdsim::run
