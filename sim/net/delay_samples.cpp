#include "sim/net/delay_samples.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fdsim::net {

namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}
}  // namespace

bool for_each_data_line(const std::string& path, const char* what, std::string& error,
                        const std::function<bool(size_t, const std::string&)>& line_fn) {
  error.clear();
  // Only a regular file of bounded size is read: a FIFO would block forever and a device such
  // as /dev/zero never ends.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    error = path + ": is a directory, not a file";
    return false;
  }
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    error = path + ": is not a regular file";
    return false;
  }
  if (!ec && std::filesystem::exists(status) &&
      std::filesystem::file_size(path, ec) > kMaxDelaySamplesFileBytes) {
    error = path + ": larger than the limit of " + std::to_string(kMaxDelaySamplesFileBytes) +
            " bytes for a " + what;
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot open the " + what;
    return false;
  }
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::string text = trim(line);
    if (text.empty()) continue;
    if (!line_fn(line_no, text)) return false;
  }
  if (in.bad()) {
    error = path + ": read error";
    return false;
  }
  return true;
}

std::vector<double> load_delay_samples_ms(const std::string& path, std::string& error) {
  std::vector<double> out;
  const bool ok = for_each_data_line(
      path, "delay samples file", error, [&](size_t line_no, const std::string& text) {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0) {
          // The offending text is not echoed: the path may name any file, and its contents are
          // not ours to print.
          error = path + ":" + std::to_string(line_no) +
                  ": expected one finite delay in ms >= 0 per line (optionally followed by a # "
                  "comment)";
          return false;
        }
        out.push_back(v);
        return true;
      });
  if (!ok) return {};
  if (out.empty()) {
    error = path + ": no delay samples in the file";
    return {};
  }
  return out;
}

}  // namespace fdsim::net
