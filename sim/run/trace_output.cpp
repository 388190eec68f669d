#include "sim/run/trace_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "sim/run/result_writer.h"

namespace fdsim::run {

namespace {
constexpr size_t kBufferBytes = size_t{1} << 20;
}

std::unique_ptr<TraceFile> TraceFile::open(const std::string& path, std::string* error) {
  const std::string temp = temporary_path_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::FILE* f = ::fdopen(fd, "w");
  if (f == nullptr) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(temp.c_str());
    return nullptr;
  }
  return std::unique_ptr<TraceFile>(new TraceFile(path, temp, f));
}

TraceFile::TraceFile(std::string path, std::string temp, std::FILE* f)
    : path_(std::move(path)), temp_(std::move(temp)), file_(f), buffer_(new char[kBufferBytes]) {
  std::setvbuf(file_, buffer_.get(), _IOFBF, kBufferBytes);
}

TraceFile::~TraceFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) ::unlink(temp_.c_str());
}

void TraceFile::fail(int err) {
  throw std::runtime_error("cannot write " + path_ + ": " +
                           (err != 0 ? std::strerror(err) : "write error"));
}

void TraceFile::write_line(const std::string& line) {
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fputc('\n', file_) == EOF) {
    fail(errno);
  }
}

std::string TraceFile::commit() {
  errno = 0;
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int err = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    ::unlink(temp_.c_str());
    return "cannot write " + path_ + ": " + (err != 0 ? std::strerror(err) : "write error");
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int rerr = errno;
    ::unlink(temp_.c_str());
    return "cannot write " + path_ + ": " + std::strerror(rerr);
  }
  committed_ = true;
  return "";
}

}  // namespace fdsim::run
