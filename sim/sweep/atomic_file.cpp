#include "sim/sweep/atomic_file.h"

#include "sim/scenario/json_limits.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/run/result_writer.h"

namespace fdsim::sweep {

namespace fs = std::filesystem;

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

bool write_file_atomically(const fs::path& path, std::string_view content, std::string* error) {
  const std::string problem = run::write_file_atomic(path.string(), std::string(content));
  if (problem.empty()) return true;
  if (error) *error = problem;
  return false;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  // Result files and manifests are read under the JSON file limit (json_limits.h).
  const auto size = fs::file_size(path, ec);
  if (ec || size > scenario::kMaxJsonFileBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

bool is_temp_file_name(std::string_view name) {
  return name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string_view::npos;
}

size_t remove_temp_files(const fs::path& dir) {
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_temp_file_name(it->path().filename().string())) {
      std::error_code rm;
      if (fs::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

std::optional<DirectoryLock> DirectoryLock::acquire(const fs::path& dir, std::string* error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    if (error) *error = "cannot create directory " + dir.string() + ": " + ec.message();
    return std::nullopt;
  }
  const fs::path lock_path = dir / ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (error) *error = "cannot open " + lock_path.string() + ": " + errno_text();
    return std::nullopt;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (error) {
      *error = errno == EWOULDBLOCK
                   ? dir.string() + " is in use by another fdsim sweep or merge (locked " +
                         lock_path.string() + ")"
                   : "cannot lock " + lock_path.string() + ": " + errno_text();
    }
    ::close(fd);
    return std::nullopt;
  }
  return DirectoryLock(fd);
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fdsim::sweep
