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

std::vector<double> load_delay_samples_ms(const std::string& path, std::string& error) {
  error.clear();
  std::vector<double> out;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = path + ": is a directory, not a file";
    return {};
  }
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot open the delay samples file";
    return {};
  }
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::string text = trim(line);
    if (text.empty()) continue;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0) {
      std::string shown = text.size() > 40 ? text.substr(0, 37) + "..." : text;
      error = path + ":" + std::to_string(line_no) + ": expected a delay in ms >= 0, got \"" +
              shown + "\"";
      return {};
    }
    out.push_back(v);
  }
  if (in.bad()) {
    error = path + ": read error";
    return {};
  }
  if (out.empty()) {
    error = path + ": no delay samples in the file";
    return {};
  }
  return out;
}

}  // namespace fdsim::net
