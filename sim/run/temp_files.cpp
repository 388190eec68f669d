#include "sim/run/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string_view>

namespace fdsim::run {

namespace {

std::string make_host_tag() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "host";
  std::string tag;
  for (const char* p = buf; *p != '\0' && tag.size() < 64; ++p) {
    const char c = *p;
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-';
    tag += keep ? c : '_';
  }
  return tag;
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The pid of a temporary written on this host, or -1 (not ours, or not a temporary name).
long long our_pid(std::string_view name) {
  if (name.size() < 2 || name[0] != '.') return -1;
  const size_t tmp = name.rfind(".tmp.");
  if (tmp == std::string_view::npos) return -1;
  std::string_view rest = name.substr(tmp + 5);  // <host>.<pid>.<n>
  const size_t last = rest.rfind('.');
  if (last == std::string_view::npos || !all_digits(rest.substr(last + 1))) return -1;
  rest = rest.substr(0, last);
  const size_t mid = rest.rfind('.');
  if (mid == std::string_view::npos || !all_digits(rest.substr(mid + 1))) return -1;
  if (rest.substr(0, mid) != temporary_host_tag()) return -1;
  return std::stoll(std::string(rest.substr(mid + 1)));
}

}  // namespace

const std::string& temporary_host_tag() {
  static const std::string tag = make_host_tag();
  return tag;
}

std::string temporary_name(const std::string& target_file_name, unsigned long long counter) {
  return "." + target_file_name + ".tmp." + temporary_host_tag() + "." +
         std::to_string(::getpid()) + "." + std::to_string(counter);
}

size_t remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const long long pid = our_pid(it->path().filename().string());
    if (pid <= 0 || pid == ::getpid() || pid > 0x7fffffffLL) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
    std::error_code rm;
    if (fs::is_regular_file(it->symlink_status(rm)) && fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

}  // namespace fdsim::run
