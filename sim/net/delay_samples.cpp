#include "sim/net/delay_samples.h"

namespace fdsim::net {

namespace {
std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}
}  // namespace

bool for_each_data_line(const std::string& path, const char* what, std::string& error,
                        const std::function<bool(size_t, const std::string&)>& line_fn,
                        std::string* digest) {
  // The guarded reader: regular files only (a FIFO would block forever, a device never ends),
  // bounded size, content never echoed.
  const auto file = scenario::read_data_file(path, what, error, kMaxDelaySamplesFileBytes);
  if (!file) return false;
  // A NUL byte is no text: refused like any other malformed line (not echoed).
  const std::string_view bytes(file->bytes);
  size_t line_no = 0, pos = 0;
  while (pos < bytes.size()) {
    const size_t end = std::min(bytes.find('\n', pos), bytes.size());
    std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    const std::string text(trim(line));
    if (text.empty()) continue;
    if (text.find('\0') != std::string::npos) {
      error = path + ":" + std::to_string(line_no) + ": a NUL byte in a " + what;
      return false;
    }
    if (!line_fn(line_no, text)) return false;
  }
  if (digest) *digest = file->digest;
  error.clear();
  return true;
}

std::vector<double> load_delay_samples_ms(const std::string& path, std::string& error,
                                          std::string* digest) {
  const auto file = scenario::read_data_file(path, "delay samples file", error,
                                             kMaxDelaySamplesFileBytes);
  if (!file) return {};
  scenario::NumberFormat format;
  format.min = 0.0;
  format.max = kMaxDelaySampleMs;
  format.one_per_line = true;
  format.expectation =
      "expected one finite delay in ms >= 0 and <= 1e9 per line (optionally followed by a # "
      "comment)";
  format.empty_message = "no delay samples in the file";
  auto samples = scenario::parse_numbers(path, *file, format, error);
  if (!samples) return {};
  if (digest) *digest = file->digest;
  return std::move(*samples);
}

}  // namespace fdsim::net
