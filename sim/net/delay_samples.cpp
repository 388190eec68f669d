#include "sim/net/delay_samples.h"

namespace fdsim::net {

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
