#pragma once
// Reading measured one-way delays for the empirical latency model.
//
// File format: one delay in milliseconds per line (a finite number >= 0, e.g. "0.734" or
// "1e-1"); blank lines are skipped; '#' starts a comment that runs to the end of the line.
// Contract: never throws. On any problem (file unreadable, not a regular file, larger than
// kMaxDelaySamplesFileBytes, a line that is not one number >= 0, no sample at all) it returns
// an empty vector and sets `error` to a message naming the file and the line, never echoing
// the file's contents ("delays.txt:12: expected one finite delay in ms >= 0 per line ...");
// on success `error` is cleared and the samples come back in file order.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fdsim::net {

// The largest delay samples file read (64 MiB, about 8 million samples).
inline constexpr std::uintmax_t kMaxDelaySamplesFileBytes = 64u << 20;

std::vector<double> load_delay_samples_ms(const std::string& path, std::string& error);

// The guarded line walker both data-file readers share (delay samples, delay traces): checks
// that `path` is a regular file of at most kMaxDelaySamplesFileBytes, then calls
// line(line_no, text) for every line that is not blank after removing its '#' comment (text is
// trimmed). `line` returns false after setting `error` to stop. Returns false with `error` set
// ("<path>: is not a regular file", "<path>: read error", ...) on any problem; `what` names the
// file kind in messages ("delay samples file"). Never echoes file contents.
bool for_each_data_line(const std::string& path, const char* what, std::string& error,
                        const std::function<bool(size_t line_no, const std::string& text)>& line);

}  // namespace fdsim::net
