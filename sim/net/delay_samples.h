#pragma once
// Reading measured one-way delays for the empirical latency model.
//
// File format: one delay in milliseconds per line (a finite number in [0, 1e9], e.g. "0.734" or
// "1e-1"); blank lines are skipped; '#' starts a comment that runs to the end of the line.
// Contract: never throws. On any problem (file unreadable, not a regular file, larger than
// kMaxDelaySamplesFileBytes, a line that is not one number >= 0, no sample at all) it returns
// an empty vector and sets `error` to a message naming the file and the line, never echoing
// the file's contents ("delays.txt:12: expected one finite delay in ms >= 0 per line ...");
// on success `error` is cleared and the samples come back in file order, and `digest` (if
// given) receives the file's digest for the run identity. The file is read by the guarded
// data-file reader (sim/scenario/data_file.h): regular files only, size limit, no echo.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/data_file.h"

namespace fdsim::net {

// The largest delay samples file read (64 MiB, about 8 million samples).
inline constexpr std::uintmax_t kMaxDelaySamplesFileBytes = scenario::kMaxDataFileBytes;

// The largest delay sample (1e9 ms, the bound of every other latency parameter): a sample
// above about 9.2e12 ms overflowed the conversion to int64 nanoseconds.
inline constexpr double kMaxDelaySampleMs = 1e9;

std::vector<double> load_delay_samples_ms(const std::string& path, std::string& error,
                                          std::string* digest = nullptr);

// A line walker over the guarded reader (scenario::read_data_file: regular files only, at most
// kMaxDelaySamplesFileBytes, never echoing content), for line formats other than plain number
// lists (delay traces): calls line(line_no, text) for every line that is not blank after
// removing its '#' comment (text is trimmed; a NUL byte is a problem). `line` returns false
// after setting `error` to stop. Returns false with `error` set on any problem; `what` names
// the file kind in messages ("delay trace file"). On success `digest` (if given) receives the
// file's digest for the run identity.
bool for_each_data_line(const std::string& path, const char* what, std::string& error,
                        const std::function<bool(size_t line_no, const std::string& text)>& line,
                        std::string* digest = nullptr);

}  // namespace fdsim::net
